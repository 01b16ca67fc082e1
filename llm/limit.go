package llm

import (
	"context"

	"golang.org/x/time/rate"
)

// Limit wraps m so that at most n calls run at once; further callers wait
// (or give up when their context ends). n ≤ 0 means no limit. Share one
// wrapper between goroutines: each call to Limit makes a new semaphore.
func Limit(m Model, n int) Model {
	if n <= 0 {
		return m
	}
	sem := make(chan struct{}, n)
	return wrapModel(m, func(ctx context.Context, req *Request) (*Response, error) {
		if err := acquire(ctx, sem); err != nil {
			return nil, err
		}
		defer func() { <-sem }()
		return m.Generate(ctx, req)
	})
}

// LimitEmbedder is Limit for an Embedder.
func LimitEmbedder(e Embedder, n int) Embedder {
	if n <= 0 {
		return e
	}
	sem := make(chan struct{}, n)
	return wrapEmbedder(e, func(ctx context.Context, texts []string, kind Kind) ([][]float32, error) {
		if err := acquire(ctx, sem); err != nil {
			return nil, err
		}
		defer func() { <-sem }()
		return e.Embed(ctx, texts, kind)
	})
}

func acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RateLimit wraps m so that calls start no faster than lim allows (one token
// per call). Waiting honours the caller's context.
func RateLimit(m Model, lim *rate.Limiter) Model {
	return wrapModel(m, func(ctx context.Context, req *Request) (*Response, error) {
		if err := lim.Wait(ctx); err != nil {
			return nil, err
		}
		return m.Generate(ctx, req)
	})
}

// RateLimitEmbedder is RateLimit for an Embedder: one token per Embed call,
// whatever its batch size (backends limit requests, not texts).
func RateLimitEmbedder(e Embedder, lim *rate.Limiter) Embedder {
	return wrapEmbedder(e, func(ctx context.Context, texts []string, kind Kind) ([][]float32, error) {
		if err := lim.Wait(ctx); err != nil {
			return nil, err
		}
		return e.Embed(ctx, texts, kind)
	})
}
