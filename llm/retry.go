package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// RetryConfig configures Retry and RetryEmbedder. The zero value gives 4
// attempts with delays of about 0.5 s, 1 s, 2 s (±25 % jitter), Retry-After
// honoured up to one minute.
type RetryConfig struct {
	// MaxAttempts bounds the number of calls, first included; 0 means 4.
	MaxAttempts int
	// BaseDelay is the delay before the second attempt; 0 means 500 ms.
	// Attempt k (k ≥ 2) waits BaseDelay·2^(k-2), capped at MaxDelay.
	BaseDelay time.Duration
	// MaxDelay caps the computed backoff; 0 means 30 s.
	MaxDelay time.Duration
	// Jitter spreads each backoff uniformly over ±Jitter·delay so that many
	// clients do not retry in lock step; 0 means 0.25, negative means none.
	Jitter float64
	// MaxRetryAfter bounds how long a server's Retry-After (on HTTP 429 or
	// 503) is honoured; a longer demand ends the retries with the error.
	// 0 means one minute.
	MaxRetryAfter time.Duration
	// Seed seeds the jitter source (a PCG), so that runs are reproducible.
	Seed uint64
	// Rand, when set, replaces the seeded source; it returns values in [0, 1).
	Rand func() float64
	// Sleep, when set, replaces the context-aware wait (tests inject a fake
	// clock). It must return ctx.Err() when ctx ends first.
	Sleep func(ctx context.Context, d time.Duration) error
	// Retryable, when set, replaces IsTemporary as the retry decision.
	Retryable func(error) bool
	// OnRetry, when set, is called before each wait (for logging).
	OnRetry func(attempt int, err error, delay time.Duration)
}

// IsTemporary reports whether a call that failed with err may succeed if
// repeated: an *APIError whose Temporary method says so (429, 408, 5xx),
// ErrRateLimited, ErrUnavailable, or any error with a Temporary() bool method
// returning true. Context cancellation and deadlines are never temporary.
func IsTemporary(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, ErrRateLimited) || errors.Is(err, ErrUnavailable) {
		return true
	}
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// retrier holds the resolved configuration and the jitter source.
type retrier struct {
	cfg RetryConfig
	mu  sync.Mutex
	rng *rand.Rand
}

func newRetrier(cfg RetryConfig) *retrier {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 4
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = 500 * time.Millisecond
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 30 * time.Second
	}
	if cfg.Jitter == 0 {
		cfg.Jitter = 0.25
	} else if cfg.Jitter < 0 {
		cfg.Jitter = 0
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = time.Minute
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Retryable == nil {
		cfg.Retryable = IsTemporary
	}
	return &retrier{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))}
}

func (r *retrier) uniform() float64 {
	if r.cfg.Rand != nil {
		return r.cfg.Rand()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.Float64()
}

// delay is the wait after the attempt-th failed call (attempt ≥ 1), and
// whether retrying is allowed at all.
func (r *retrier) delay(attempt int, err error) (time.Duration, bool) {
	var api *APIError
	if errors.As(err, &api) && api.RetryAfter > 0 && (api.StatusCode == 429 || api.StatusCode == 503) {
		if api.RetryAfter > r.cfg.MaxRetryAfter {
			return 0, false
		}
		// The server said when; adding jitter on top would only delay more.
		return api.RetryAfter, true
	}
	d := r.cfg.BaseDelay
	for i := 1; i < attempt && d < r.cfg.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, r.cfg.MaxDelay)
	if r.cfg.Jitter > 0 {
		d = time.Duration(float64(d) * (1 + r.cfg.Jitter*(2*r.uniform()-1)))
	}
	return d, true
}

// do calls f until it succeeds, fails permanently, the attempts run out, or
// ctx ends. The last error is returned, annotated with the attempt count.
func (r *retrier) do(ctx context.Context, f func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = f(); err == nil {
			return nil
		}
		if ctx.Err() != nil || !r.cfg.Retryable(err) {
			return err
		}
		if attempt >= r.cfg.MaxAttempts {
			return fmt.Errorf("after %d attempts: %w", attempt, err)
		}
		d, ok := r.delay(attempt, err)
		if !ok {
			return err
		}
		if r.cfg.OnRetry != nil {
			r.cfg.OnRetry(attempt, err, d)
		}
		if serr := r.cfg.Sleep(ctx, d); serr != nil {
			return fmt.Errorf("%w (retry abandoned: %w)", err, serr)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Retry wraps m so that temporary failures (see IsTemporary) are retried with
// exponential backoff and jitter, honouring Retry-After on 429 and 503, for
// at most cfg.MaxAttempts calls. The wrapper keeps m's optional capabilities
// (Namer, ImageAccepter).
func Retry(m Model, cfg RetryConfig) Model {
	r := newRetrier(cfg)
	return wrapModel(m, func(ctx context.Context, req *Request) (resp *Response, err error) {
		err = r.do(ctx, func() error {
			resp, err = m.Generate(ctx, req)
			return err
		})
		if err != nil {
			return nil, err
		}
		return resp, nil
	})
}

// RetryEmbedder is Retry for an Embedder. It keeps e's Dimension and
// optional capabilities (Namer, BatchSizer).
func RetryEmbedder(e Embedder, cfg RetryConfig) Embedder {
	r := newRetrier(cfg)
	return wrapEmbedder(e, func(ctx context.Context, texts []string, kind Kind) (vecs [][]float32, err error) {
		err = r.do(ctx, func() error {
			vecs, err = e.Embed(ctx, texts, kind)
			return err
		})
		if err != nil {
			return nil, err
		}
		return vecs, nil
	})
}
