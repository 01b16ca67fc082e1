// Package openaitest provides a fault-injecting OpenAI-compatible server for
// testing clients of package openai (and of any OpenAI-compatible
// endpoint), as net/http/httptest provides servers for HTTP clients.
//
// [NewServer] serves POST /v1/chat/completions and /v1/embeddings like a
// vLLM server, except that a seeded fraction of requests fail as real
// deployments do: 429 and 503 with Retry-After, 500, a TCP reset, a
// truncated body, a 200 that is not JSON, a stall. Which request fails is a
// pure function of the seed, the request body and its attempt number, never
// of timing, so a failing run replays exactly.
package openaitest

import (
	"fmt"
	"time"

	"github.com/flowreader/flowreader/internal/faultserver"
)

// Config configures a [Server]. The zero value serves every request with
// no fault, an empty chat answer and 16-dimensional hashing embeddings.
type Config struct {
	// Seed seeds the fault draws.
	Seed uint64
	// The probability of each fault class per request; their sum must not
	// exceed 1, the rest is the probability of a normal answer.
	// RateLimited is 429 and Unavailable 503, both with Retry-After;
	// Internal is 500; Reset closes the connection with a TCP RST;
	// Truncated sends fewer bytes than Content-Length promises; NotJSON is a
	// 200 whose body is an HTML page or cut-off JSON; Stall answers nothing
	// until the client gives up or MaxStall passes (then 504).
	RateLimited, Internal, Unavailable, Reset, Truncated, NotJSON, Stall float64
	// MaxFaultsPerKey, when positive, serves a request normally after that
	// many faults for the same body, which bounds how long a client that
	// retries is kept from progressing.
	MaxFaultsPerKey int
	// RetryAfter is sent with 429 and 503; 0 means 1 s. MaxStall bounds a
	// stall; 0 means 30 s.
	RetryAfter, MaxStall time.Duration
	// APIKey, when set, is required as "Authorization: Bearer <APIKey>";
	// other requests get 401.
	APIKey string
	// Chat computes the answer to a chat request from its prompt (the text
	// of every message, joined by newlines); nil answers "".
	Chat func(prompt string) string
	// Embed computes the vector of one input text; nil is a deterministic
	// hashing embedding of Dim components (0 means 16).
	Embed func(text string) []float32
	Dim   int
}

// Server is a running fault-injecting OpenAI-compatible server on the
// loopback interface. Close it when done (t.Cleanup(s.Close)).
type Server struct {
	// URL is the base URL to give an OpenAI-compatible client (its
	// ".../v1"), for example openai.Config.BaseURL. Any http.Client
	// reaches it; a stall ends when the request's context does.
	URL string

	s *faultserver.Server
}

// NewServer starts a server. Its only error is an invalid Config: a fault
// rate outside [0, 1], or rates that sum to more than 1.
func NewServer(cfg Config) (*Server, error) {
	r := faultserver.Rates{
		RateLimited: cfg.RateLimited, Internal: cfg.Internal, Unavailable: cfg.Unavailable,
		Reset: cfg.Reset, Truncated: cfg.Truncated, NotJSON: cfg.NotJSON, Stall: cfg.Stall,
	}
	for _, p := range []float64{r.RateLimited, r.Internal, r.Unavailable, r.Reset, r.Truncated, r.NotJSON, r.Stall} {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("openaitest: invalid configuration: fault rate %v not in [0, 1]", p)
		}
	}
	if sum := r.RateLimited + r.Internal + r.Unavailable + r.Reset + r.Truncated + r.NotJSON + r.Stall; sum > 1+1e-9 {
		return nil, fmt.Errorf("openaitest: invalid configuration: fault rates sum to %v, more than 1", sum)
	}
	fc := faultserver.Config{
		Seed: cfg.Seed, Rates: r, MaxFaultsPerKey: cfg.MaxFaultsPerKey, RetryAfter: cfg.RetryAfter,
		MaxStall: cfg.MaxStall, APIKey: cfg.APIKey, Dim: cfg.Dim,
	}
	if cfg.Chat != nil {
		fc.Chat = func(r *faultserver.ChatRequest) string { return cfg.Chat(r.Prompt()) }
	}
	if cfg.Embed != nil {
		fc.Embed = func(_, text string) []float32 { return cfg.Embed(text) }
	}
	s := faultserver.New(fc)
	return &Server{URL: s.BaseURL(), s: s}, nil
}

// Counts returns how many requests got each outcome, by name: "ok", "429",
// "500", "503", "reset", "truncated", "not_json", "stall".
func (s *Server) Counts() map[string]int {
	out := map[string]int{}
	for f, n := range s.s.Counts() {
		out[f.String()] = n
	}
	return out
}

// Close stops the server: stalled requests end at once, then it waits for
// every handler. It may be called more than once.
func (s *Server) Close() { s.s.Close() }
