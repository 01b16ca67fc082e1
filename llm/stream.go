package llm

import (
	"context"
	"errors"
)

// Streamer is an optional [Model] capability: a generation whose text
// arrives in pieces as the model writes it. GenerateStream sends req as
// Generate would, calls onText with each piece of the answer's text in
// order, never concurrently, from the goroutine that called it, and returns
// when the model has finished with the whole [Response] Generate would have
// returned (its Text is the pieces joined). A piece is never empty. onText
// must not retain or modify req; to stop early, cancel ctx.
//
// A model without this capability still works everywhere: callers that want
// pieces fall back to Generate and take its text as a single piece.
type Streamer interface {
	GenerateStream(ctx context.Context, req *Request, onText func(piece string)) (*Response, error)
}

// streamArg is the argument of one streamed call through the middleware.
type streamArg struct {
	req    *Request
	onText func(string)
}

// afterOutput marks the failure of a streamed call that had already passed
// text on: repeating it would show its caller the same text twice, so the
// retries stop there (isTemporary reports false).
type afterOutput struct{ err error }

func (e *afterOutput) Error() string { return e.err.Error() }
func (e *afterOutput) Unwrap() error { return e.err }

// streamOnce is one streamed call to s whose failure after the first piece
// is final (afterOutput).
func streamOnce(s Streamer) call[streamArg, *Response] {
	return func(ctx context.Context, a streamArg) (*Response, error) {
		sent := false
		resp, err := s.GenerateStream(ctx, a.req, func(p string) {
			if p == "" {
				return
			}
			sent = true
			a.onText(p)
		})
		if err != nil && sent {
			return resp, &afterOutput{err}
		}
		return resp, err
	}
}

// completeStream is complete for streamed calls: an empty or cut-off
// answer fails with an *incompleteError, which is retried only when no
// piece was passed on.
func completeStream(f call[streamArg, *Response]) call[streamArg, *Response] {
	return func(ctx context.Context, a streamArg) (*Response, error) {
		sent := false
		inner := a
		inner.onText = func(p string) { sent = true; a.onText(p) }
		resp, err := f(ctx, inner)
		if err != nil {
			return nil, err
		}
		if why := incomplete(a.req, resp); why != "" {
			var e error = &incompleteError{why}
			if sent {
				e = &afterOutput{e}
			}
			return nil, e
		}
		return resp, nil
	}
}

// isAfterOutput reports whether err is the failure of a streamed call that
// had passed text on (never retried).
func isAfterOutput(err error) bool {
	var a *afterOutput
	return errors.As(err, &a)
}

// wrappedStreamer is what Wrap returns for a model that implements
// Streamer: the streamed calls go through the same layers as Generate's.
type wrappedStreamer struct {
	wrappedModel
	stream call[streamArg, *Response]
}

func (w *wrappedStreamer) GenerateStream(ctx context.Context, req *Request, onText func(string)) (*Response, error) {
	if onText == nil {
		onText = func(string) {}
	}
	return w.stream(ctx, streamArg{req, onText})
}

// cachedStream answers streamed calls from s: a hit is passed on as one
// piece; a miss streams from f and stores the answer it returns.
func cachedStream(f call[streamArg, *Response], name string, s Store) call[streamArg, *Response] {
	return func(ctx context.Context, a streamArg) (*Response, error) {
		key, resp := cacheLookup(name, a.req, s)
		if resp != nil {
			a.onText(resp.Text)
			return resp, nil
		}
		resp, err := f(ctx, a)
		if err != nil {
			return nil, err
		}
		if key != "" {
			cacheStore(s, key, resp)
		}
		return resp, nil
	}
}
