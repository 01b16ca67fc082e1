package llm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/time/rate"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

func ExampleRetry() {
	m := &fake.Model{Default: "done"}
	m.OnError("", &llm.APIError{StatusCode: 429, RetryAfter: time.Millisecond, Err: llm.ErrRateLimited}, 2)
	r := llm.Retry(m, llm.RetryConfig{MaxAttempts: 3})
	resp, err := r.Generate(context.Background(), llm.UserText("hello"))
	fmt.Println(resp.Text, err, m.CallCount())
	// Output: done <nil> 3
}

func ExampleCache() {
	m := &fake.Model{Default: "42"}
	c := llm.Cache(m, llm.MemoryStore())
	for i := 0; i < 3; i++ {
		c.Generate(context.Background(), llm.UserText("the answer?"))
	}
	fmt.Println(m.CallCount())
	// Output: 1
}

func ExampleCacheEmbedder() {
	e := &fake.Embedder{}
	c := llm.CacheEmbedder(e, llm.MemoryStore())
	c.Embed(context.Background(), []string{"a", "b"}, llm.Document)
	c.Embed(context.Background(), []string{"b", "c"}, llm.Document)
	fmt.Println(e.Texts())
	// Output: 3
}

func ExampleLimit() {
	m := llm.Limit(&fake.Model{Default: "ok"}, 4) // at most 4 calls in flight
	r, _ := m.Generate(context.Background(), llm.UserText("x"))
	fmt.Println(r.Text)
	// Output: ok
}

func ExampleRateLimit() {
	m := llm.RateLimit(&fake.Model{Default: "ok"}, rate.NewLimiter(rate.Limit(10), 1)) // 10 calls/s
	r, _ := m.Generate(context.Background(), llm.UserText("x"))
	fmt.Println(r.Text)
	// Output: ok
}

func ExampleCheckVectors() {
	err := llm.CheckVectors([][]float32{{1, 0}, {0, 1, 0}}, 2, 2)
	fmt.Println(errors.Is(err, llm.ErrDimension), err)
	// Output: true llm: wrong embedding dimension: vector 1 has 3 components, want 2
}

func ExampleRetryEmbedder() {
	calls := 0
	flaky := llm.FixedDim(2, llm.EmbedderFunc(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
		if calls++; calls == 1 {
			return nil, llm.ErrUnavailable // e.g. connection reset
		}
		return [][]float32{{1, 0}}, nil
	}))
	e := llm.RetryEmbedder(flaky, llm.RetryConfig{BaseDelay: time.Millisecond})
	v, err := e.Embed(context.Background(), []string{"x"}, llm.Query)
	fmt.Println(v, err, calls)
	// Output: [[1 0]] <nil> 2
}

func ExampleDirStore() {
	dir, _ := os.MkdirTemp("", "llmcache")
	defer os.RemoveAll(dir)
	m := &fake.Model{Default: "expensive answer"}
	// A second process (or a resumed build) with the same directory makes no call.
	for run := 0; run < 2; run++ {
		c := llm.Cache(m, llm.DirStore(dir))
		r, _ := c.Generate(context.Background(), llm.UserText("summarise chapter 3"))
		fmt.Println(r.Text, m.CallCount())
	}
	// Output:
	// expensive answer 1
	// expensive answer 1
}

func ExampleIsTemporary() {
	fmt.Println(llm.IsTemporary(&llm.APIError{StatusCode: 503}))
	fmt.Println(llm.IsTemporary(&llm.APIError{StatusCode: 400, Err: llm.ErrContextTooLong}))
	fmt.Println(llm.IsTemporary(context.DeadlineExceeded))
	// Output:
	// true
	// false
	// false
}

func ExampleRequestKey() {
	a, _ := llm.RequestKey("qwen", llm.UserText("hi"))
	b, _ := llm.RequestKey("qwen", llm.UserText("hi"))
	c, _ := llm.RequestKey("other", llm.UserText("hi"))
	fmt.Println(len(a), a == b, a == c)
	// Output: 64 true false
}

func ExampleLimitEmbedder() {
	e := llm.LimitEmbedder(&fake.Embedder{Dim: 8}, 2)
	v, _ := e.Embed(context.Background(), []string{"a"}, llm.Document)
	fmt.Println(len(v[0]), e.Dimension())
	// Output: 8 8
}
