package llm

import "context"

// wrappedModel is what Wrap returns: it forwards the optional capabilities of
// the model it wraps, so that wrapping never hides them.
type wrappedModel struct {
	inner Model
	gen   call[*Request, *Response]
}

func (w *wrappedModel) Generate(ctx context.Context, req *Request) (*Response, error) {
	return w.gen(ctx, req)
}

// Name forwards to the wrapped model; "" when it has no name.
func (w *wrappedModel) Name() string { return nameOf(w.inner) }

// AcceptsImages forwards to the wrapped model; false when it does not say.
func (w *wrappedModel) AcceptsImages() bool {
	a, ok := w.inner.(ImageAccepter)
	return ok && a.AcceptsImages()
}

// Unwrap returns the wrapped model.
func (w *wrappedModel) Unwrap() Model { return w.inner }

// wrappedEmbedder is what WrapEmbedder returns.
type wrappedEmbedder struct {
	inner Embedder
	embed call[batch, [][]float32]
}

func (w *wrappedEmbedder) Embed(ctx context.Context, texts []string, kind Kind) ([][]float32, error) {
	return w.embed(ctx, batch{texts, kind})
}

func (w *wrappedEmbedder) Dimension() int { return w.inner.Dimension() }

// Name forwards to the wrapped embedder; "" when it has no name.
func (w *wrappedEmbedder) Name() string { return nameOf(w.inner) }

// MaxBatch forwards to the wrapped embedder; 0 (no limit known) when it does
// not say.
func (w *wrappedEmbedder) MaxBatch() int {
	if b, ok := w.inner.(BatchSizer); ok {
		return b.MaxBatch()
	}
	return 0
}

// Unwrap returns the wrapped embedder.
func (w *wrappedEmbedder) Unwrap() Embedder { return w.inner }

func nameOf(v any) string {
	if n, ok := v.(Namer); ok {
		return n.Name()
	}
	return ""
}
