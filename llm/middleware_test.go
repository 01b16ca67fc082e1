package llm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"

	"golang.org/x/time/rate"

	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// clock records the waits the retries ask for without sleeping.
type clock struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (c *clock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return ctx.Err()
}

// counting is a fake embedder that counts its calls and texts.
type counting struct {
	fake.Embedder
	calls, texts atomic.Int32
}

func (c *counting) Name() string { return "counting" }

func (c *counting) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	c.calls.Add(1)
	c.texts.Add(int32(len(texts)))
	return c.Embedder.Embed(ctx, texts, kind)
}

// failing returns a fake model whose first times calls fail with err (every
// call when times is 0) and whose others answer "ok".
func failing(err error, times int) *fake.Model {
	return &fake.Model{Default: "ok", Rules: []fake.Rule{{Err: err, Times: times}}}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	m := failing(&llm.APIError{StatusCode: 429, RetryAfter: 3 * time.Second, Err: llm.ErrRateLimited}, 2)
	var c clock
	r := llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 4}, c.sleep))
	resp, err := r.Generate(context.Background(), llmfunc.UserText("x"))
	if err != nil || resp.Text != "ok" {
		t.Fatalf("got %v, %v", resp, err)
	}
	if n := len(m.Calls()); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	if len(c.waits) != 2 || c.waits[0] != 3*time.Second || c.waits[1] != 3*time.Second {
		t.Fatalf("waits %v, want two of 3s", c.waits)
	}
}

func TestRetryBoundedBackoffWithJitter(t *testing.T) {
	mw := llm.Middleware{Attempts: 5, BaseDelay: time.Second, MaxDelay: 4 * time.Second, Seed: 7}
	m := failing(&llm.APIError{StatusCode: 500, Message: "boom"}, 0)
	var c clock
	_, err := llm.Wrap(m, llm.WithSleep(mw, c.sleep)).Generate(context.Background(), llmfunc.UserText("x"))
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 500 {
		t.Fatalf("err = %v, want APIError 500", err)
	}
	if n := len(m.Calls()); n != 5 {
		t.Fatalf("%d calls, want 5", n)
	}
	base := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}
	if len(c.waits) != 4 {
		t.Fatalf("waits %v", c.waits)
	}
	for i, w := range c.waits {
		lo, hi := time.Duration(float64(base[i])*0.75), time.Duration(float64(base[i])*1.25)
		if w < lo || w > hi {
			t.Errorf("wait %d = %v outside [%v, %v]", i, w, lo, hi)
		}
	}
	// Same seed, same waits.
	var c2 clock
	llm.Wrap(failing(&llm.APIError{StatusCode: 500}, 0), llm.WithSleep(mw, c2.sleep)).
		Generate(context.Background(), llmfunc.UserText("x"))
	for i := range c.waits {
		if c.waits[i] != c2.waits[i] {
			t.Fatalf("seeded waits differ: %v vs %v", c.waits, c2.waits)
		}
	}
}

