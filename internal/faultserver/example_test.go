package faultserver_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/flowreader/flowreader/internal/faultserver"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

// A server that rate-limits the first attempt of every request: llm.Retry
// honours its Retry-After and the second attempt succeeds. The log shows
// both attempts; only the second was served and consumed.
func Example() {
	s := faultserver.New(faultserver.Config{
		Rates:           faultserver.Rates{RateLimited: 1},
		MaxFaultsPerKey: 1,
		RetryAfter:      10 * time.Millisecond,
		Chat:            func(r *faultserver.ChatRequest) string { return "echo: " + r.Prompt() },
	})
	defer s.Close()
	hc := s.Client()
	defer hc.CloseIdleConnections()
	chat, _ := openai.NewChat(openai.Config{BaseURL: s.BaseURL(), Model: "m", HTTPClient: hc})
	m := llm.Wrap(chat, llm.Middleware{Attempts: 4})
	resp, err := m.Generate(context.Background(), llmfunc.UserText("hello"))
	fmt.Println(resp.Text, err)
	for _, e := range s.Log() {
		fmt.Println(e.Attempt, e.Fault, e.Status, e.Served, e.Consumed)
	}
	fmt.Println("repeats:", len(s.Repeats()))
	// Output:
	// echo: hello <nil>
	// 1 429 429 false false
	// 2 ok 200 true true
	// repeats: 0
}

// Draw is the fault of one attempt of one request: a pure function of the
// seed, the rates, the request key and the attempt.
func ExampleDraw() {
	rates := faultserver.Rates{NotJSON: 0.5}
	for a := 1; a <= 4; a++ {
		fmt.Print(faultserver.Draw(7, rates, "request-key", a), " ")
	}
	fmt.Println()
	// Output:
	// not_json ok not_json ok
}

// Non-finite vectors go out as NaN and Infinity literals, which a strict
// JSON client rejects.
func ExampleConfig_embed() {
	s := faultserver.New(faultserver.Config{Embed: func(model, text string) []float32 {
		return []float32{1, float32(posInf())}
	}})
	defer s.Close()
	hc := s.Client()
	defer hc.CloseIdleConnections()
	e, _ := openai.NewEmbedder(openai.Config{BaseURL: s.BaseURL(), EmbedModel: "e", HTTPClient: hc})
	_, err := e.Embed(context.Background(), []string{"x"}, llm.KindDocument)
	fmt.Println(errors.Is(err, llm.ErrInvalidOutput))
	// Output:
	// true
}

func posInf() float64 { return math.Inf(1) }
