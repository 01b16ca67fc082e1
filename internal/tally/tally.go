// Package tally counts model and embedding calls and their tokens through a
// context: a Tally put on a context with With receives every count made
// under it, and so do the tallies it is nested in (a build's, a question's,
// one call's). It is internal so that the counting conventions stay in one
// place: the pipeline's wrappers (package internal/telemetry) count model
// calls and embedding calls, and embedders that learn their token usage
// from the server (llm/openai) report it with Embedded.
package tally

import (
	"context"
	"sync/atomic"

	"github.com/flowreader/flowreader/llm"
)

// Tally is a set of counters, safe for concurrent use.
type Tally struct {
	parent                                             *Tally
	calls, prompt, completion, embedCalls, embedTokens atomic.Int64
	rerankCalls, rerankTokens                          atomic.Int64
}

type key struct{}

// With returns a context carrying a new Tally nested in ctx's (if any).
func With(ctx context.Context) (context.Context, *Tally) {
	t := &Tally{parent: From(ctx)}
	return context.WithValue(ctx, key{}, t), t
}

// From returns ctx's Tally, or nil.
func From(ctx context.Context) *Tally {
	t, _ := ctx.Value(key{}).(*Tally)
	return t
}

// Model counts one model call and its usage in ctx's tallies.
func Model(ctx context.Context, u llm.Usage) {
	for t := From(ctx); t != nil; t = t.parent {
		t.calls.Add(1)
		t.prompt.Add(int64(u.PromptTokens))
		t.completion.Add(int64(u.CompletionTokens))
	}
}

// Embed counts one embedding call in ctx's tallies.
func Embed(ctx context.Context) {
	for t := From(ctx); t != nil; t = t.parent {
		t.embedCalls.Add(1)
	}
}

// Embedded counts n embedding tokens, as an embedder learnt them from its
// server, in ctx's tallies.
func Embedded(ctx context.Context, n int) {
	if n <= 0 {
		return
	}
	for t := From(ctx); t != nil; t = t.parent {
		t.embedTokens.Add(int64(n))
	}
}

// Rerank counts one reranking call in ctx's tallies.
func Rerank(ctx context.Context) {
	for t := From(ctx); t != nil; t = t.parent {
		t.rerankCalls.Add(1)
	}
}

// Reranked counts n reranking tokens, as a reranker learnt them from its
// server, in ctx's tallies.
func Reranked(ctx context.Context, n int) {
	if n <= 0 {
		return
	}
	for t := From(ctx); t != nil; t = t.parent {
		t.rerankTokens.Add(int64(n))
	}
}

// Totals returns the counts so far; the zero Totals for a nil Tally.
func (t *Tally) Totals() llm.Totals {
	if t == nil {
		return llm.Totals{}
	}
	return llm.Totals{
		Calls:            int(t.calls.Load()),
		PromptTokens:     int(t.prompt.Load()),
		CompletionTokens: int(t.completion.Load()),
		EmbedCalls:       int(t.embedCalls.Load()),
		EmbedTokens:      int(t.embedTokens.Load()),
		RerankCalls:      int(t.rerankCalls.Load()),
		RerankTokens:     int(t.rerankTokens.Load()),
	}
}
