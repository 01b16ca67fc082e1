// Package custombackend shows how to plug a backend flowreader does not
// know into it: the SDK of EchoCorp, a made-up vendor (echocorp.go, which
// stands for any vendor library, gRPC stub or in-process engine), and the two
// small adapters that make it an llm.Embedder and an llm.Model
// (adapter.go). The tests show how to unit-test retrieval over your own
// backend with package llm/fake: no server, deterministic, fast.
//
// An adapter has four jobs: translate requests (flowreader's messages with
// text and image parts, JSON schema, Kind of embedded text) into the
// vendor's; translate answers back, checking them (count, finite values);
// translate the vendor's errors into llm's sentinels and *llm.APIError so
// that llm.Wrap knows what is worth retrying; and report optional
// capabilities (llm.Namer for graph headers and cache keys, llm.BatchSizer,
// llm.ImageAccepter).
package custombackend

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Client is EchoCorp's SDK. It needs no network: vectors are feature-hashed
// words and word pairs, and the "model" echoes the last line of the
// conversation, which is enough to show every step of an adapter. It is
// safe for concurrent use.
type Client struct {
	// Dim is the vector length; 0 means 96.
	Dim int
	// Busy makes the next Busy calls fail with a "busy" error asking the
	// caller to wait BusyWait (EchoCorp's rate limiting).
	Busy     int
	BusyWait time.Duration

	mu    sync.Mutex
	calls int
}

// Error is EchoCorp's error type.
type Error struct {
	// Code is "busy", "too_long", "too_many_pictures" or "bad_request".
	Code string
	// Wait is how long to wait before retrying ("busy" only).
	Wait time.Duration
	Msg  string
}

func (e *Error) Error() string { return "echocorp: " + e.Code + ": " + e.Msg }

// EchoCorp's limits.
const (
	MaxBatch    = 32
	MaxPictures = 4
	MaxWords    = 4000
)

// Turn is one turn of an EchoCorp conversation.
type Turn struct {
	Speaker string // "human" or "bot"
	Text    string
}

// Prompt is an EchoCorp completion request.
type Prompt struct {
	Preamble string
	Turns    []Turn
	Pictures [][]byte
	// JSON asks for a JSON object as output.
	JSON bool
}

// Completion is EchoCorp's answer.
type Completion struct {
	Text                string
	WordsIn, WordsOut   int
	Stopped, Overflowed bool
}

func (c *Client) dim() int {
	if c.Dim <= 0 {
		return 96
	}
	return c.Dim
}

// Calls returns the number of calls made so far (failed ones included).
func (c *Client) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// admit counts a call and fails it while the client is busy.
func (c *Client) admit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.Busy > 0 {
		c.Busy--
		return &Error{Code: "busy", Wait: c.BusyWait, Msg: "try again later"}
	}
	return nil
}

// Vectorize embeds texts for purpose "index" (passages) or "search"
// (queries). At most MaxBatch texts per call.
func (c *Client) Vectorize(ctx context.Context, texts []string, purpose string) ([][]float64, error) {
	if err := c.admit(ctx); err != nil {
		return nil, err
	}
	if purpose != "index" && purpose != "search" {
		return nil, &Error{Code: "bad_request", Msg: "purpose must be index or search"}
	}
	if len(texts) > MaxBatch {
		return nil, &Error{Code: "bad_request", Msg: fmt.Sprintf("%d texts, at most %d", len(texts), MaxBatch)}
	}
	out := make([][]float64, len(texts))
	for i, t := range texts {
		v := make([]float64, c.dim())
		words := wordsOf(t)
		for j, w := range words {
			add(v, w, 1)
			if j > 0 {
				add(v, words[j-1]+" "+w, 0.5)
			}
		}
		out[i] = v
	}
	return out, nil
}

// add adds weight to the bucket of feature f, with a hashed sign so that
// collisions cancel on average.
func add(v []float64, f string, weight float64) {
	h := fnv.New64a()
	h.Write([]byte(f))
	x := h.Sum64()
	if x>>63 == 1 {
		weight = -weight
	}
	v[x%uint64(len(v))] += weight
}

// wordsOf lower-cases s and splits it into words, dropping a plural "s" so
// that "turbines" matches "turbine".
func wordsOf(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.'
	})
	out := f[:0]
	for _, w := range f {
		w = strings.Trim(w, ".")
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Complete answers a prompt by echoing the last non-empty line of the last
// human turn (as a JSON object {"echo": ...} when JSON is set).
func (c *Client) Complete(ctx context.Context, p Prompt) (Completion, error) {
	if err := c.admit(ctx); err != nil {
		return Completion{}, err
	}
	if len(p.Pictures) > MaxPictures {
		return Completion{}, &Error{Code: "too_many_pictures", Msg: fmt.Sprintf("%d pictures, at most %d", len(p.Pictures), MaxPictures)}
	}
	words := len(strings.Fields(p.Preamble))
	last := ""
	for _, t := range p.Turns {
		words += len(strings.Fields(t.Text))
		if t.Speaker == "human" {
			last = t.Text
		}
	}
	if words > MaxWords {
		return Completion{}, &Error{Code: "too_long", Msg: fmt.Sprintf("%d words, at most %d", words, MaxWords)}
	}
	line := ""
	for _, l := range strings.Split(last, "\n") {
		if strings.TrimSpace(l) != "" {
			line = strings.TrimSpace(l)
		}
	}
	text := line
	if p.JSON {
		text = fmt.Sprintf(`{"echo": %q}`, line)
	}
	return Completion{Text: text, WordsIn: words, WordsOut: len(strings.Fields(text)), Stopped: true}, nil
}
