// Package llm defines how flowreader talks to models, in the manner of
// database/sql/driver: narrow interfaces that backends implement, optional
// capabilities found by type assertion, and middleware that wraps any
// backend. An [Embedder] turns texts into vectors; a [Model] turns a
// conversation of ordered text and image parts into text or JSON; a
// [Reranker] scores texts against a query, as a cross-encoder does. Adapters
// live in subpackages: openai for OpenAI-compatible HTTP servers such as
// vLLM (with openai/openaitest, a fault-injecting server for tests), local
// for the embedded offline embedder, fake for tests. A backend of your own
// is a type with the interface's methods.
//
// # Optional capabilities
//
// A backend may also implement
//
//   - [Namer] (Embedder or Model): a stable name, written into graph file
//     headers and made part of cache keys;
//   - [BatchSizer] (Embedder): the largest batch one call accepts, which the
//     graph builder then sends;
//   - [ImageAccepter] (Model): whether image parts may be sent; a model
//     without it is sent a text rendering of visual nodes;
//   - [Streamer] (Model): the answer's text in pieces as it is written
//     (OpenAI-compatible stream: true); a model without it is read whole.
//
// [Namer] and [BatchSizer] apply to a Reranker too. The wrappers made by
// [Wrap], [WrapEmbedder] and [WrapReranker] forward every capability of
// what they wrap, and claim none it lacks.
//
// # Errors
//
// Adapters map failures that callers may act on to [ErrRateLimited],
// [ErrUnavailable], [ErrContextTooLong] and [ErrInvalidOutput] (test with
// errors.Is), and HTTP failures to *[APIError] (test with errors.As), which
// carries the status, the server's Retry-After and, through Unwrap, the
// matching sentinel.
//
// # Middleware
//
// [Wrap], [WrapEmbedder] and [WrapReranker] put a cache, retries, a
// concurrency limit and a rate limit around a backend, in that order from
// the outside in, as a [Middleware] value asks:
//
//	m = llm.Wrap(m, llm.Middleware{Cache: llm.DirStore(dir), Attempts: 4, Concurrency: 8})
//
// Retries wait before attempt k ≥ 2 for
//
//	d_k = min(MaxDelay, BaseDelay·2^(k-2)) · (1 + u/4),  u ~ U[-1, 1),
//
// with u drawn from a PCG seeded with [Middleware].Seed, so that a run is
// reproducible; when the server answered 429 or 503 with a Retry-After R,
// they wait exactly R instead (and give up if R exceeds MaxRetryAfter).
// Cache keys are SHA-256 digests of a version tag, the backend's name and
// the whole request (for an embedder, each text with its kind; for a
// reranker, each text with its query); [DirStore] keeps one file per entry
// (written to a temporary file and renamed), and any [Store] of your own
// (an in-memory LRU, a shared cache) works as well.
// A corrupted entry is a miss, never an error. A streamed call is retried
// only while it has passed no text on: a repeat after that would show its
// caller the same text twice.
//
// # Purposes
//
// The pipeline sets a [Purpose] on the context of every model call it makes
// ([WithPurpose]): node analysis and evolution at build time; worker,
// question type, reasoner, judge and System 2 when answering. A [Model] or
// a middleware reads it with [PurposeOf], for example to send the workers'
// many calls to a smaller model, or to label its own telemetry. [Totals]
// sums the calls and tokens of a build or an answer.
package llm
