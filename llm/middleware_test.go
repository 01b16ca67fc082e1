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

	"golang.org/x/time/rate"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// clock records the waits Retry asks for without sleeping.
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

func TestRetryHonoursRetryAfter(t *testing.T) {
	m := &fake.Model{Default: "ok"}
	m.OnError("", &llm.APIError{StatusCode: 429, RetryAfter: 3 * time.Second, Err: llm.ErrRateLimited}, 2)
	var c clock
	r := llm.Retry(m, llm.RetryConfig{Sleep: c.sleep})
	resp, err := r.Generate(context.Background(), llm.UserText("x"))
	if err != nil || resp.Text != "ok" {
		t.Fatalf("got %v, %v", resp, err)
	}
	if m.CallCount() != 3 {
		t.Fatalf("%d calls, want 3", m.CallCount())
	}
	if len(c.waits) != 2 || c.waits[0] != 3*time.Second || c.waits[1] != 3*time.Second {
		t.Fatalf("waits %v, want two of 3s", c.waits)
	}
}

func TestRetryBoundedBackoffWithJitter(t *testing.T) {
	m := &fake.Model{}
	m.OnError("", &llm.APIError{StatusCode: 500, Message: "boom"}, 0)
	var c clock
	r := llm.Retry(m, llm.RetryConfig{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 4 * time.Second, Sleep: c.sleep, Seed: 7})
	_, err := r.Generate(context.Background(), llm.UserText("x"))
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 500 {
		t.Fatalf("err = %v, want APIError 500", err)
	}
	if m.CallCount() != 5 {
		t.Fatalf("%d calls, want 5", m.CallCount())
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
	m.Reset()
	llm.Retry(m, llm.RetryConfig{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 4 * time.Second, Sleep: c2.sleep, Seed: 7}).
		Generate(context.Background(), llm.UserText("x"))
	for i := range c.waits {
		if c.waits[i] != c2.waits[i] {
			t.Fatalf("seeded waits differ: %v vs %v", c.waits, c2.waits)
		}
	}
}

func TestRetryPermanentAndContext(t *testing.T) {
	m := &fake.Model{}
	m.OnError("bad", &llm.APIError{StatusCode: 400, Err: llm.ErrContextTooLong}, 0)
	m.OnError("slow", llm.ErrUnavailable, 0)
	var c clock
	r := llm.Retry(m, llm.RetryConfig{Sleep: c.sleep})
	if _, err := r.Generate(context.Background(), llm.UserText("bad")); !errors.Is(err, llm.ErrContextTooLong) {
		t.Fatal(err)
	}
	if m.CallCount() != 1 {
		t.Fatalf("permanent error retried: %d calls", m.CallCount())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Reset()
	if _, err := r.Generate(ctx, llm.UserText("slow")); err == nil {
		t.Fatal("no error")
	}
	if m.CallCount() != 1 {
		t.Fatalf("retried after context end: %d calls", m.CallCount())
	}
	// A Retry-After beyond the bound ends retries at once.
	m2 := &fake.Model{}
	m2.OnError("", &llm.APIError{StatusCode: 503, RetryAfter: time.Hour}, 0)
	llm.Retry(m2, llm.RetryConfig{Sleep: c.sleep}).Generate(context.Background(), llm.UserText("x"))
	if m2.CallCount() != 1 {
		t.Fatalf("hour-long Retry-After was waited: %d calls", m2.CallCount())
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
		{&llm.APIError{StatusCode: 404}, false},
	} {
		if got := llm.IsTemporary(tc.err); got != tc.want {
			t.Errorf("IsTemporary(%v) = %v", tc.err, got)
		}
	}
}

func TestRetryEmbedder(t *testing.T) {
	var n atomic.Int32
	e := llm.FixedDim(4, llm.EmbedderFunc(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
		if n.Add(1) < 3 {
			return nil, &llm.APIError{StatusCode: 502}
		}
		return [][]float32{{1, 0, 0, 0}}, nil
	}))
	var c clock
	r := llm.RetryEmbedder(e, llm.RetryConfig{Sleep: c.sleep})
	if _, err := r.Embed(context.Background(), []string{"a"}, llm.Query); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 || r.Dimension() != 4 {
		t.Fatalf("calls %d dim %d", n.Load(), r.Dimension())
	}
}

func TestLimit(t *testing.T) {
	var in, peak atomic.Int32
	release := make(chan struct{})
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
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
	lm := llm.Limit(m, 3)
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); lm.Generate(context.Background(), llm.UserText("x")) }()
	}
	for in.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	// A caller whose context has ended does not wait for a slot.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lm.Generate(ctx, llm.UserText("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	close(release)
	wg.Wait()
	if peak.Load() != 3 {
		t.Fatalf("peak concurrency %d, want 3", peak.Load())
	}
}

