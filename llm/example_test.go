package llm_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// Retries: the first two calls are refused with HTTP 429 and a Retry-After
// of 1 ms, the third is answered.
func ExampleWrap() {
	m := &fake.Model{Default: "done", Rules: []fake.Rule{
		{Err: &llm.APIError{StatusCode: 429, RetryAfter: time.Millisecond, Err: llm.ErrRateLimited}, Times: 2},
	}}
	r := llm.Wrap(m, llm.Middleware{Attempts: 3})
	resp, err := r.Generate(context.Background(), userText("hello"))
	fmt.Println(resp.Text, err, len(m.Calls()))
	// Output: done <nil> 3
}

// memStore is an in-memory Store: a map behind a mutex. An application
// bounds it as it needs (an LRU, for a server); llm.DirStore keeps entries
// on disk.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}

func (s *memStore) Put(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = append([]byte(nil), value...)
	return nil
}

// A Store of your own: the second identical request is answered from it.
func ExampleStore() {
	m := &fake.Model{Default: "42"}
	c := llm.Wrap(m, llm.Middleware{Cache: &memStore{}})
	for i := 0; i < 2; i++ {
		c.Generate(context.Background(), userText("the answer?"))
	}
	fmt.Println(len(m.Calls()))
	// Output: 1
}

// A cache answers repeated requests; a concurrency and a rate limit bound
// the calls that reach the backend.
func ExampleWrap_stack() {
	m := &fake.Model{Default: "42"}
	c := llm.Wrap(m, llm.Middleware{
		Cache:       &memStore{},
		Concurrency: 4,                                  // at most 4 calls in flight
		Rate:        rate.NewLimiter(rate.Limit(10), 1), // 10 calls/s
	})
	for i := 0; i < 3; i++ {
		c.Generate(context.Background(), userText("the answer?"))
	}
	fmt.Println(len(m.Calls()))
	// Output: 1
}

// flakyEmbedder fails its first call, as a backend whose connection was
// reset would.
type flakyEmbedder struct{ calls int }

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
	if f.calls++; f.calls == 1 {
		return nil, llm.ErrUnavailable
	}
	return [][]float32{{1, 0}}, nil
}

func (f *flakyEmbedder) Dimension() int { return 2 }

func ExampleWrapEmbedder() {
	flaky := &flakyEmbedder{}
	e := llm.WrapEmbedder(flaky, llm.Middleware{Attempts: 2, BaseDelay: time.Millisecond})
	v, err := e.Embed(context.Background(), []string{"x"}, llm.KindQuery)
	fmt.Println(v, err, flaky.calls)
	// Output: [[1 0]] <nil> 2
}

func ExampleDirStore() {
	dir, _ := os.MkdirTemp("", "llmcache")
	defer os.RemoveAll(dir)
	m := &fake.Model{Default: "expensive answer"}
	// A second process (or a resumed build) with the same directory makes no call.
	for run := 0; run < 2; run++ {
		c := llm.Wrap(m, llm.Middleware{Cache: llm.DirStore(dir)})
		r, _ := c.Generate(context.Background(), userText("summarise chapter 3"))
		fmt.Println(r.Text, len(m.Calls()))
	}
	// Output:
	// expensive answer 1
	// expensive answer 1
}

// router sends the workers' calls to small, every other call to big.
type router struct{ big, small llm.Model }

func (r router) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if llm.PurposeOf(ctx) == "worker" {
		return r.small.Generate(ctx, req)
	}
	return r.big.Generate(ctx, req)
}

// A middleware reads the purpose the pipeline sets on each call's context:
// here it sends the workers' many short calls to a cheaper model.
func ExamplePurposeOf() {
	route := router{big: &fake.Model{Default: "big"}, small: &fake.Model{Default: "small"}}
	ctx := context.Background()
	for _, p := range []llm.Purpose{"worker", "reasoner"} {
		resp, _ := route.Generate(llm.WithPurpose(ctx, p), userText("…"))
		fmt.Println(p, resp.Text)
	}
	// Output:
	// worker small
	// reasoner big
}

// A reranker behind retries and a cache: texts already scored for the
// same query are not sent again.
func ExampleWrapReranker() {
	calls := 0
	r := rerankFunc(func(ctx context.Context, q string, texts []string) ([]float64, error) {
		calls++
		out := make([]float64, len(texts))
		for i, t := range texts {
			out[i] = float64(len(t)) / 100
		}
		return out, nil
	})
	w := llm.WrapReranker(r, llm.Middleware{Cache: &memStore{}, Attempts: 3})
	w.Rerank(context.Background(), "q", []string{"a passage", "another passage"})
	s, err := w.Rerank(context.Background(), "q", []string{"another passage"})
	fmt.Println(s, err, calls)
	// Output: [0.15] <nil> 1
}

type rerankFunc func(ctx context.Context, q string, texts []string) ([]float64, error)

func (f rerankFunc) Rerank(ctx context.Context, q string, texts []string) ([]float64, error) {
	return f(ctx, q, texts)
}

// A model that streams passes its answer on in pieces; one that does not
// is read whole. Wrap keeps the capability.
func ExampleStreamer() {
	var m llm.Model = llm.Wrap(&fake.Model{Default: "min-cost flow"}, llm.Middleware{Attempts: 3})
	req := userText("What routes the evidence?")
	if s, ok := m.(llm.Streamer); ok {
		resp, _ := s.GenerateStream(context.Background(), req, func(piece string) { fmt.Printf("%q ", piece) })
		fmt.Println("→", resp.Text)
		return
	}
	resp, _ := m.Generate(context.Background(), req)
	fmt.Println(resp.Text)
	// Output: "min-cost " "flow" → min-cost flow
}

// userText is a single-message, text-only request.
func userText(prompt string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: prompt}}}}}
}
