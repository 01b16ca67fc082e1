package llm

import (
	"context"
	"time"
)

// Test access to the cache keys, the retry decision and the retry wait.
var (
	RequestKey  = requestKey
	EmbedKey    = embedKey
	IsTemporary = isTemporary
)

// WithSleep returns mw with its retry wait replaced by f (a fake clock).
func WithSleep(mw Middleware, f func(ctx context.Context, d time.Duration) error) Middleware {
	mw.sleep = f
	return mw
}
