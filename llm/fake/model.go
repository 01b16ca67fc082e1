package fake

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/flowreader/flowreader/llm"
)

// ErrNoRule is returned by a Strict Model when no rule matches a request.
var ErrNoRule = errors.New("fake: no rule matches the request")

// Rule scripts the Model's answer to matching requests.
type Rule struct {
	// Contains matches requests whose prompt text contains this substring.
	// Empty matches every request (unless Match is set).
	Contains string
	// Match, when set, must also return true for the rule to apply.
	Match func(req *llm.Request) bool
	// Reply is the response text.
	Reply string
	// Err, when set, is returned instead of a response (for example an
	// *llm.APIError with StatusCode 429 to exercise retries).
	Err error
	// Respond, when set, computes the answer instead of Reply and Err.
	Respond func(ctx context.Context, req *llm.Request) (*llm.Response, error)
	// Times caps how often the rule applies; 0 means without limit.
	Times int
}

// Call is one recorded Generate call.
type Call struct {
	Request  *llm.Request
	Prompt   string // text of all parts, as matched by rules
	Rule     int    // index of the rule that answered; -1 for Default
	Response *llm.Response
	Err      error
}

// Model is a scripted llm.Model. The zero value answers every request with an
// empty text. Configure the exported fields before the first call; a Model
// must not be copied after first use.
type Model struct {
	// Rules are tried in order.
	Rules []Rule
	// Default is the reply when no rule matches and Strict is false.
	Default string
	// Strict makes an unmatched request fail with ErrNoRule.
	Strict bool
	// Latency delays every call; a cancelled context ends the wait early
	// with the context's error.
	Latency time.Duration
	// Images is what AcceptsImages reports.
	Images bool
	// ModelName is what Name reports; empty means "fake".
	ModelName string

	mu    sync.Mutex
	used  map[int]int
	calls []Call
}

// On appends a rule answering requests that contain substr with reply, and
// returns m for chaining.
func (m *Model) On(substr, reply string) *Model {
	m.Rules = append(m.Rules, Rule{Contains: substr, Reply: reply})
	return m
}

// OnError appends a rule failing requests that contain substr with err, at
// most times times (0 = always), and returns m for chaining.
func (m *Model) OnError(substr string, err error, times int) *Model {
	m.Rules = append(m.Rules, Rule{Contains: substr, Err: err, Times: times})
	return m
}

// Prompt returns the text of every text part of req, messages in order,
// joined by newlines. Rules match against it.
func Prompt(req *llm.Request) string {
	if req == nil {
		return ""
	}
	var b strings.Builder
	for _, msg := range req.Messages {
		for _, p := range msg.Parts {
			if p.Image != nil {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Generate answers from the first matching rule. It implements llm.Model.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if m.Latency > 0 {
		t := time.NewTimer(m.Latency)
		select {
		case <-ctx.Done():
			t.Stop()
			err := ctx.Err()
			m.record(Call{Request: req, Prompt: Prompt(req), Rule: -1, Err: err})
			return nil, err
		case <-t.C:
		}
	} else if err := ctx.Err(); err != nil {
		m.record(Call{Request: req, Prompt: Prompt(req), Rule: -1, Err: err})
		return nil, err
	}
	prompt := Prompt(req)
	idx := m.pick(req, prompt)
	var (
		resp *llm.Response
		err  error
	)
	switch {
	case idx < 0 && m.Strict:
		err = ErrNoRule
	case idx < 0:
		resp = reply(prompt, m.Default)
	default:
		r := m.Rules[idx]
		switch {
		case r.Respond != nil:
			resp, err = r.Respond(ctx, req)
		case r.Err != nil:
			err = r.Err
		default:
			resp = reply(prompt, r.Reply)
		}
	}
	m.record(Call{Request: req, Prompt: prompt, Rule: idx, Response: resp, Err: err})
	return resp, err
}

// pick returns the index of the first applicable rule and counts its use.
func (m *Model) pick(req *llm.Request, prompt string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range m.Rules {
		if r.Times > 0 && m.used[i] >= r.Times {
			continue
		}
		if r.Contains != "" && !strings.Contains(prompt, r.Contains) {
			continue
		}
		if r.Match != nil && !r.Match(req) {
			continue
		}
		if m.used == nil {
			m.used = make(map[int]int)
		}
		m.used[i]++
		return i
	}
	return -1
}

func (m *Model) record(c Call) {
	m.mu.Lock()
	m.calls = append(m.calls, c)
	m.mu.Unlock()
}

// reply builds a response whose token counts are whitespace word counts, so
// that code summing usage has something non-trivial to sum.
func reply(prompt, text string) *llm.Response {
	return &llm.Response{
		Text:         text,
		FinishReason: "stop",
		Usage: llm.Usage{
			PromptTokens:     len(strings.Fields(prompt)),
			CompletionTokens: len(strings.Fields(text)),
		},
	}
}

// Calls returns a copy of the call log, in the order calls completed.
func (m *Model) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Call(nil), m.calls...)
}

// CallCount returns the number of Generate calls so far.
func (m *Model) CallCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

// Reset clears the call log and the per-rule use counts.
func (m *Model) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = nil
	m.used = nil
}

// AcceptsImages reports m.Images. It implements llm.ImageAccepter.
func (m *Model) AcceptsImages() bool { return m.Images }

// Name reports m.ModelName, or "fake". It implements llm.Namer.
func (m *Model) Name() string {
	if m.ModelName == "" {
		return "fake"
	}
	return m.ModelName
}

var (
	_ llm.Model         = (*Model)(nil)
	_ llm.ImageAccepter = (*Model)(nil)
	_ llm.Namer         = (*Model)(nil)
)
