package llm

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// Middleware says what [Wrap] and [WrapEmbedder] put around a backend. The zero
// value adds nothing. A call passes, from the outside in, through
//
//	cache → retries → concurrency limit → rate limit → backend
//
// so that a cache hit costs nothing, each attempt of a retried call waits
// for its own slot and its own token, and a call waiting out a backoff holds
// no slot.
type Middleware struct {
	// Cache, when set, answers a request equal to an earlier one from this
	// store without calling the backend (see Wrap and WrapEmbedder).
	Cache Store

	// Attempts bounds the calls made for one request, the first included;
	// 0 or 1 means no retries. Only temporary failures are retried:
	// [ErrRateLimited], [ErrUnavailable], an *[APIError] with status 408, 429 or
	// 5xx, an empty or truncated model answer (see [Wrap]), or an error whose
	// Temporary method reports true; never a cancelled or expired context.
	Attempts int
	// BaseDelay is the wait before the second attempt; 0 means 500 ms.
	// Attempt k ≥ 2 waits min(MaxDelay, BaseDelay·2^(k-2))·(1 + u/4), u
	// uniform in [-1, 1) from a PCG seeded with Seed, so that clients do not
	// retry in lock step and a run is reproducible.
	BaseDelay time.Duration
	// MaxDelay caps the doubling backoff; 0 means 30 s.
	MaxDelay time.Duration
	// MaxRetryAfter bounds how long a server's Retry-After on HTTP 429 or
	// 503 is honoured; such an answer is waited out exactly (no jitter), and
	// a longer demand ends the retries with the error. 0 means one minute.
	MaxRetryAfter time.Duration
	// Seed seeds the jitter.
	Seed uint64
	// OnRetry, when set, is called before each wait (for logging).
	OnRetry func(attempt int, err error, delay time.Duration)

	// Concurrency bounds the calls in flight at once through the wrapper;
	// further callers wait, or give up when their context ends. 0 means no
	// bound. Share one wrapper between goroutines: each Wrap call makes a
	// new semaphore.
	Concurrency int
	// Rate, when set, paces the calls: each attempt takes one token (one per
	// Embed call, whatever its batch size: backends limit requests, not
	// texts). Waiting honours the caller's context.
	Rate *rate.Limiter

	// sleep replaces the context-aware wait in tests.
	sleep func(ctx context.Context, d time.Duration) error
}

// call is one backend call: a Generate or an Embed with its arguments bound.
type call[A, R any] func(ctx context.Context, arg A) (R, error)

// layers puts the retry, concurrency and rate layers of mw around f, and
// reports whether it added any.
func layers[A, R any](f call[A, R], mw Middleware) (call[A, R], bool) {
	wrapped := false
	if lim := mw.Rate; lim != nil {
		inner := f
		f = func(ctx context.Context, a A) (R, error) {
			if err := lim.Wait(ctx); err != nil {
				var zero R
				return zero, err
			}
			return inner(ctx, a)
		}
		wrapped = true
	}
	if mw.Concurrency > 0 {
		inner, sem := f, make(chan struct{}, mw.Concurrency)
		f = func(ctx context.Context, a A) (R, error) {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				var zero R
				return zero, ctx.Err()
			}
			defer func() { <-sem }()
			return inner(ctx, a)
		}
		wrapped = true
	}
	if mw.Attempts > 1 {
		inner, r := f, newRetrier(mw)
		f = func(ctx context.Context, a A) (res R, err error) {
			err = r.do(ctx, func() error {
				res, err = inner(ctx, a)
				return err
			})
			if err != nil {
				var zero R
				return zero, err
			}
			return res, nil
		}
		wrapped = true
	}
	return f, wrapped
}

// Wrap returns m inside the layers mw asks for, or m itself when it asks for
// none. The wrapper keeps m's optional capabilities ([Namer],
// [ImageAccepter], [Streamer]).
//
// The cache key of a request is the SHA-256 digest of a version tag, m's
// Name and the canonical JSON encoding of the whole request (messages with
// image bytes, sampling parameters, schema, seed). Only successful responses
// are stored; an entry that does not decode, or that was stored under another
// key, is a miss and is overwritten. An answer that is empty (blank text) or
// cut off at the server's token limit (FinishReason "length" for a request
// without MaxTokens) is no success: with a cache or retries it fails with
// [ErrInvalidOutput], is retried as a temporary failure, and is never
// stored; a failed write costs a repeated call
// later, not this one. Caching is exact: a request with temperature > 0 is
// answered with the first sample ever drawn, which is what a resumable graph
// build wants. Settings held by the adapter rather than the request (for
// example openai.Config's Extra body fields) are not part of the key: use
// another store when changing them. Concurrent identical misses each call m.
//
// A model that implements [Streamer] keeps it, and its streamed calls pass
// through the same layers: a cache hit is passed on as one piece, a miss is
// streamed and its whole answer stored. A streamed call is retried only
// while it has passed no text on; once it has, its failure (an empty or
// cut-off answer included) is returned as it is, since a repeat would show
// the caller the same text twice.
func Wrap(m Model, mw Middleware) Model {
	f := call[*Request, *Response](m.Generate)
	if mw.Cache != nil || mw.Attempts > 1 {
		f = complete(f)
	}
	f, wrapped := layers(f, mw)
	if mw.Cache != nil {
		f, wrapped = cachedModel(f, nameOf(m), mw.Cache), true
	}
	if !wrapped {
		return m
	}
	w := wrappedModel{inner: m, gen: f}
	s, ok := m.(Streamer)
	if !ok {
		return &w
	}
	sf := streamOnce(s)
	if mw.Cache != nil || mw.Attempts > 1 {
		sf = completeStream(sf)
	}
	sf, _ = layers(sf, mw)
	if mw.Cache != nil {
		sf = cachedStream(sf, nameOf(m), mw.Cache)
	}
	return &wrappedStreamer{wrappedModel: w, stream: sf}
}

// batch is the argument of one Embed call.
type batch struct {
	texts []string
	kind  Kind
}

// WrapEmbedder is [Wrap] for an [Embedder]. The wrapper keeps e's Dimension
// and optional capabilities ([Namer], [BatchSizer]).
//
// With a cache, each text already embedded with the same kind by the same
// embedder (its Name and Dimension are part of the key) is answered from the
// store; only the misses of a batch are sent on, in one call and in order,
// and their vectors are checked (count, length, finite) before they are
// stored. Entries carry their key and a checksum; a corrupted, wrong-sized
// or copied entry (one stored under another key) is a miss. The dimension in the key is the one e reports when WrapEmbedder is
// called, not at each call: an embedder that learns its dimension from its
// first answer (Dimension 0 until then) would otherwise key its first batch
// differently from the rest, and a resumed build, whose fresh embedder
// reports 0 again, would miss every later entry. A wrapper made after e
// learnt its dimension also looks under the dimension-0 key.
func WrapEmbedder(e Embedder, mw Middleware) Embedder {
	f, wrapped := layers(func(ctx context.Context, b batch) ([][]float32, error) {
		return e.Embed(ctx, b.texts, b.kind)
	}, mw)
	if mw.Cache != nil {
		f, wrapped = cachedEmbedder(f, e, mw.Cache), true
	}
	if !wrapped {
		return e
	}
	return &wrappedEmbedder{inner: e, embed: f}
}
