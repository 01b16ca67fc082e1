// Package llm defines how flowreader talks to models: an Embedder turns texts
// into vectors, a Model turns a conversation of ordered text and image parts
// into text or JSON. Adapters live in subpackages (openai for HTTP servers
// such as vLLM, local for the embedded offline embedder, fake for tests).
//
// # Errors
//
// Adapters report failures that callers may want to handle with the
// sentinels ErrRateLimited, ErrContextTooLong, ErrTooManyImages,
// ErrInvalidOutput, ErrDimension and ErrUnavailable (test with errors.Is),
// and HTTP failures as *APIError (test with errors.As), which carries the
// status, the server's Retry-After and, through Unwrap, the matching
// sentinel. CheckVectors validates embedder output (count, dimension,
// finiteness).
//
// # Middleware
//
// Retry, Limit, RateLimit and Cache wrap any Model; RetryEmbedder,
// LimitEmbedder, RateLimitEmbedder and CacheEmbedder wrap any Embedder. They
// compose in any order and keep the wrapped value's optional capabilities
// (Namer, ImageAccepter, BatchSizer). A typical stack for a graph build is
//
//	m = llm.Cache(llm.Retry(llm.Limit(m, 8), llm.RetryConfig{}), llm.DirStore(dir))
//
// so that cache hits cost nothing, and misses are retried within the
// concurrency limit.
//
// Retry waits before attempt k ≥ 2 for
//
//	d_k = min(MaxDelay, BaseDelay·2^(k-2)) · (1 + J·u),  u ~ U[-1, 1),
//
// with J = Jitter and u drawn from a seeded PCG (or an injected source), so
// that a run is reproducible; when the server answered 429 or 503 with a
// Retry-After R, it waits exactly R instead (and gives up if R exceeds
// MaxRetryAfter). Only temporary errors (IsTemporary) are retried, at most
// MaxAttempts calls in all, and never after the caller's context ends.
//
// Cache keys are SHA-256 digests of a version tag, the model's name and the
// canonical JSON encoding of the whole request (RequestKey); embedding keys
// hash the embedder's name and dimension, the kind and the text (EmbedKey).
// Stores are MemoryStore and DirStore (one file per entry, written to a
// temporary file and renamed). A corrupted entry is a miss, never an error.
package llm
