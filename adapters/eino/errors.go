package eino

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/llm"
)

// statusRe finds an HTTP status in a provider's error text
// ("status code: 429", "HTTP 503", "error, status code: 500, ...").
var statusRe = regexp.MustCompile(`(?i)(?:status(?: ?code)?|http)[ :=]+([1-5][0-9][0-9])\b`)

// mapError makes a provider's error one that llm's retries understand.
// Cancellation passes through unchanged.
func mapError(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: %w: %v", op, cerr, err)
	}
	code := status(err)
	if code == 0 {
		if m := statusRe.FindStringSubmatch(err.Error()); m != nil {
			code, _ = strconv.Atoi(m[1])
		}
	}
	if code != 0 {
		api := &llm.APIError{StatusCode: code, Message: truncate(err.Error())}
		switch {
		case code == 429:
			api.Err = llm.ErrRateLimited
		case code >= 500:
			api.Err = llm.ErrUnavailable
		}
		return fmt.Errorf("%s: %w", op, api)
	}
	low := strings.ToLower(err.Error())
	switch {
	case strings.Contains(low, "rate limit") || strings.Contains(low, "too many requests"):
		return fmt.Errorf("%s: %w: %w", op, llm.ErrRateLimited, err)
	case strings.Contains(low, "connection refused") || strings.Contains(low, "connection reset") ||
		strings.Contains(low, "unexpected eof") || strings.Contains(low, "service unavailable"):
		return fmt.Errorf("%s: %w: %w", op, llm.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// status is the HTTP status an error in err's chain carries: a
// StatusCode() or HTTPStatusCode() method, or an int field StatusCode or
// HTTPStatusCode (go-openai's APIError and RequestError, which Eino's
// OpenAI-protocol components return). 0 when none does.
func status(err error) int {
	for _, e := range chain(err) {
		switch s := e.(type) {
		case interface{ StatusCode() int }:
			return s.StatusCode()
		case interface{ HTTPStatusCode() int }:
			return s.HTTPStatusCode()
		}
		v := reflect.ValueOf(e)
		for v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			continue
		}
		for _, name := range []string{"HTTPStatusCode", "StatusCode"} {
			if f := v.FieldByName(name); f.IsValid() && f.CanInt() && f.Int() >= 100 && f.Int() < 600 {
				return int(f.Int())
			}
		}
	}
	return 0
}

// chain lists err and every error it wraps, depth first.
func chain(err error) []error {
	var out []error
	stack := []error{err}
	for len(stack) > 0 && len(out) < 64 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		out = append(out, e)
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			stack = append(stack, u.Unwrap())
		case interface{ Unwrap() []error }:
			es := u.Unwrap()
			for i := len(es) - 1; i >= 0; i-- {
				stack = append(stack, es[i])
			}
		}
	}
	return out
}

func truncate(s string) string {
	const n = 300
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
