package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/llm"
)

// transport sends one JSON request and returns the body of a 2xx answer.
type transport struct {
	client  *http.Client
	key     string
	maxBody int64
}

// do performs method on url with body (nil for none). Failures are returned
// with the key redacted.
func (t transport) do(ctx context.Context, method, url string, body any) ([]byte, error) {
	b, err := t.doRaw(ctx, method, url, body)
	if err != nil {
		return nil, t.redactErr(err)
	}
	return b, nil
}

func (t transport) doRaw(ctx context.Context, method, url string, body any) ([]byte, error) {
	resp, err := t.send(ctx, method, url, body, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return t.read(ctx, resp.Body)
}

// read reads a 2xx answer's body, at most maxBody bytes.
func (t transport) read(ctx context.Context, body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, t.maxBody+1))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("openai: reading response: %w", cerr)
		}
		return nil, fmt.Errorf("%w: reading response: %v", llm.ErrUnavailable, err)
	}
	if int64(len(data)) > t.maxBody {
		return nil, fmt.Errorf("%w: response larger than %d bytes", llm.ErrInvalidOutput, t.maxBody)
	}
	return data, nil
}

// send performs method on url with body (nil for none), asking for the
// media type accept, and returns a 2xx answer with its body unread (the
// caller closes it). Any other status is read and returned as an
// *llm.APIError; the key is not yet redacted.
func (t transport) send(ctx context.Context, method, url string, body any, accept string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("openai: encoding request: %w", err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	if t.key != "" {
		req.Header.Set("Authorization", "Bearer "+t.key)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("openai: %s %s: %w", method, termsafe.URL(url), cerr)
		}
		return nil, fmt.Errorf("%w: %s %s: %v", llm.ErrUnavailable, method, termsafe.URL(url), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBody+1))
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("openai: reading response: %w", cerr)
			}
			return nil, fmt.Errorf("%w: reading response: %v", llm.ErrUnavailable, err)
		}
		return nil, parseError(resp.StatusCode, resp.Header.Get("Retry-After"), data, time.Now(), t.key)
	}
	return resp, nil
}

// redactErr removes the key from err's message (see redactMessage). An
// *llm.APIError keeps its type (with a redacted message) so that errors.As
// still works.
func (t transport) redactErr(err error) error {
	if t.key == "" {
		return err
	}
	msg := err.Error()
	red := redactMessage(msg, t.key)
	if red == msg {
		return err
	}
	var api *llm.APIError
	if errors.As(err, &api) && err == error(api) {
		c := *api
		c.Message = redactMessage(c.Message, t.key)
		return &c
	}
	return &redacted{msg: red, err: err}
}

// redacted keeps the wrapped chain for errors.Is while hiding the message.
type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// minFragment is the shortest run of a key's characters that redaction
// removes: a server may echo the key cut (its own truncation, a header of
// limited length), so the whole key is not the only thing to look for.
// Seven characters of a key of 40 or more random ones tell an attacker
// nothing useful; eight or more are removed wherever they appear.
const minFragment = 8

// redactMessage replaces, in s, every run of minFragment or more
// consecutive characters of key (the whole key when it is shorter) by
// "[REDACTED]". Redaction comes before any truncation: cutting a message
// first could leave part of a key that no longer matches the whole. Every
// window of minFragment bytes of s that is a substring of key is marked,
// and each run of marked bytes is replaced: a run of the key of any length
// is covered by its windows.
func redactMessage(s, key string) string {
	if key == "" || s == "" {
		return s
	}
	w := min(minFragment, len(key))
	if len(s) < w {
		return s
	}
	grams := make(map[string]bool, len(key)-w+1)
	for i := 0; i+w <= len(key); i++ {
		grams[key[i:i+w]] = true
	}
	var mark []bool
	for i := 0; i+w <= len(s); i++ {
		if grams[s[i:i+w]] {
			if mark == nil {
				mark = make([]bool, len(s))
			}
			for j := i; j < i+w; j++ {
				mark[j] = true
			}
		}
	}
	if mark == nil {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !mark[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		for i < len(s) && mark[i] {
			i++
		}
		b.WriteString("[REDACTED]")
	}
	return b.String()
}

// truncate cuts s to n bytes on a rune boundary, marking the cut with "…".
func truncate(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// errorBody covers the error shapes of OpenAI, vLLM (both generations) and
// FastAPI-based servers.
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Detail  json.RawMessage `json:"detail"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

var (
	reContext = regexp.MustCompile(`(?i)(maximum context length|context length|maximum model length|max_model_len|context_length_exceeded|too many tokens|prompt is too long|exceeds the model)`)
	reImages  = regexp.MustCompile(`(?i)(at most \d+ image|too many images|limit_mm_per_prompt|more than \d+ image|image.{0,40}exceed|exceed.{0,40}image)`)
)

const maxMessage = 512

// parseError turns a non-2xx answer into an *llm.APIError, its message
// redacted of key and then cut to maxMessage bytes.
func parseError(status int, retryAfter string, body []byte, now time.Time, key string) *llm.APIError {
	e := &llm.APIError{StatusCode: status, RetryAfter: parseRetryAfter(retryAfter, now)}
	var eb errorBody
	var code string
	if json.Unmarshal(body, &eb) == nil {
		var obj errorObject
		var s string
		switch {
		case len(eb.Error) > 0 && json.Unmarshal(eb.Error, &obj) == nil && obj.Message != "":
			e.Message, code = obj.Message, rawString(obj.Code)
			if obj.Type != "" {
				code += " " + obj.Type
			}
		case len(eb.Error) > 0 && json.Unmarshal(eb.Error, &s) == nil:
			e.Message = s
		case eb.Message != "":
			e.Message, code = eb.Message, rawString(eb.Code)+" "+eb.Type
		case len(eb.Detail) > 0:
			if json.Unmarshal(eb.Detail, &s) == nil {
				e.Message = s
			} else {
				e.Message = string(eb.Detail)
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
	}
	e.Message = truncate(redactMessage(e.Message, key), maxMessage)
	switch {
	case status == http.StatusTooManyRequests:
		e.Err = llm.ErrRateLimited
	case reContext.MatchString(e.Message) || reImages.MatchString(e.Message) || strings.Contains(code, "context_length_exceeded"):
		e.Err = llm.ErrContextTooLong
	}
	return e
}

// rawString renders a JSON code that may be a number or a string.
func rawString(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return string(r)
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 86400 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
