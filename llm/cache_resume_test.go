package llm_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader/llm"
)

// learner is an embedder that learns its dimension from its first answer,
// as openai.Embedder does: Dimension is 0 until then.
type learner struct {
	dim   atomic.Int64
	calls atomic.Int64
}

func (l *learner) Dimension() int { return int(l.dim.Load()) }
func (l *learner) Name() string   { return "learner" }
func (l *learner) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	l.calls.Add(1)
	l.dim.Store(3)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1, 0}
	}
	return out, nil
}

// A resumed build uses a fresh embedder that does not know its dimension
// yet: entries written after the first embedder learnt its dimension must
// still be found; otherwise a resumed graph build re-embeds every text
// embedded after the first batch.
func TestCacheEmbedderKeysDoNotDependOnALearntDimension(t *testing.T) {
	ctx := context.Background()
	store := llm.DirStore(t.TempDir())
	first := &learner{}
	ce := llm.WrapEmbedder(first, llm.Middleware{Cache: store})
	for _, batch := range [][]string{{"a"}, {"bb"}, {"ccc"}} {
		if _, err := ce.Embed(ctx, batch, llm.KindDocument); err != nil {
			t.Fatal(err)
		}
	}
	// The next process: a fresh embedder, dimension unknown.
	second := &learner{}
	if _, err := llm.WrapEmbedder(second, llm.Middleware{Cache: store}).Embed(ctx, []string{"a", "bb", "ccc"}, llm.KindDocument); err != nil {
		t.Fatal(err)
	}
	if n := second.calls.Load(); n != 0 {
		t.Fatalf("resumed embedder made %d calls for cached texts", n)
	}
	// The same process again, now that the first embedder knows its
	// dimension: a new wrapper still finds the entries.
	if _, err := llm.WrapEmbedder(first, llm.Middleware{Cache: store}).Embed(ctx, []string{"a", "bb", "ccc"}, llm.KindDocument); err != nil {
		t.Fatal(err)
	}
	if n := first.calls.Load(); n != 3 {
		t.Fatalf("re-wrapped embedder made %d calls, want the original 3", n)
	}
}
