package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// streamScript is a Streamer whose k-th call (from 0) does what steps[k] says:
// pass pieces on, then fail with err or answer.
type streamScript struct {
	steps []step
	calls atomic.Int32
}

type step struct {
	pieces []string
	err    error
	finish string
}

func (s *streamScript) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return s.GenerateStream(ctx, req, func(string) {})
}

func (s *streamScript) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	k := int(s.calls.Add(1)) - 1
	st := s.steps[min(k, len(s.steps)-1)]
	for _, p := range st.pieces {
		onText(p)
	}
	if st.err != nil {
		return nil, st.err
	}
	fin := st.finish
	if fin == "" {
		fin = "stop"
	}
	return &llm.Response{Text: strings.Join(st.pieces, ""), FinishReason: fin}, nil
}

func collect(t *testing.T, m llm.Model, req *llm.Request) ([]string, *llm.Response, error) {
	t.Helper()
	s, ok := m.(llm.Streamer)
	if !ok {
		t.Fatalf("%T does not stream", m)
	}
	var got []string
	resp, err := s.GenerateStream(context.Background(), req, func(p string) { got = append(got, p) })
	return got, resp, err
}

func TestWrapKeepsStreamer(t *testing.T) {
	plain := llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Text: "x"}, nil
	})
	if _, ok := llm.Wrap(plain, llm.Middleware{Attempts: 3}).(llm.Streamer); ok {
		t.Fatal("a model without streaming gained it through Wrap")
	}
	if _, ok := llm.Wrap(&fake.Model{}, llm.Middleware{Attempts: 3, Concurrency: 2}).(llm.Streamer); !ok {
		t.Fatal("Wrap hid the Streamer capability")
	}
}

func TestStreamRetriedBeforeFirstPiece(t *testing.T) {
	m := &streamScript{steps: []step{
		{err: llm.ErrUnavailable},
		{pieces: []string{"a ", "b"}},
	}}
	var c clock
	w := llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 3}, c.sleep))
	got, resp, err := collect(t, w, llmfunc.UserText("q"))
	if err != nil || resp.Text != "a b" || strings.Join(got, "|") != "a |b" {
		t.Fatalf("got %q, %+v, %v", got, resp, err)
	}
	if n := m.calls.Load(); n != 2 {
		t.Fatalf("%d calls, want 2", n)
	}
}

func TestStreamNotRetriedAfterFirstPiece(t *testing.T) {
	m := &streamScript{steps: []step{
		{pieces: []string{"a "}, err: llm.ErrUnavailable},
		{pieces: []string{"a ", "b"}},
	}}
	var c clock
	w := llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 3}, c.sleep))
	got, _, err := collect(t, w, llmfunc.UserText("q"))
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err %v, want ErrUnavailable", err)
	}
	if n := m.calls.Load(); n != 1 || len(got) != 1 {
		t.Fatalf("%d calls, pieces %q: a failure after text was retried", n, got)
	}
}

func TestStreamCutOffNotRetriedAfterText(t *testing.T) {
	m := &streamScript{steps: []step{
		{pieces: []string{"half an ans"}, finish: "length"},
		{pieces: []string{"whole"}},
	}}
	var c clock
	w := llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 3}, c.sleep))
	_, _, err := collect(t, w, llmfunc.UserText("q"))
	if !errors.Is(err, llm.ErrInvalidOutput) || m.calls.Load() != 1 {
		t.Fatalf("err %v after %d calls, want ErrInvalidOutput after 1", err, m.calls.Load())
	}
	// An empty answer passed nothing on: it is retried.
	m = &streamScript{steps: []step{{}, {pieces: []string{"ok"}}}}
	w = llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 3}, c.sleep))
	_, resp, err := collect(t, w, llmfunc.UserText("q"))
	if err != nil || resp.Text != "ok" || m.calls.Load() != 2 {
		t.Fatalf("got %+v, %v after %d calls", resp, err, m.calls.Load())
	}
}