func TestRateLimit(t *testing.T) {
	m := &fake.Model{Default: "ok"}
	lim := rate.NewLimiter(rate.Every(time.Hour), 1)
	rm := llm.RateLimit(m, lim)
	if _, err := rm.Generate(context.Background(), llm.UserText("x")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := rm.Generate(ctx, llm.UserText("x")); err == nil {
		t.Fatal("second call within the hour was not held back")
	}
	if m.CallCount() != 1 {
		t.Fatalf("%d calls reached the model", m.CallCount())
	}
	e := &fake.Embedder{}
	re := llm.RateLimitEmbedder(e, rate.NewLimiter(rate.Inf, 1))
	if _, err := re.Embed(context.Background(), []string{"a"}, llm.Query); err != nil || e.Calls() != 1 {
		t.Fatal(err)
	}
}

func TestCacheModel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func(t *testing.T) llm.Store
	}{
		{"memory", func(*testing.T) llm.Store { return llm.MemoryStore() }},
		{"dir", func(t *testing.T) llm.Store { return llm.DirStore(t.TempDir()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &fake.Model{Default: "answer"}
			m.OnError("fail", llm.ErrInvalidOutput, 1)
			cm := llm.Cache(m, tc.store(t))
			ctx := context.Background()
			for i := 0; i < 3; i++ {
				r, err := cm.Generate(ctx, llm.UserText("q"))
				if err != nil || r.Text != "answer" {
					t.Fatal(r, err)
				}
			}
			if m.CallCount() != 1 {
				t.Fatalf("%d model calls for 3 identical requests", m.CallCount())
			}
			req := llm.UserText("q")
			req.Temperature = 0.7
			cm.Generate(ctx, req)
			if m.CallCount() != 2 {
				t.Fatal("a different request was served from the cache")
			}
			if _, err := cm.Generate(ctx, llm.UserText("fail")); err == nil {
				t.Fatal("no error")
			}
			if _, err := cm.Generate(ctx, llm.UserText("fail")); err != nil {
				t.Fatal("error was cached:", err)
			}
		})
	}
}

