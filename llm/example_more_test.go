package llm_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// tally is a middleware of your own: it counts calls by purpose.
type tally struct {
	next llm.Model
	mu   sync.Mutex
	by   map[llm.Purpose]int
}

func (t *tally) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	t.mu.Lock()
	t.by[llm.PurposeOf(ctx)]++
	t.mu.Unlock()
	return t.next.Generate(ctx, req)
}

// The pipeline labels each of its calls ("worker", "reasoner", …); label
// your own calls to the same model so that middleware, telemetry and cost
// reports can tell them apart. The label passes through llm.Wrap.
func ExampleWithPurpose() {
	t := &tally{next: &fake.Model{Default: "ok"}, by: map[llm.Purpose]int{}}
	m := llm.Wrap(t, llm.Middleware{Attempts: 3})
	ctx := context.Background()
	m.Generate(llm.WithPurpose(ctx, "worker"), userText("read chunk 1"))
	m.Generate(llm.WithPurpose(ctx, "worker"), userText("read chunk 2"))
	m.Generate(llm.WithPurpose(ctx, "title"), userText("name this collection")) // a purpose of your own
	m.Generate(ctx, userText("unlabelled"))

	var ps []string
	for p, n := range t.by {
		ps = append(ps, fmt.Sprintf("%q:%d", p, n))
	}
	sort.Strings(ps)
	fmt.Println(ps)
	// Output: ["":1 "title":1 "worker":2]
}

// A backend's HTTP failure is an *APIError: errors.As reads its status and
// Retry-After, and errors.Is matches the sentinel it carries (Unwrap), so
// code can tell "retry later" from "send less".
func ExampleAPIError_Unwrap() {
	for _, err := range []error{
		fmt.Errorf("summarise: %w", &llm.APIError{StatusCode: 429, RetryAfter: 2 * time.Second, Err: llm.ErrRateLimited}),
		fmt.Errorf("summarise: %w", &llm.APIError{StatusCode: 400, Message: "prompt is 40000 tokens, limit 32768", Err: llm.ErrContextTooLong}),
	} {
		var api *llm.APIError
		switch {
		case errors.Is(err, llm.ErrContextTooLong):
			fmt.Println("send less:", err)
		case errors.As(err, &api) && api.RetryAfter > 0:
			fmt.Println("retry in", api.RetryAfter, "after HTTP", api.StatusCode)
		}
	}
	// Output:
	// retry in 2s after HTTP 429
	// send less: summarise: llm: HTTP 400: prompt is 40000 tokens, limit 32768
}