func TestRetryPermanentAndContext(t *testing.T) {
	m := &fake.Model{Rules: []fake.Rule{
		{Contains: "bad", Err: &llm.APIError{StatusCode: 400, Err: llm.ErrContextTooLong}},
		{Contains: "slow", Err: llm.ErrUnavailable},
	}}
	var c clock
	r := llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 4}, c.sleep))
	if _, err := r.Generate(context.Background(), llmfunc.UserText("bad")); !errors.Is(err, llm.ErrContextTooLong) {
		t.Fatal(err)
	}
	if n := len(m.Calls()); n != 1 {
		t.Fatalf("permanent error retried: %d calls", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Generate(ctx, llmfunc.UserText("slow")); err == nil {
		t.Fatal("no error")
	}
	if n := len(m.Calls()); n != 2 {
		t.Fatalf("retried after context end: %d calls", n-1)
	}
	// A Retry-After beyond the bound ends retries at once.
	m2 := failing(&llm.APIError{StatusCode: 503, RetryAfter: time.Hour}, 0)
	llm.Wrap(m2, llm.WithSleep(llm.Middleware{Attempts: 4}, c.sleep)).Generate(context.Background(), llmfunc.UserText("x"))
	if n := len(m2.Calls()); n != 1 {
		t.Fatalf("hour-long Retry-After was waited: %d calls", n)
	}
}

func TestIsTemporary(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{context.Canceled, false},
		{context.DeadlineExceeded, false},
		{llm.ErrInvalidOutput, false},
		{llm.ErrRateLimited, true},
		{llm.ErrUnavailable, true},
		{&llm.APIError{StatusCode: 503}, true},
		{&llm.APIError{StatusCode: 408}, true},
		{&llm.APIError{StatusCode: 404}, false},
		{&llm.APIError{StatusCode: 400, Err: llm.ErrContextTooLong}, false},
	} {
		if got := llm.IsTemporary(tc.err); got != tc.want {
			t.Errorf("IsTemporary(%v) = %v", tc.err, got)
		}
	}
}

// dim4 is an embedder of dimension 4 answering through f.
type dim4 struct{ llmfunc.Embedder }

func (dim4) Dimension() int { return 4 }

func TestRetryEmbedder(t *testing.T) {
	var n atomic.Int32
	e := dim4{func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
		if n.Add(1) < 3 {
			return nil, &llm.APIError{StatusCode: 502}
		}
		return [][]float32{{1, 0, 0, 0}}, nil
	}}
	var c clock
	r := llm.WrapEmbedder(e, llm.WithSleep(llm.Middleware{Attempts: 4}, c.sleep))
	if _, err := r.Embed(context.Background(), []string{"a"}, llm.KindQuery); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 || r.Dimension() != 4 {
		t.Fatalf("calls %d dim %d", n.Load(), r.Dimension())
	}
}

func TestConcurrency(t *testing.T) {
	var in, peak atomic.Int32
	release := make(chan struct{})
	m := llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		cur := in.Add(1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		<-release
		in.Add(-1)
		return &llm.Response{}, nil
	})
	lm := llm.Wrap(m, llm.Middleware{Concurrency: 3})
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); lm.Generate(context.Background(), llmfunc.UserText("x")) }()
	}
	for in.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	// A caller whose context has ended does not wait for a slot.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lm.Generate(ctx, llmfunc.UserText("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	close(release)
	wg.Wait()
	if peak.Load() != 3 {
		t.Fatalf("peak concurrency %d, want 3", peak.Load())
	}
}

func TestRate(t *testing.T) {
	m := &fake.Model{Default: "ok"}
	rm := llm.Wrap(m, llm.Middleware{Rate: rate.NewLimiter(rate.Every(time.Hour), 1)})
	if _, err := rm.Generate(context.Background(), llmfunc.UserText("x")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := rm.Generate(ctx, llmfunc.UserText("x")); err == nil {
		t.Fatal("second call within the hour was not held back")
	}
	if n := len(m.Calls()); n != 1 {
		t.Fatalf("%d calls reached the model", n)
	}
	e := &counting{}
	re := llm.WrapEmbedder(e, llm.Middleware{Rate: rate.NewLimiter(rate.Inf, 1)})
	if _, err := re.Embed(context.Background(), []string{"a"}, llm.KindQuery); err != nil || e.calls.Load() != 1 {
		t.Fatal(err)
	}
}

// Each attempt of a retried call takes its own rate token.
func TestRetryAttemptsTakeTokens(t *testing.T) {
	lim := rate.NewLimiter(rate.Every(time.Hour), 2)
	m := failing(llm.ErrUnavailable, 0)
	var c clock
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 3, Rate: lim}, c.sleep)).Generate(ctx, llmfunc.UserText("x"))
	if err == nil || len(m.Calls()) != 2 {
		t.Fatalf("err %v after %d calls, want the third attempt held back", err, len(m.Calls()))
	}
}