func TestCacheCorruptedEntryIgnored(t *testing.T) {
	dir := t.TempDir()
	m := &fake.Model{Default: "answer"}
	cm := llm.Cache(m, llm.DirStore(dir))
	ctx := context.Background()
	cm.Generate(ctx, llm.UserText("q"))
	key, _ := llm.RequestKey("fake", llm.UserText("q"))
	p := filepath.Join(dir, key[:2], key)
	for _, garbage := range []string{"{not json", `{"key":"other","response":{"text":"wrong"}}`, ""} {
		if err := os.WriteFile(p, []byte(garbage), 0o644); err != nil {
			t.Fatal(err)
		}
		before := m.CallCount()
		r, err := cm.Generate(ctx, llm.UserText("q"))
		if err != nil || r.Text != "answer" {
			t.Fatalf("corrupted entry %q: %v, %v", garbage, r, err)
		}
		if m.CallCount() != before+1 {
			t.Fatal("corrupted entry was served")
		}
		if r, _ := cm.Generate(ctx, llm.UserText("q")); r.Text != "answer" || m.CallCount() != before+1 {
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
	e := &fake.Embedder{Dim: 8}
	ce := llm.CacheEmbedder(e, llm.DirStore(dir))
	ctx := context.Background()
	a, err := ce.Embed(ctx, []string{"x", "y"}, llm.Document)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ce.Embed(ctx, []string{"y", "z", "x"}, llm.Document)
	if err != nil {
		t.Fatal(err)
	}
	if e.Calls() != 2 || e.Texts() != 3 {
		t.Fatalf("calls %d texts %d: only the miss should be embedded", e.Calls(), e.Texts())
	}
	for i := range a[0] {
		if a[0][i] != b[2][i] || a[1][i] != b[0][i] {
			t.Fatal("cached vectors differ or are out of order")
		}
	}
	ce.Embed(ctx, []string{"x"}, llm.Query)
	if e.Texts() != 4 {
		t.Fatal("kind is not part of the key")
	}
	// Corrupt x's document entry: it is re-embedded, not fatal.
	key := llm.EmbedKey(e.Name(), 8, llm.Document, "x")
	os.WriteFile(filepath.Join(dir, key[:2], key), []byte("0123456789"), 0o644)
	v, err := ce.Embed(ctx, []string{"x"}, llm.Document)
	if err != nil || e.Texts() != 5 {
		t.Fatalf("corrupted vector: err %v, texts %d", err, e.Texts())
	}
	for i := range v[0] {
		if v[0][i] != a[0][i] {
			t.Fatal("re-embedded vector differs")
		}
	}
}

func TestCacheEmbedderRejectsBadOutput(t *testing.T) {
	bad := llm.FixedDim(2, llm.EmbedderFunc(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
		return [][]float32{{1, 2, 3}}, nil
	}))
	_, err := llm.CacheEmbedder(bad, llm.MemoryStore()).Embed(context.Background(), []string{"a"}, llm.Query)
	if !errors.Is(err, llm.ErrDimension) {
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

func TestWrappersKeepCapabilities(t *testing.T) {
	m := &fake.Model{Images: true, ModelName: "vlm"}
	w := llm.Cache(llm.Retry(llm.Limit(m, 2), llm.RetryConfig{}), llm.MemoryStore())
	if a, ok := w.(llm.ImageAccepter); !ok || !a.AcceptsImages() {
		t.Fatal("ImageAccepter lost")
	}
	if n, ok := w.(llm.Namer); !ok || n.Name() != "vlm" {
		t.Fatal("Namer lost")
	}
	e := llm.CacheEmbedder(llm.LimitEmbedder(&fake.Embedder{Dim: 5}, 1), llm.MemoryStore())
	if e.Dimension() != 5 || e.(llm.Namer).Name() != "fake-hash-5" {
		t.Fatal("embedder capabilities lost")
	}
}

func TestCheckVectors(t *testing.T) {
	nan := float32(0)
	nan = nan / nan
	for _, tc := range []struct {
		vecs   [][]float32
		n, dim int
		want   error
	}{
		{[][]float32{{1, 2}}, 1, 2, nil},
		{[][]float32{{1, 2}, {3, 4}}, 2, 0, nil},
		{nil, 0, 3, nil},
		{[][]float32{{1, 2}}, 2, 2, llm.ErrInvalidOutput},
		{[][]float32{{1, 2}}, 1, 3, llm.ErrDimension},
		{[][]float32{{1, 2}, {3}}, 2, 0, llm.ErrDimension},
		{[][]float32{{}}, 1, 0, llm.ErrDimension},
		{[][]float32{{1, nan}}, 1, 2, llm.ErrInvalidOutput},
	} {
		err := llm.CheckVectors(tc.vecs, tc.n, tc.dim)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("CheckVectors(%v, %d, %d) = %v, want %v", tc.vecs, tc.n, tc.dim, err, tc.want)
		}
	}
}

func TestRetryAbandonedKeepsBothErrors(t *testing.T) {
	m := &fake.Model{}
	m.OnError("", &llm.APIError{StatusCode: 502}, 0)
	ctx, cancel := context.WithCancel(context.Background())
	r := llm.Retry(m, llm.RetryConfig{Sleep: func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}})
	_, err := r.Generate(ctx, llm.UserText("x"))
	var api *llm.APIError
	if !errors.As(err, &api) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if m.CallCount() != 1 {
		t.Fatalf("%d calls", m.CallCount())
	}
}
