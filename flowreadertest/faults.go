package flowreadertest

import (
	"net/http"
	"time"

	"github.com/flowreader/flowreader/internal/faultserver"
)

// FaultConfig configures a [FaultServer]. The zero value serves every
// request with no fault, an empty chat answer and 16-dimensional hashing
// embeddings.
type FaultConfig struct {
	// Seed seeds the fault draws (see the package doc).
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

// FaultServer is a running fault-injecting OpenAI-compatible server (see
// the package doc). Make it with [NewFaultServer].
type FaultServer struct {
	s *faultserver.Server
}

// NewFaultServer starts a server. When t has a Cleanup method (testing.TB
// has), Close is registered there; otherwise call Close.
func NewFaultServer(t TB, cfg FaultConfig) *FaultServer {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	fc := faultserver.Config{
		Seed: cfg.Seed,
		Rates: faultserver.Rates{
			RateLimited: cfg.RateLimited, Internal: cfg.Internal, Unavailable: cfg.Unavailable,
			Reset: cfg.Reset, Truncated: cfg.Truncated, NotJSON: cfg.NotJSON, Stall: cfg.Stall,
		},
		MaxFaultsPerKey: cfg.MaxFaultsPerKey,
		RetryAfter:      cfg.RetryAfter,
		MaxStall:        cfg.MaxStall,
		APIKey:          cfg.APIKey,
		Dim:             cfg.Dim,
	}
	if r := fc.Rates; r.RateLimited+r.Internal+r.Unavailable+r.Reset+r.Truncated+r.NotJSON+r.Stall > 1+1e-9 {
		fatalf(t, "flowreadertest: NewFaultServer: fault rates sum to more than 1")
		return nil
	}
	if cfg.Chat != nil {
		fc.Chat = func(r *faultserver.ChatRequest) string { return cfg.Chat(r.Prompt()) }
	}
	if cfg.Embed != nil {
		fc.Embed = func(_, text string) []float32 { return cfg.Embed(text) }
	}
	s := &FaultServer{s: faultserver.New(fc)}
	if c, ok := t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(s.Close)
	}
	return s
}

// URL is the base URL to give an OpenAI-compatible client (its ".../v1"),
// for example openai.Config.BaseURL.
func (s *FaultServer) URL() string { return s.s.BaseURL() }

// Client returns an http.Client for the server (openai.Config.HTTPClient).
// It has no timeout of its own: stalls end when the request's context does.
func (s *FaultServer) Client() *http.Client { return s.s.Client() }

// Counts returns how many requests got each outcome, by name: "ok", "429",
// "500", "503", "reset", "truncated", "not_json", "stall".
func (s *FaultServer) Counts() map[string]int {
	out := map[string]int{}
	for f, n := range s.s.Counts() {
		out[f.String()] = n
	}
	return out
}

// Close stops the server: stalled requests end at once, then it waits for
// every handler. It may be called more than once.
func (s *FaultServer) Close() { s.s.Close() }
