package custombackend_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader/examples/custombackend"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

func TestEmbedderBatchesAndChecks(t *testing.T) {
	c := &custombackend.Client{Dim: 48}
	e := &custombackend.Embedder{Client: c}
	texts := make([]string, 70)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage number %d about turbines", i)
	}
	vecs, err := e.Embed(context.Background(), texts, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 70 || len(vecs[0]) != 48 || e.Dimension() != 48 {
		t.Fatalf("%d vectors of %d", len(vecs), len(vecs[0]))
	}
	if c.Calls() != 3 { // 32 + 32 + 6
		t.Errorf("%d calls for 70 texts, want 3 batches", c.Calls())
	}
	// Order is kept: each vector is the one of its own text.
	one, _ := e.Embed(context.Background(), texts[41:42], llm.KindDocument)
	for i := range one[0] {
		if one[0][i] != vecs[41][i] {
			t.Fatal("vector 41 is not the vector of text 41")
		}
	}
	if e.Name() != "echocorp-embed-48" || e.MaxBatch() != custombackend.MaxBatch {
		t.Errorf("name %q batch %d", e.Name(), e.MaxBatch())
	}
}

func TestErrorsMapToLLMSentinels(t *testing.T) {
	ctx := context.Background()
	busy := &custombackend.Client{Busy: 1, BusyWait: 3 * time.Second}
	_, err := (&custombackend.Embedder{Client: busy}).Embed(ctx, []string{"x"}, llm.KindQuery)
	var api *llm.APIError
	if !errors.Is(err, llm.ErrRateLimited) || !errors.As(err, &api) || api.RetryAfter != 3*time.Second || !retried(err) {
		t.Errorf("busy: %v", err)
	}
	m := &custombackend.Model{Client: &custombackend.Client{}}
	req := userText(strings.Repeat("word ", custombackend.MaxWords+1))
	if _, err := m.Generate(ctx, req); !errors.Is(err, llm.ErrContextTooLong) || retried(err) {
		t.Errorf("too long: %v", err)
	}
	req = userText("look")
	for range custombackend.MaxPictures + 1 {
		req.Messages[0].Parts = append(req.Messages[0].Parts, llm.Part{Image: &llm.Image{Data: []byte{0x89, 'P', 'N', 'G'}, MIME: "image/png"}})
	}
	if _, err := m.Generate(ctx, req); !errors.Is(err, llm.ErrContextTooLong) {
		t.Errorf("pictures: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Generate(cctx, userText("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// llm.Wrap understands the mapped errors: two "busy" answers are waited
// out (with the vendor's wait as Retry-After) and the third call succeeds.
func TestRetryOverBusyBackend(t *testing.T) {
	c := &custombackend.Client{Busy: 2, BusyWait: 2 * time.Millisecond}
	var waits []time.Duration
	m := llm.Wrap(&custombackend.Model{Client: c}, llm.Middleware{
		Attempts: 4,
		OnRetry:  func(_ int, _ error, d time.Duration) { waits = append(waits, d) },
	})
	resp, err := m.Generate(context.Background(), userText("first line\nsecond line"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "second line" || c.Calls() != 3 {
		t.Errorf("text %q after %d calls", resp.Text, c.Calls())
	}
	if len(waits) != 2 || waits[0] != 2*time.Millisecond {
		t.Errorf("waits %v, want the vendor's 2ms twice", waits)
	}
	if n, ok := m.(llm.Namer); !ok || n.Name() != "echocorp-echo-1" {
		t.Error("Wrap hid the model's name")
	}
}

func TestModelTranslatesRequest(t *testing.T) {
	m := &custombackend.Model{Client: &custombackend.Client{}}
	req := &llm.Request{
		Messages: []llm.Message{
			{Role: "system", Parts: []llm.Part{{Text: "You are terse."}}},
			{Role: "user", Parts: []llm.Part{{Text: "Table:"}, {Image: &llm.Image{Data: []byte{1}, MIME: "image/png"}}, {Text: "What is the output?"}}},
		},
		JSONSchema: []byte(`{"type":"object"}`),
	}
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"echo": "What is the output?"}` || resp.FinishReason != "stop" || resp.Usage.PromptTokens == 0 {
		t.Errorf("%+v", resp)
	}
}

// retried reports whether llm.Wrap retries a call that failed with err: the
// retry hook cancels the wait it announces, so nothing sleeps.
func retried(err error) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	asked := false
	fail := &fake.Model{Rules: []fake.Rule{{Err: err}}}
	m := llm.Wrap(fail, llm.Middleware{Attempts: 2, OnRetry: func(int, error, time.Duration) { asked = true; cancel() }})
	m.Generate(ctx, userText("x"))
	return asked
}

// userText is a single-message, text-only request.
func userText(prompt string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: prompt}}}}}
}