func TestStreamCache(t *testing.T) {
	m := &fake.Model{Default: "the cached answer"}
	store := llmutil.NewMemoryStore()
	w := llm.Wrap(m, llm.Middleware{Cache: store})
	got, resp, err := collect(t, w, llmfunc.UserText("q"))
	if err != nil || resp.Text != "the cached answer" || len(got) != 3 {
		t.Fatalf("miss: %q, %+v, %v", got, resp, err)
	}
	got, resp, err = collect(t, w, llmfunc.UserText("q"))
	if err != nil || resp.Text != "the cached answer" || len(got) != 1 || got[0] != resp.Text {
		t.Fatalf("hit: %q, %+v, %v", got, resp, err)
	}
	// Generate and GenerateStream share entries.
	if _, err := w.Generate(context.Background(), llmfunc.UserText("q")); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Calls()); n != 1 {
		t.Fatalf("%d backend calls, want 1", n)
	}
}

func TestStreamConcurrencyLimit(t *testing.T) {
	var inFlight, peak atomic.Int32
	release := make(chan struct{})
	s := &blocking{inFlight: &inFlight, peak: &peak, release: release}
	w := llm.Wrap(s, llm.Middleware{Concurrency: 2}).(llm.Streamer)
	done := make(chan error, 5)
	for range 5 {
		go func() {
			_, err := w.GenerateStream(context.Background(), llmfunc.UserText("q"), func(string) {})
			done <- err
		}()
	}
	for range 5 {
		release <- struct{}{}
	}
	for range 5 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Fatalf("%d streamed calls in flight, limit 2", p)
	}
}

type blocking struct {
	inFlight, peak *atomic.Int32
	release        chan struct{}
}

func (b *blocking) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return nil, errors.New("not streamed")
}

func (b *blocking) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	n := b.inFlight.Add(1)
	for {
		p := b.peak.Load()
		if n <= p || b.peak.CompareAndSwap(p, n) {
			break
		}
	}
	<-b.release
	b.inFlight.Add(-1)
	onText("x")
	return &llm.Response{Text: "x", FinishReason: "stop"}, nil
}

// rerankCount is a reranker that scores by text length and counts the
// texts it is sent.
type rerankCount struct {
	texts atomic.Int32
	fail  atomic.Int32 // fail this many calls first, with ErrUnavailable
}

func (r *rerankCount) Name() string { return "len" }

func (r *rerankCount) Rerank(ctx context.Context, q string, texts []string) ([]float64, error) {
	if r.fail.Add(-1) >= 0 {
		return nil, llm.ErrUnavailable
	}
	r.texts.Add(int32(len(texts)))
	out := make([]float64, len(texts))
	for i, t := range texts {
		out[i] = float64(len(t)) / 10
	}
	return out, nil
}

func TestWrapReranker(t *testing.T) {
	r := &rerankCount{}
	r.fail.Store(1)
	var c clock
	w := llm.WrapReranker(r, llm.WithSleep(llm.Middleware{Attempts: 2, Cache: llmutil.NewMemoryStore()}, c.sleep))
	if w.(llm.Namer).Name() != "len" {
		t.Fatal("name lost")
	}
	s, err := w.Rerank(context.Background(), "q", []string{"ab", "abcd"})
	if err != nil || len(s) != 2 || s[0] != 0.2 || s[1] != 0.4 || len(c.waits) != 1 {
		t.Fatalf("%v, %v, waits %v", s, err, c.waits)
	}
	// Cached per text and query: only the new text is sent.
	s, err = w.Rerank(context.Background(), "q", []string{"abcd", "abc", "ab"})
	if err != nil || s[0] != 0.4 || s[1] != 0.3 || s[2] != 0.2 || r.texts.Load() != 3 {
		t.Fatalf("%v, %v, %d texts sent", s, err, r.texts.Load())
	}
	if _, err := w.Rerank(context.Background(), "another query", []string{"ab"}); err != nil || r.texts.Load() != 4 {
		t.Fatalf("the query is not part of the key: %v, %d", err, r.texts.Load())
	}
	// A reranker answering outside [0, 1] is refused, not stored.
	bad := llm.WrapReranker(&rerankCount{}, llm.Middleware{Cache: llmutil.NewMemoryStore()})
	if _, err := bad.Rerank(context.Background(), "q", []string{strings.Repeat("x", 20)}); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatalf("score 2 accepted: %v", err)
	}
	if llm.WrapReranker(r, llm.Middleware{}) != llm.Reranker(r) {
		t.Fatal("an empty Middleware wraps")
	}
}
