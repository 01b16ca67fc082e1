package fake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/flowreader/flowreader/llm"
)

// errNoRule is returned by a Strict Model when no rule matches a request.
var errNoRule = errors.New("fake: no rule matches the request")

// Rule scripts the Model's answer to matching requests.
type Rule struct {
	// Contains matches requests whose Prompt contains this substring.
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

// Model is a scripted llm.Model (see the package doc). The zero value
// answers every request with an empty text. Configure the exported fields
// before the first call; a Model must not be copied after first use. It is
// safe for concurrent use.
type Model struct {
	// Rules are tried in order.
	Rules []Rule
	// Default is the reply when no rule matches and Strict is false.
	Default string
	// Strict makes an unmatched request fail.
	Strict bool
	// Latency delays every call; a cancelled context ends the wait early
	// with the context's error.
	Latency time.Duration
	// Images is what AcceptsImages reports.
	Images bool
	// PieceLatency delays each piece after the first of a streamed answer
	// (GenerateStream); the first comes after Latency, as a whole answer
	// does.
	PieceLatency time.Duration

	mu   sync.Mutex
	used map[int]int
	log  []call
}

// call is one recorded Generate call and the index of the rule that
// answered it (-1: none).
type call struct {
	req  *llm.Request
	rule int
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

// Generate answers from the first matching rule.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := wait(ctx, m.Latency); err != nil {
		m.record(call{req, -1})
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
		err = fmt.Errorf("%w: %.80q", errNoRule, prompt)
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
	m.record(call{req, idx})
	return resp, err
}

// GenerateStream answers as Generate does and passes the answer's text on
// in pieces: each word with the spaces after it, the first
// after Latency and each later one after PieceLatency. A cancelled context
// ends the stream with the context's error. It implements llm.Streamer.
func (m *Model) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	resp, err := m.Generate(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	for i, p := range pieces(resp.Text) {
		if i > 0 {
			if err := wait(ctx, m.PieceLatency); err != nil {
				return nil, err
			}
		}
		onText(p)
	}
	return resp, nil
}

// pieces splits s where a streamed answer is cut: after each run of
// spaces that follows a word, so that the pieces joined are s.
func pieces(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] != ' ' && s[i-1] == ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
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

func (m *Model) record(c call) {
	m.mu.Lock()
	m.log = append(m.log, c)
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

// Calls returns the requests received so far, in the order their calls
// completed; its length is the number of Generate calls.
func (m *Model) Calls() []*llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*llm.Request, len(m.log))
	for i, c := range m.log {
		out[i] = c.req
	}
	return out
}

// AcceptsImages reports m.Images: it implements llm.ImageAccepter.
func (m *Model) AcceptsImages() bool { return m.Images }

var (
	_ llm.Model         = (*Model)(nil)
	_ llm.ImageAccepter = (*Model)(nil)
	_ llm.Streamer      = (*Model)(nil)
)
