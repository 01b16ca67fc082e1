package llm_test

import (
	"context"
	"fmt"
	"os"
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
	resp, err := r.Generate(context.Background(), llm.UserText("hello"))
	fmt.Println(resp.Text, err, len(m.Calls()))
	// Output: done <nil> 3
}

// A cache answers repeated requests; a concurrency and a rate limit bound
// the calls that reach the backend.
func ExampleWrap_stack() {
	m := &fake.Model{Default: "42"}
	c := llm.Wrap(m, llm.Middleware{
		Cache:       llm.MemoryStore(),
		Concurrency: 4,                                  // at most 4 calls in flight
		Rate:        rate.NewLimiter(rate.Limit(10), 1), // 10 calls/s
	})
	for i := 0; i < 3; i++ {
		c.Generate(context.Background(), llm.UserText("the answer?"))
	}
	fmt.Println(len(m.Calls()))
	// Output: 1
}

func ExampleWrapEmbedder() {
	calls := 0
	flaky := llm.EmbedderFunc(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
		if calls++; calls == 1 {
			return nil, llm.ErrUnavailable // e.g. connection reset
		}
		return [][]float32{{1, 0}}, nil
	})
	e := llm.WrapEmbedder(flaky, llm.Middleware{Attempts: 2, BaseDelay: time.Millisecond})
	v, err := e.Embed(context.Background(), []string{"x"}, llm.KindQuery)
	fmt.Println(v, err, calls)
	// Output: [[1 0]] <nil> 2
}

func ExampleDirStore() {
	dir, _ := os.MkdirTemp("", "llmcache")
	defer os.RemoveAll(dir)
	m := &fake.Model{Default: "expensive answer"}
	// A second process (or a resumed build) with the same directory makes no call.
	for run := 0; run < 2; run++ {
		c := llm.Wrap(m, llm.Middleware{Cache: llm.DirStore(dir)})
		r, _ := c.Generate(context.Background(), llm.UserText("summarise chapter 3"))
		fmt.Println(r.Text, len(m.Calls()))
	}
	// Output:
	// expensive answer 1
	// expensive answer 1
}

// A middleware reads the purpose the pipeline sets on each call's context:
// here it sends the workers' many short calls to a cheaper model.
func ExamplePurposeOf() {
	big, small := &fake.Model{Default: "big"}, &fake.Model{Default: "small"}
	route := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if llm.PurposeOf(ctx) == "worker" {
			return small.Generate(ctx, req)
		}
		return big.Generate(ctx, req)
	})
	ctx := context.Background()
	for _, p := range []llm.Purpose{"worker", "reasoner"} {
		resp, _ := route.Generate(llm.WithPurpose(ctx, p), llm.UserText("…"))
		fmt.Println(p, resp.Text)
	}
	// Output:
	// worker small
	// reasoner big
}
