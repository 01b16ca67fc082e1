// Package llmfunc adapts functions to llm.Model and llm.Embedder for tests,
// as net/http.HandlerFunc adapts a function to http.Handler. A user's
// backend is a type with the interface's methods (examples/custombackend).
package llmfunc

import (
	"context"

	"github.com/flowreader/flowreader/llm"
)

// Model adapts a function to llm.Model.
type Model func(ctx context.Context, req *llm.Request) (*llm.Response, error)

// Generate calls f.
func (f Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return f(ctx, req)
}

// Embedder adapts a function to llm.Embedder. Its Dimension is 0, which
// means "unknown until the first call": consumers (the graph builder) take
// the dimension from the vectors returned.
type Embedder func(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error)

// Embed calls f.
func (f Embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	return f(ctx, texts, kind)
}

// Dimension returns 0: unknown until the first call.
func (f Embedder) Dimension() int { return 0 }

// UserText is a single-message, text-only request: the shape of every
// prompt the pipeline sends (paper v1 App. B and v3 App. P prompts are one
// user message each).
func UserText(prompt string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: prompt}}}}}
}
