package llm_test

import (
	"context"
	"errors"
	"fmt"
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
