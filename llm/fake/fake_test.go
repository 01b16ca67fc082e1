package fake

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
)

func TestModelRulesInOrderAndTimes(t *testing.T) {
	m := &Model{Strict: true}
	m.Rules = []Rule{
		{Contains: "x", Err: llm.ErrRateLimited, Times: 2},
		{Contains: "x", Reply: "ok"},
		{Match: func(r *llm.Request) bool { return r.MaxTokens == 7 }, Reply: "seven"},
	}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, err := m.Generate(ctx, llmfunc.UserText("x")); !errors.Is(err, llm.ErrRateLimited) {
			t.Fatalf("call %d: err = %v, want rate limited", i, err)
		}
	}
	r, err := m.Generate(ctx, llmfunc.UserText("x"))
	if err != nil || r.Text != "ok" {
		t.Fatalf("third call = %v, %v", r, err)
	}
	req := llmfunc.UserText("y")
	req.MaxTokens = 7
	if r, _ := m.Generate(ctx, req); r.Text != "seven" {
		t.Fatalf("func rule: got %q", r.Text)
	}
	if _, err := m.Generate(ctx, llmfunc.UserText("nothing")); !errors.Is(err, errNoRule) {
		t.Fatalf("strict: err = %v", err)
	}
	want := []int{0, 0, 1, 2, -1}
	for i, c := range m.log {
		if c.rule != want[i] {
			t.Errorf("call %d rule %d, want %d", i, c.rule, want[i])
		}
	}
	if calls := m.Calls(); len(calls) != 5 || calls[3] != req {
		t.Fatalf("%d calls recorded", len(calls))
	}
}

func TestModelPromptSkipsImagesKeepsOrder(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{
		{Role: "system", Parts: []llm.Part{{Text: "sys"}}},
		{Role: "user", Parts: []llm.Part{{Text: "a"}, {Image: &llm.Image{Data: []byte{1}, MIME: "image/png"}}, {Text: "b"}}},
	}}
	if got := Prompt(req); got != "sys\na\nb" {
		t.Fatalf("Prompt = %q", got)
	}
	if Prompt(nil) != "" {
		t.Fatal("nil request")
	}
}

func TestModelLatencyHonoursContext(t *testing.T) {
	m := &Model{Latency: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, llmfunc.UserText("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(m.Calls()) != 1 {
		t.Fatal("cancelled call not recorded")
	}
}

func TestModelRespondAndUsage(t *testing.T) {
	m := &Model{}
	m.Rules = append(m.Rules, Rule{Respond: func(_ context.Context, r *llm.Request) (*llm.Response, error) {
		return &llm.Response{Text: Prompt(r) + "!"}, nil
	}})
	r, _ := m.Generate(context.Background(), llmfunc.UserText("hi"))
	if r.Text != "hi!" {
		t.Fatal(r.Text)
	}
	m2 := &Model{Default: "one two"}
	r, _ = m2.Generate(context.Background(), llmfunc.UserText("a b c"))
	if r.Usage.PromptTokens != 3 || r.Usage.CompletionTokens != 2 || r.FinishReason != "stop" {
		t.Fatalf("usage %+v finish %q", r.Usage, r.FinishReason)
	}
}

func TestModelConcurrent(t *testing.T) {
	m := &Model{}
	m.Rules = append(m.Rules, Rule{Contains: "a", Reply: "A"})
	m.Rules[0].Times = 50
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Generate(context.Background(), llmfunc.UserText("a"))
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range m.log {
		if c.rule == 0 {
			n++
		}
	}
	if n != 50 || len(m.Calls()) != 100 {
		t.Fatalf("rule used %d times of 100 calls (%d)", n, len(m.Calls()))
	}
}

func TestEmbedderDeterministicNormalised(t *testing.T) {
	e := &Embedder{Dim: 32}
	texts := []string{"Alpha beta", "alpha, BETA.", "", "!!!", "gamma 42"}
	a, err := e.Embed(context.Background(), texts, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.Embed(context.Background(), texts, llm.KindQuery)
	if len(a) != len(texts) || len(a[0]) != 32 {
		t.Fatalf("%d vectors of %d", len(a), len(a[0]))
	}
	for i := range a {
		var n float64
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("text %d not deterministic across kinds", i)
			}
			n += float64(a[i][j]) * float64(a[i][j])
		}
		empty := texts[i] == "" || texts[i] == "!!!"
		if empty && n != 0 || !empty && math.Abs(n-1) > 1e-5 {
			t.Errorf("text %q: squared norm %v", texts[i], n)
		}
	}
	for j := range a[0] {
		if a[0][j] != a[1][j] {
			t.Fatal("case and punctuation changed the vector")
		}
	}
	if (&Embedder{}).Dimension() != 64 {
		t.Fatal("default dim")
	}
}

func TestEmbedderError(t *testing.T) {
	e := &Embedder{Err: llm.ErrInvalidOutput}
	if _, err := e.Embed(context.Background(), []string{"x"}, llm.KindQuery); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatal(err)
	}
}