func TestZeroMiddlewareIsIdentity(t *testing.T) {
	m := &fake.Model{}
	if llm.Wrap(m, llm.Middleware{}) != llm.Model(m) {
		t.Error("zero Middleware wrapped the model")
	}
	e := &fake.Embedder{}
	if llm.WrapEmbedder(e, llm.Middleware{Attempts: 1}) != llm.Embedder(e) {
		t.Error("one attempt wrapped the embedder")
	}
}

func TestCacheModel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func(t *testing.T) llm.Store
	}{
		{"memory", func(*testing.T) llm.Store { return llmutil.NewMemoryStore() }},
		{"dir", func(t *testing.T) llm.Store { return llm.DirStore(t.TempDir()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &fake.Model{Default: "answer", Rules: []fake.Rule{{Contains: "fail", Err: llm.ErrInvalidOutput, Times: 1}}}
			cm := llm.Wrap(m, llm.Middleware{Cache: tc.store(t)})
			ctx := context.Background()
			for i := 0; i < 3; i++ {
				r, err := cm.Generate(ctx, llmfunc.UserText("q"))
				if err != nil || r.Text != "answer" {
					t.Fatal(r, err)
				}
			}
			if n := len(m.Calls()); n != 1 {
				t.Fatalf("%d model calls for 3 identical requests", n)
			}
			req := llmfunc.UserText("q")
			req.Temperature = 0.7
			cm.Generate(ctx, req)
			if len(m.Calls()) != 2 {
				t.Fatal("a different request was served from the cache")
			}
			if _, err := cm.Generate(ctx, llmfunc.UserText("fail")); err == nil {
				t.Fatal("no error")
			}
			if _, err := cm.Generate(ctx, llmfunc.UserText("fail")); err != nil {
				t.Fatal("error was cached:", err)
			}
		})
	}
}

