package custombackend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/flowreader/flowreader/llm"
)

// Embedder adapts an EchoCorp Client to llm.Embedder. Documents are
// vectorised for "index" and queries for "search", in batches of at most
// MaxBatch texts.
type Embedder struct {
	Client *Client
}

// Dimension returns the client's vector length. It implements llm.Embedder.
func (e *Embedder) Dimension() int { return e.Client.dim() }

// Name names the model and its dimension, so that a graph built with it
// records which embedder made it and caches never mix dimensions. It
// implements llm.Namer.
func (e *Embedder) Name() string { return fmt.Sprintf("echocorp-embed-%d", e.Dimension()) }

// MaxBatch is EchoCorp's batch limit. It implements llm.BatchSizer, so the
// graph builder sends batches of this size.
func (e *Embedder) MaxBatch() int { return MaxBatch }

// Embed returns one float32 vector per text, in order. It implements
// llm.Embedder.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	purpose := "index"
	if kind == llm.KindQuery {
		purpose = "search"
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += MaxBatch {
		batch := texts[start:min(start+MaxBatch, len(texts))]
		vecs, err := e.Client.Vectorize(ctx, batch, purpose)
		if err != nil {
			return nil, mapError(err)
		}
		for _, v := range vecs {
			f := make([]float32, len(v))
			for i, x := range v {
				f[i] = float32(x)
			}
			out = append(out, f)
		}
	}
	// A backend that returns the wrong number of vectors, or NaN, must fail
	// here rather than poison a graph.
	if len(out) != len(texts) {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", llm.ErrInvalidOutput, len(out), len(texts))
	}
	for i, v := range out {
		if len(v) != e.Dimension() {
			return nil, fmt.Errorf("%w: vector %d has %d components, want %d", llm.ErrInvalidOutput, i, len(v), e.Dimension())
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: vector %d has a non-finite component", llm.ErrInvalidOutput, i)
			}
		}
	}
	return out, nil
}

// Model adapts an EchoCorp Client to llm.Model.
type Model struct {
	Client *Client
}

// Name names the model (part of cache keys). It implements llm.Namer.
func (m *Model) Name() string { return "echocorp-echo-1" }

// AcceptsImages reports that EchoCorp takes pictures, so the reader sends
// tables and figures as images. It implements llm.ImageAccepter.
func (m *Model) AcceptsImages() bool { return true }

// Generate translates req into an EchoCorp prompt: system text into the
// preamble, user and assistant messages into turns, images into pictures
// (in order), a JSON schema into JSON mode (EchoCorp cannot enforce a
// schema, so the schema is also stated in the preamble). It implements
// llm.Model.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	var p Prompt
	var pre []string
	for _, msg := range req.Messages {
		var text []string
		for _, part := range msg.Parts {
			switch {
			case part.Image != nil:
				p.Pictures = append(p.Pictures, part.Image.Data)
			default:
				text = append(text, part.Text)
			}
		}
		switch msg.Role {
		case "system":
			pre = append(pre, text...)
		case "assistant":
			p.Turns = append(p.Turns, Turn{Speaker: "bot", Text: strings.Join(text, "\n")})
		default:
			p.Turns = append(p.Turns, Turn{Speaker: "human", Text: strings.Join(text, "\n")})
		}
	}
	if len(req.JSONSchema) > 0 {
		p.JSON = true
		pre = append(pre, "Answer with one JSON object that validates against this schema: "+string(req.JSONSchema))
	}
	p.Preamble = strings.Join(pre, "\n")
	c, err := m.Client.Complete(ctx, p)
	if err != nil {
		return nil, mapError(err)
	}
	finish := "stop"
	if c.Overflowed {
		finish = "length"
	}
	return &llm.Response{Text: c.Text, Usage: llm.Usage{PromptTokens: c.WordsIn, CompletionTokens: c.WordsOut}, FinishReason: finish}, nil
}

// mapError turns EchoCorp's errors into llm's, so that callers can test them
// with errors.Is and llm.Wrap retries exactly the temporary ones: "busy"
// becomes a 429 *llm.APIError carrying the vendor's wait as Retry-After.
func mapError(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err // context errors pass through unchanged
	}
	switch e.Code {
	case "busy":
		return &llm.APIError{StatusCode: 429, RetryAfter: e.Wait, Message: e.Msg, Err: llm.ErrRateLimited}
	case "too_long":
		return fmt.Errorf("%w: %v", llm.ErrContextTooLong, e)
	case "too_many_pictures":
		return fmt.Errorf("%w: %v", llm.ErrContextTooLong, e)
	}
	return &llm.APIError{StatusCode: 400, Message: e.Error()}
}

// Compile-time checks of the interfaces the adapters promise.
var (
	_ llm.Embedder      = (*Embedder)(nil)
	_ llm.Namer         = (*Embedder)(nil)
	_ llm.BatchSizer    = (*Embedder)(nil)
	_ llm.Model         = (*Model)(nil)
	_ llm.Namer         = (*Model)(nil)
	_ llm.ImageAccepter = (*Model)(nil)
)
