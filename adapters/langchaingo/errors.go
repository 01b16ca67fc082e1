package langchaingo

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/llm"
	"github.com/tmc/langchaingo/llms"
)

// statusRe finds an HTTP status in a provider's error text: LangChainGo's
// OpenAI client writes "API returned unexpected status code: 429: ...", other
// clients "status 503" or "HTTP 500".
var statusRe = regexp.MustCompile(`(?i)(?:status(?: code)?|http)[ :=]+([1-5][0-9][0-9])\b`)

// mapError makes a LangChainGo error one that llm's retries understand.
// Cancellation passes through unchanged; when ctx is done, the error wraps
// ctx.Err() (LangChainGo's OpenAI client replaces it by a text of its own).
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
	var le *llms.Error
	if errors.As(err, &le) {
		switch le.Code {
		case llms.ErrCodeRateLimit:
			return fmt.Errorf("%s: %w: %w", op, llm.ErrRateLimited, err)
		case llms.ErrCodeProviderUnavailable, llms.ErrCodeTimeout:
			return fmt.Errorf("%s: %w: %w", op, llm.ErrUnavailable, err)
		case llms.ErrCodeTokenLimit:
			return fmt.Errorf("%s: %w: %w", op, llm.ErrContextTooLong, err)
		}
	}
	msg := err.Error()
	if m := statusRe.FindStringSubmatch(msg); m != nil {
		code, _ := strconv.Atoi(m[1])
		api := &llm.APIError{StatusCode: code, Message: truncate(msg)}
		switch {
		case code == 429:
			api.Err = llm.ErrRateLimited
		case code >= 500:
			api.Err = llm.ErrUnavailable
		}
		return fmt.Errorf("%s: %w", op, api)
	}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "rate limit") || strings.Contains(low, "too many requests"):
		return fmt.Errorf("%s: %w: %w", op, llm.ErrRateLimited, err)
	case strings.Contains(low, "connection refused") || strings.Contains(low, "connection reset") ||
		strings.Contains(low, "unexpected eof") || strings.Contains(low, "service unavailable") ||
		// The OpenAI client's texts for any net.Error and for an HTTP
		// client timeout with the context still live.
		strings.Contains(low, "network error") || strings.Contains(low, "network operation exceeded timeout"):
		return fmt.Errorf("%s: %w: %w", op, llm.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

func truncate(s string) string {
	const n = 300
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
