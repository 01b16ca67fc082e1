package llm

import (
	"context"
	"fmt"
	"strings"
)

// incompleteError is an answer that came back but is no answer: empty, or
// cut off at the server's token limit. It matches ErrInvalidOutput, and is
// temporary so that Middleware.Attempts retries it (a sampled answer may
// finish next time; a server under memory pressure may allow more tokens).
type incompleteError struct{ why string }

func (e *incompleteError) Error() string   { return fmt.Sprintf("%v: %s", ErrInvalidOutput, e.why) }
func (e *incompleteError) Unwrap() error   { return ErrInvalidOutput }
func (e *incompleteError) Temporary() bool { return true }

// complete makes f fail with an *incompleteError for a nil or blank answer,
// and for one that stopped at the token limit (FinishReason "length")
// unless the request set MaxTokens, in which case the cut is what the
// caller asked for.
func complete(f call[*Request, *Response]) call[*Request, *Response] {
	return func(ctx context.Context, req *Request) (*Response, error) {
		resp, err := f(ctx, req)
		if err != nil {
			return nil, err
		}
		if why := incomplete(req, resp); why != "" {
			return nil, &incompleteError{why}
		}
		return resp, nil
	}
}

// incomplete says why resp is no answer to req, or "" when it is one.
func incomplete(req *Request, resp *Response) string {
	switch {
	case resp == nil:
		return "no response"
	case resp.FinishReason == "length" && req.MaxTokens == 0:
		return fmt.Sprintf("answer cut off at the server's token limit after %d bytes", len(resp.Text))
	case strings.TrimSpace(resp.Text) == "":
		return "empty answer"
	}
	return ""
}
