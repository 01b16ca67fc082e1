package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// jitter is J in the backoff factor 1 + J·u, u ~ U[-1, 1).
const jitter = 0.25

// isTemporary reports whether a call that failed with err may succeed if
// repeated (see Middleware.Attempts).
func isTemporary(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || isAfterOutput(err) {
		return false
	}
	if errors.Is(err, ErrRateLimited) || errors.Is(err, ErrUnavailable) {
		return true
	}
	var api *APIError
	if errors.As(err, &api) {
		return api.StatusCode == 429 || api.StatusCode == 408 || api.StatusCode >= 500
	}
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// retrier holds the resolved retry settings and the jitter source.
type retrier struct {
	attempts                      int
	base, maxDelay, maxRetryAfter time.Duration
	onRetry                       func(attempt int, err error, delay time.Duration)
	sleep                         func(ctx context.Context, d time.Duration) error
	mu                            sync.Mutex
	rng                           *rand.Rand
}

func newRetrier(mw Middleware) *retrier {
	r := &retrier{
		attempts: mw.Attempts, base: mw.BaseDelay, maxDelay: mw.MaxDelay, maxRetryAfter: mw.MaxRetryAfter,
		onRetry: mw.OnRetry, sleep: mw.sleep,
		rng: rand.New(rand.NewPCG(mw.Seed, 0x9e3779b97f4a7c15)),
	}
	if r.base <= 0 {
		r.base = 500 * time.Millisecond
	}
	if r.maxDelay <= 0 {
		r.maxDelay = 30 * time.Second
	}
	if r.maxRetryAfter <= 0 {
		r.maxRetryAfter = time.Minute
	}
	if r.sleep == nil {
		r.sleep = sleep
	}
	return r
}

func (r *retrier) uniform() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.Float64()
}

// delay is the wait after the attempt-th failed call (attempt ≥ 1), and
// whether retrying is allowed at all.
func (r *retrier) delay(attempt int, err error) (time.Duration, bool) {
	var api *APIError
	if errors.As(err, &api) && api.RetryAfter > 0 && (api.StatusCode == 429 || api.StatusCode == 503) {
		if api.RetryAfter > r.maxRetryAfter {
			return 0, false
		}
		// The server said when; adding jitter on top would only delay more.
		return api.RetryAfter, true
	}
	d := r.base
	for i := 1; i < attempt && d < r.maxDelay; i++ {
		d *= 2
	}
	d = min(d, r.maxDelay)
	return time.Duration(float64(d) * (1 + jitter*(2*r.uniform()-1))), true
}

// do calls f until it succeeds, fails permanently, the attempts run out, or
// ctx ends. The last error is returned, annotated with the attempt count.
func (r *retrier) do(ctx context.Context, f func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = f(); err == nil {
			return nil
		}
		if ctx.Err() != nil || !isTemporary(err) {
			return err
		}
		if attempt >= r.attempts {
			return fmt.Errorf("after %d attempts: %w", attempt, err)
		}
		d, ok := r.delay(attempt, err)
		if !ok {
			return err
		}
		if r.onRetry != nil {
			r.onRetry(attempt, err, d)
		}
		if serr := r.sleep(ctx, d); serr != nil {
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
