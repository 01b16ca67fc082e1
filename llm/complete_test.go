package llm_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
)

// scripted answers its calls in turn from a list, repeating the last.
type scripted struct {
	answers []*llm.Response
	calls   atomic.Int64
}

func (s *scripted) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	i := int(s.calls.Add(1)) - 1
	r := *s.answers[min(i, len(s.answers)-1)]
	return &r, nil
}

func fastRetries(store llm.Store) llm.Middleware {
	return llm.WithSleep(llm.Middleware{Cache: store, Attempts: 3, BaseDelay: time.Millisecond},
		func(ctx context.Context, d time.Duration) error { return nil })
}

// A truncated answer (finish_reason "length" with no cap asked for), an
// empty one or one holding only white space is an error that Wrap retries
// and never caches: before, the first such answer was cached for good and
// the build fell back to offline analysis on every re-build.
func TestWrapRetriesAndNeverCachesIncompleteAnswers(t *testing.T) {
	ctx := context.Background()
	ok := &llm.Response{Text: `{"summary":"kestrels"}`, FinishReason: "stop"}
	for name, bad := range map[string]*llm.Response{
		"truncated":   {Text: `{"summary":"kes`, FinishReason: "length"},
		"empty":       {Text: "", FinishReason: "stop"},
		"white space": {Text: " \n ", FinishReason: "stop"},
	} {
		store := llmutil.NewMemoryStore()
		m := &scripted{answers: []*llm.Response{bad, ok}}
		got, err := llm.Wrap(m, fastRetries(store)).Generate(ctx, llmfunc.UserText("analyse"))
		if err != nil || got.Text != ok.Text {
			t.Fatalf("%s then good: %v %+v", name, err, got)
		}
		m = &scripted{answers: []*llm.Response{bad}}
		_, err = llm.Wrap(m, fastRetries(store)).Generate(ctx, llmfunc.UserText("other"))
		if !errors.Is(err, llm.ErrInvalidOutput) || m.calls.Load() != 3 {
			t.Fatalf("%s always: err %v after %d calls, want ErrInvalidOutput after 3", name, err, m.calls.Load())
		}
		_, _ = llm.Wrap(m, fastRetries(store)).Generate(ctx, llmfunc.UserText("other"))
		if m.calls.Load() != 6 {
			t.Fatalf("%s: the failed answer was cached (%d calls)", name, m.calls.Load())
		}
	}
	// A cap the caller asked for is not a truncation.
	m := &scripted{answers: []*llm.Response{{Text: "YES", FinishReason: "length"}}}
	req := llmfunc.UserText("judge")
	req.MaxTokens = 1
	if got, err := llm.Wrap(m, fastRetries(llmutil.NewMemoryStore())).Generate(ctx, req); err != nil || got.Text != "YES" {
		t.Fatalf("capped answer: %v %+v", err, got)
	}
}

// countingEmbedder embeds each text as a vector from its length.
type countingEmbedder struct{ calls atomic.Int64 }

func (c *countingEmbedder) Dimension() int { return 2 }
func (c *countingEmbedder) Name() string   { return "counting" }
func (c *countingEmbedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	c.calls.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}

// An embedding cache entry copied to another key's file is refused (a miss,
// embedded afresh), not answered for the wrong text: entries carry their
// key.
func TestEmbedCacheEntryCarriesItsKey(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := llm.DirStore(dir)
	e := &countingEmbedder{}
	w := llm.WrapEmbedder(e, llm.Middleware{Cache: store})
	if _, err := w.Embed(ctx, []string{"short", "a much longer text"}, llm.KindDocument); err != nil {
		t.Fatal(err)
	}
	k1, k2 := llm.EmbedKey("counting", 2, llm.KindDocument, "short"), llm.EmbedKey("counting", 2, llm.KindDocument, "a much longer text")
	v1, ok := store.Get(k1)
	if !ok {
		t.Fatal("no entry")
	}
	if err := store.Put(k2, v1); err != nil { // the attacker's copy
		t.Fatal(err)
	}
	vecs, err := w.Embed(ctx, []string{"a much longer text"}, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	if vecs[0][0] != float32(len("a much longer text")) || e.calls.Load() != 3 {
		t.Fatalf("copied entry answered: %v after %d texts embedded", vecs[0], e.calls.Load())
	}
}
