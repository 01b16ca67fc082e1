package llm

import (
	"errors"
	"fmt"
	"time"

	"github.com/flowreader/flowreader/internal/llmutil"
)

// Sentinel errors. Adapters wrap them (or return an *APIError that matches
// them through Unwrap) so that callers can test with errors.Is.
var (
	// ErrRateLimited: the backend refused the call for rate (HTTP 429).
	// Wrap retries it.
	ErrRateLimited = errors.New("llm: rate limited")
	// ErrUnavailable: the backend could not be reached or dropped the
	// connection (refused, reset, unexpected EOF, a per-attempt timeout).
	// Wrap retries it.
	ErrUnavailable = errors.New("llm: backend unavailable")
	// ErrContextTooLong: the request exceeds what the model takes in one
	// prompt, its context window or its number of images. Retrying cannot
	// help; a shorter request can.
	ErrContextTooLong = errors.New("llm: context too long")
	// ErrInvalidOutput: the backend answered, but not in the expected form
	// (malformed body, wrong number of vectors, a vector of the wrong length
	// or with a NaN, unparsable JSON).
	ErrInvalidOutput = llmutil.ErrInvalidOutput
)

// APIError is an HTTP-level failure of a backend. It never holds credentials.
// Wrap retries status 408, 429 and 5xx.
type APIError struct {
	StatusCode int
	// RetryAfter is the server's Retry-After, zero when absent.
	RetryAfter time.Duration
	// Message is the server's error message, truncated.
	Message string
	// Err, when set, is a sentinel this failure also matches
	// (ErrRateLimited, ErrContextTooLong).
	Err error
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("llm: HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("llm: HTTP %d: %s", e.StatusCode, e.Message)
}

// Unwrap returns the sentinel the error matches, if any.
func (e *APIError) Unwrap() error { return e.Err }
