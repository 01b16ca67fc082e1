package faultserver

import (
	"context"
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/llmfunc"

	"go.uber.org/goleak"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

func chatFor(t *testing.T, s *Server, timeout time.Duration) (llm.Model, *http.Client) {
	t.Helper()
	hc := s.Client()
	hc.Timeout = timeout
	c, err := openai.NewChat(openai.Config{BaseURL: s.BaseURL(), Model: "m", HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	return c, hc
}

// Every fault class reaches the client as the error the llm package
// classifies it as, and only the OK answer counts as served and consumed.
func TestFaultClassesAsSeenByTheClient(t *testing.T) {
	defer goleak.VerifyNone(t)
	cases := []struct {
		fault     Fault
		rates     Rates
		temporary bool
		check     func(error) bool
	}{
		{OK, Rates{}, false, func(err error) bool { return err == nil }},
		{RateLimited, Rates{RateLimited: 1}, true, func(err error) bool {
			var api *llm.APIError
			return errors.Is(err, llm.ErrRateLimited) && errors.As(err, &api) && api.RetryAfter == 20*time.Millisecond
		}},
		{Internal, Rates{Internal: 1}, true, func(err error) bool {
			var api *llm.APIError
			return errors.As(err, &api) && api.StatusCode == 500
		}},
		{Unavailable, Rates{Unavailable: 1}, true, func(err error) bool {
			var api *llm.APIError
			return errors.As(err, &api) && api.StatusCode == 503 && api.RetryAfter == 20*time.Millisecond
		}},
		{Reset, Rates{Reset: 1}, true, func(err error) bool { return errors.Is(err, llm.ErrUnavailable) }},
		{Truncated, Rates{Truncated: 1}, true, func(err error) bool { return errors.Is(err, llm.ErrUnavailable) }},
		{NotJSON, Rates{NotJSON: 1}, false, func(err error) bool { return errors.Is(err, llm.ErrInvalidOutput) }},
		{Stall, Rates{Stall: 1}, true, func(err error) bool { return errors.Is(err, llm.ErrUnavailable) }},
	}
	for _, tc := range cases {
		t.Run(tc.fault.String(), func(t *testing.T) {
			s := New(Config{Rates: tc.rates, RetryAfter: 20 * time.Millisecond, Chat: func(*ChatRequest) string { return "hi" }})
			defer s.Close()
			c, hc := chatFor(t, s, 500*time.Millisecond)
			defer hc.CloseIdleConnections()
			for i := 0; i < 2; i++ { // both NotJSON shapes
				resp, err := c.Generate(context.Background(), llmfunc.UserText("question"))
				if !tc.check(err) {
					t.Fatalf("attempt %d: error %v (%T)", i+1, err, err)
				}
				if got := retried(err); err != nil && got != tc.temporary {
					t.Fatalf("retried(%v) = %v", err, got)
				}
				if err == nil && resp.Text != "hi" {
					t.Fatalf("text %q", resp.Text)
				}
			}
			log := s.Log()
			if len(log) != 2 {
				t.Fatalf("%d log entries", len(log))
			}
			for _, e := range log {
				if e.Fault != tc.fault || e.Served != (tc.fault == OK) || e.Consumed != (tc.fault == OK) {
					t.Fatalf("entry %+v", e)
				}
			}
			if log[1].Attempt != 2 || log[0].Key != log[1].Key {
				t.Fatalf("attempts %d, keys %s %s", log[1].Attempt, log[0].Key, log[1].Key)
			}
		})
	}
}

func TestDrawIsDeterministicAndFollowsRates(t *testing.T) {
	r := Rates{RateLimited: 0.1, Internal: 0.1, NotJSON: 0.2}
	counts := map[Fault]int{}
	const n = 20000
	for i := 0; i < n; i++ {
		f := Draw(7, r, "key", i)
		if f != Draw(7, r, "key", i) {
			t.Fatal("not deterministic")
		}
		counts[f]++
	}
	for f, want := range map[Fault]float64{RateLimited: 0.1, Internal: 0.1, NotJSON: 0.2, OK: 0.6, Reset: 0} {
		got := float64(counts[f]) / n
		if math.Abs(got-want) > 0.02 {
			t.Errorf("%v: rate %.3f, want %.2f", f, got, want)
		}
	}
	if Draw(1, r, "key", 3) == Draw(2, r, "key", 3) && Draw(1, r, "key", 4) == Draw(2, r, "key", 4) &&
		Draw(1, r, "key", 5) == Draw(2, r, "key", 5) && Draw(1, r, "key", 6) == Draw(2, r, "key", 6) &&
		Draw(1, r, "k2", 1) == Draw(2, r, "k2", 1) && Draw(1, r, "k3", 1) == Draw(2, r, "k3", 1) {
		t.Error("seed has no effect")
	}
}

// MaxFaultsPerKey bounds the faults one key can get, so a retrying client
// always gets through.
func TestMaxFaultsPerKey(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := New(Config{Rates: Rates{Internal: 1}, MaxFaultsPerKey: 2, Chat: func(*ChatRequest) string { return "hi" }})
	defer s.Close()
	c, hc := chatFor(t, s, 0)
	defer hc.CloseIdleConnections()
	m := llm.Wrap(c, llm.Middleware{Attempts: 4, BaseDelay: time.Millisecond})
	if _, err := m.Generate(context.Background(), llmfunc.UserText("x")); err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c[Internal] != 2 || c[OK] != 1 {
		t.Fatalf("counts %v", c)
	}
}

// Repeats finds a request for an item whose success the client already
// consumed, and Successes counts served answers.
func TestRepeatsAndSuccesses(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := New(Config{Models: []string{"e"}})
	defer s.Close()
	hc := s.Client()
	defer hc.CloseIdleConnections()
	e, err := openai.NewEmbedder(openai.Config{BaseURL: s.BaseURL(), EmbedModel: "e", HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Embed(ctx, []string{"a b", "c d"}, llm.KindDocument); err != nil {
		t.Fatal(err)
	}
	if r := s.Repeats(); len(r) != 0 {
		t.Fatalf("repeats %v", r)
	}
	if _, err := e.Embed(ctx, []string{"c d", "e f"}, llm.KindDocument); err != nil {
		t.Fatal(err)
	}
	r := s.Repeats()
	if len(r) != 1 || r[0].Item != ItemKey("e", "c d") || r[0].First != 0 || r[0].Again != 1 {
		t.Fatalf("repeats %+v", r)
	}
	if n := s.Successes()[ItemKey("e", "c d")]; n != 2 {
		t.Fatalf("successes %d", n)
	}
}

// Non-finite components are written the way Python servers write them, and
// the client rejects them.
func TestNonFiniteVectors(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := New(Config{Embed: func(_, text string) []float32 {
		return []float32{1, float32(math.NaN()), float32(math.Inf(1))}
	}})
	defer s.Close()
	hc := s.Client()
	defer hc.CloseIdleConnections()
	e, err := openai.NewEmbedder(openai.Config{BaseURL: s.BaseURL(), EmbedModel: "e", HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}, llm.KindDocument); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatalf("error %v", err)
	}
}

// A server with an API key refuses requests without it.
func TestAPIKeyRequired(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := New(Config{APIKey: "sk-test"})
	defer s.Close()
	hc := s.Client()
	defer hc.CloseIdleConnections()
	for key, status := range map[string]int{"": 401, "sk-test": 200} {
		c, err := openai.NewChat(openai.Config{BaseURL: s.BaseURL(), Model: "m", APIKey: key, HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Generate(context.Background(), llmfunc.UserText("x"))
		var api *llm.APIError
		if status == 200 && err != nil || status != 200 && !(errors.As(err, &api) && api.StatusCode == status) {
			t.Fatalf("key %q: %v", key, err)
		}
	}
}

// retried reports whether llm.Wrap retries a call that failed with err: the
// retry hook cancels the wait it announces, so nothing sleeps.
func retried(err error) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	asked := false
	fail := llmfunc.Model(func(context.Context, *llm.Request) (*llm.Response, error) { return nil, err })
	m := llm.Wrap(fail, llm.Middleware{Attempts: 2, OnRetry: func(int, error, time.Duration) { asked = true; cancel() }})
	m.Generate(ctx, llmfunc.UserText("x"))
	return asked
}
