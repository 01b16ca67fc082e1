package llm

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Adapters wrap them (or return an *APIError that matches
// them through Is) so that callers can test with errors.Is.
var (
	// ErrRateLimited: the backend refused the call for rate (HTTP 429).
	ErrRateLimited = errors.New("llm: rate limited")
	// ErrContextTooLong: the prompt does not fit the model's context window.
	ErrContextTooLong = errors.New("llm: context too long")
	// ErrTooManyImages: the request carries more images than the backend accepts.
	ErrTooManyImages = errors.New("llm: too many images")
	// ErrInvalidOutput: the backend answered, but not in the expected form
	// (malformed body, wrong number of vectors, NaN in a vector, unparsable JSON).
	ErrInvalidOutput = errors.New("llm: invalid output")
	// ErrDimension: an embedding has the wrong dimension.
	ErrDimension = errors.New("llm: wrong embedding dimension")
)

// APIError is an HTTP-level failure of a backend. It never holds credentials.
type APIError struct {
	StatusCode int
	// RetryAfter is the server's Retry-After, zero when absent.
	RetryAfter time.Duration
	// Message is the server's error message, truncated.
	Message string
	// Err, when set, is a sentinel this failure also matches (ErrRateLimited,
	// ErrContextTooLong, ErrTooManyImages).
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

// Temporary reports whether retrying may succeed (429, 408, 5xx).
func (e *APIError) Temporary() bool {
	return e.StatusCode == 429 || e.StatusCode == 408 || e.StatusCode >= 500
}

// ErrUnavailable marks a transport-level failure: the backend could not be
// reached or dropped the connection (refused, reset, unexpected EOF, a
// per-attempt timeout). Adapters wrap such failures with it; Retry treats it
// as temporary.
var ErrUnavailable = errors.New("llm: backend unavailable")