func TestCacheCorruptedEntryIgnored(t *testing.T) {
	dir := t.TempDir()
	m := &fake.Model{Default: "answer"}
	cm := llm.Wrap(m, llm.Middleware{Cache: llm.DirStore(dir)})
	ctx := context.Background()
	cm.Generate(ctx, llmfunc.UserText("q"))
	key, _ := llm.RequestKey("", llmfunc.UserText("q"))
	p := filepath.Join(dir, key[:2], key)
	if _, err := os.Stat(p); err != nil {
		t.Fatal("entry not under its key:", err)
	}
	for _, garbage := range []string{"{not json", `{"key":"other","response":{"text":"wrong"}}`, ""} {
		if err := os.WriteFile(p, []byte(garbage), 0o644); err != nil {
			t.Fatal(err)
		}
		before := len(m.Calls())
		r, err := cm.Generate(ctx, llmfunc.UserText("q"))
		if err != nil || r.Text != "answer" {
			t.Fatalf("corrupted entry %q: %v, %v", garbage, r, err)
		}
		if len(m.Calls()) != before+1 {
			t.Fatal("corrupted entry was served")
		}
		if r, _ := cm.Generate(ctx, llmfunc.UserText("q")); r.Text != "answer" || len(m.Calls()) != before+1 {
			t.Fatal("entry was not rewritten")
		}
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(filepath.Join(dir, key[:2]))
	if len(ents) != 1 {
		t.Fatalf("%d files in the fan-out directory", len(ents))
	}
}

func TestCacheEmbedder(t *testing.T) {
	dir := t.TempDir()
	e := &counting{Embedder: fake.Embedder{Dim: 8}}
	ce := llm.WrapEmbedder(e, llm.Middleware{Cache: llm.DirStore(dir)})
	ctx := context.Background()
	a, err := ce.Embed(ctx, []string{"x", "y"}, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ce.Embed(ctx, []string{"y", "z", "x"}, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	if e.calls.Load() != 2 || e.texts.Load() != 3 {
		t.Fatalf("calls %d texts %d: only the miss should be embedded", e.calls.Load(), e.texts.Load())
	}
	for i := range a[0] {
		if a[0][i] != b[2][i] || a[1][i] != b[0][i] {
			t.Fatal("cached vectors differ or are out of order")
		}
	}
	ce.Embed(ctx, []string{"x"}, llm.KindQuery)
	if e.texts.Load() != 4 {
		t.Fatal("kind is not part of the key")
	}
	// Corrupt x's document entry: it is re-embedded, not fatal.
	key := llm.EmbedKey(e.Name(), 8, llm.KindDocument, "x")
	os.WriteFile(filepath.Join(dir, key[:2], key), []byte("0123456789"), 0o644)
	v, err := ce.Embed(ctx, []string{"x"}, llm.KindDocument)
	if err != nil || e.texts.Load() != 5 {
		t.Fatalf("corrupted vector: err %v, texts %d", err, e.texts.Load())
	}
	for i := range v[0] {
		if v[0][i] != a[0][i] {
			t.Fatal("re-embedded vector differs")
		}
	}
}

// dim2 is an embedder that declares dimension 2 and answers with 3.
type dim2 struct{}

func (dim2) Dimension() int { return 2 }
func (dim2) Embed(context.Context, []string, llm.Kind) ([][]float32, error) {
	return [][]float32{{1, 2, 3}}, nil
}

func TestCacheEmbedderRejectsBadOutput(t *testing.T) {
	_, err := llm.WrapEmbedder(dim2{}, llm.Middleware{Cache: llmutil.NewMemoryStore()}).Embed(context.Background(), []string{"a"}, llm.KindQuery)
	if !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatal(err)
	}
}

func TestDirStoreRejectsUnsafeKeys(t *testing.T) {
	s := llm.DirStore(t.TempDir())
	if err := s.Put("../../etc", []byte("x")); err == nil {
		t.Fatal("path traversal accepted")
	}
	if _, ok := s.Get("../../etc"); ok {
		t.Fatal("unsafe Get hit")
	}
}

// vlm is a named model that accepts images.
type vlm struct{ fake.Model }

func (*vlm) Name() string { return "vlm" }

// batched is a named embedder with a batch limit.
type batched struct{ fake.Embedder }

func (*batched) Name() string  { return "batched" }
func (*batched) MaxBatch() int { return 7 }

func TestWrappersKeepCapabilities(t *testing.T) {
	m := &vlm{fake.Model{Images: true}}
	w := llm.Wrap(m, llm.Middleware{Cache: llmutil.NewMemoryStore(), Attempts: 4, Concurrency: 2})
	if a, ok := w.(llm.ImageAccepter); !ok || !a.AcceptsImages() {
		t.Fatal("ImageAccepter lost")
	}
	if n, ok := w.(llm.Namer); !ok || n.Name() != "vlm" {
		t.Fatal("Namer lost")
	}
	e := llm.WrapEmbedder(&batched{fake.Embedder{Dim: 5}}, llm.Middleware{Cache: llmutil.NewMemoryStore(), Concurrency: 1})
	if e.Dimension() != 5 || e.(llm.Namer).Name() != "batched" || e.(llm.BatchSizer).MaxBatch() != 7 {
		t.Fatal("embedder capabilities lost")
	}
}

func TestRetryAbandonedKeepsBothErrors(t *testing.T) {
	m := failing(&llm.APIError{StatusCode: 502}, 0)
	ctx, cancel := context.WithCancel(context.Background())
	r := llm.Wrap(m, llm.WithSleep(llm.Middleware{Attempts: 4}, func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}))
	_, err := r.Generate(ctx, llmfunc.UserText("x"))
	var api *llm.APIError
	if !errors.As(err, &api) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if n := len(m.Calls()); n != 1 {
		t.Fatalf("%d calls", n)
	}
}
