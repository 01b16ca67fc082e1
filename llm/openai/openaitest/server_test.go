package openaitest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
	"github.com/flowreader/flowreader/llm/openai/openaitest"
)

func newServer(t *testing.T, cfg openaitest.Config) *openaitest.Server {
	t.Helper()
	s, err := openaitest.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// A user's reliability test: embeddings through the fault server with
// retries succeed despite the transient fault classes (a 200 that is not
// JSON is llm.ErrInvalidOutput, which is not retried).
func TestEmbedderThroughFaults(t *testing.T) {
	s := newServer(t, openaitest.Config{
		Seed: 3, RateLimited: 0.1, Internal: 0.1, Unavailable: 0.1, Reset: 0.1, Truncated: 0.1,
		MaxFaultsPerKey: 2, RetryAfter: time.Millisecond, Dim: 8,
	})
	e, err := openai.NewEmbedder(openai.Config{BaseURL: s.URL, EmbedModel: "e"})
	if err != nil {
		t.Fatal(err)
	}
	w := llm.WrapEmbedder(e, llm.Middleware{Attempts: 4, BaseDelay: time.Millisecond})
	for i := 0; i < 20; i++ {
		vs, err := w.Embed(context.Background(), []string{"text " + strings.Repeat("x", i)}, llm.KindDocument)
		if err != nil || len(vs) != 1 || len(vs[0]) != 8 {
			t.Fatalf("embed %d: %v", i, err)
		}
	}
	c := s.Counts()
	faults := 0
	for k, n := range c {
		if k != "ok" {
			faults += n
		}
	}
	if c["ok"] != 20 || faults == 0 {
		t.Fatalf("counts %v: want 20 ok and some faults", c)
	}
}

func TestAPIKeyAndStall(t *testing.T) {
	s := newServer(t, openaitest.Config{APIKey: "k", Stall: 1, MaxStall: time.Minute})
	chat, err := openai.NewChat(openai.Config{BaseURL: s.URL, Model: "m", APIKey: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	var apiErr *llm.APIError
	if _, err := chat.Generate(context.Background(), llmfunc.UserText("x")); !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Fatalf("wrong key: %v", err)
	}
	chat, _ = openai.NewChat(openai.Config{BaseURL: s.URL, Model: "m", APIKey: "k"})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := chat.Generate(ctx, llmfunc.UserText("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stall: %v", err)
	}
	s.Close()
	s.Close()
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []openaitest.Config{{RateLimited: 0.6, Reset: 0.6}, {Internal: -0.1}, {Stall: 2}} {
		if s, err := openaitest.NewServer(c); err == nil || !strings.Contains(err.Error(), "invalid configuration") || s != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// A server that rate-limits the first attempt of every request: the
// middleware's retry honours Retry-After and the second attempt succeeds.
func ExampleNewServer() {
	s, err := openaitest.NewServer(openaitest.Config{
		RateLimited:     1,
		MaxFaultsPerKey: 1,
		RetryAfter:      10 * time.Millisecond,
		Chat:            func(prompt string) string { return "echo: " + prompt },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close() // in a test: t.Cleanup(s.Close)
	chat, err := openai.NewChat(openai.Config{BaseURL: s.URL, Model: "m"})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := llm.Wrap(chat, llm.Middleware{Attempts: 3})
	resp, err := m.Generate(context.Background(), llmfunc.UserText("hello"))
	fmt.Println(resp.Text, err)
	fmt.Println(s.Counts()["429"], s.Counts()["ok"])
	// Output:
	// echo: hello <nil>
	// 1 1
}
