package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/flowreader/flowreader/llm"
)

// GenerateStream sends req with "stream": true and
// "stream_options": {"include_usage": true}, passes each piece of the first
// choice's text on as its event arrives, and returns the whole answer with
// the finish reason and the usage of the last events. It implements
// llm.Streamer.
//
// A server that answers with a whole JSON completion instead of events
// (one that ignores "stream") is read as Generate would read it, its text
// passed on as one piece. An error event ({"error": …}, as vLLM sends when
// generation fails mid-stream) fails the call with an *llm.APIError; a
// stream that ends before its answer finished (no finish reason and no
// [DONE]: the connection dropped, or the server gave up as Ollama does
// after a mid-stream error) wraps llm.ErrUnavailable; a stream longer than
// MaxResponseBytes or an event that is not a completion chunk wraps
// llm.ErrInvalidOutput. Cancelling ctx closes the connection, which stops
// the generation on servers that notice (vLLM and Ollama abort a request
// whose client has gone).
func (c *chat) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	body, err := c.body(req, true)
	if err != nil {
		return nil, err
	}
	resp, err := c.readStream(ctx, body, onText)
	if err != nil {
		return nil, c.tr.redactErr(err)
	}
	return resp, nil
}

func (c *chat) readStream(ctx context.Context, body map[string]any, onText func(string)) (*llm.Response, error) {
	url := c.base + "/chat/completions"
	hr, err := c.tr.send(ctx, http.MethodPost, url, body, "text/event-stream")
	if err != nil {
		return nil, err
	}
	defer hr.Body.Close()
	if mt, _, _ := mime.ParseMediaType(hr.Header.Get("Content-Type")); mt == "application/json" {
		data, err := c.tr.read(ctx, hr.Body)
		if err != nil {
			return nil, err
		}
		resp, err := parseChat(data)
		if err != nil {
			return nil, err
		}
		if resp.Text != "" {
			onText(resp.Text)
		}
		return resp, nil
	}
	return readEvents(ctx, newSSEReader(hr.Body, c.tr.maxBody), onText, c.tr.key)
}

// readEvents reads a chat completion's events from s; key is redacted from
// an error event's message before it is cut (see parseError).
func readEvents(ctx context.Context, s *sseReader, onText func(string), key string) (*llm.Response, error) {
	var (
		text     strings.Builder
		resp     = &llm.Response{}
		scratch  []byte
		finished bool
	)
	for {
		data, err := s.next()
		if err == io.EOF {
			if !finished {
				return nil, fmt.Errorf("%w: stream ended before the answer finished (%d bytes read)", llm.ErrUnavailable, text.Len())
			}
			break
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("openai: reading stream: %w", cerr)
			}
			if errors.Is(err, llm.ErrInvalidOutput) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: reading stream: %v", llm.ErrUnavailable, err)
		}
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			finished = true
			break
		}
		c, err := parseChunk(data, &scratch)
		if err != nil {
			return nil, err
		}
		if c.errRaw != nil {
			return nil, streamError(c.errRaw, key)
		}
		if c.text != "" {
			text.WriteString(c.text)
			onText(c.text)
		}
		if c.finish != "" {
			resp.FinishReason, finished = c.finish, true
		}
		if c.hasUsage {
			resp.Usage = c.usage
		}
	}
	resp.Text = text.String()
	return resp, nil
}

// streamError turns an error event's "error" member into an *llm.APIError:
// its status is the member's numeric code when that is an HTTP error
// status (vLLM sends one), else 500, so that a server failing mid-stream
// counts as a temporary failure.
func streamError(raw []byte, key string) *llm.APIError {
	status := 500
	var obj struct {
		Code any `json:"code"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		if f, ok := obj.Code.(float64); ok && f >= 400 && f <= 599 && f == float64(int(f)) {
			status = int(f)
		}
	}
	body := make([]byte, 0, len(raw)+10)
	body = append(append(append(body, `{"error":`...), raw...), '}')
	return parseError(status, "", body, time.Now(), key)
}
