// Package faultserver is a fault-injecting OpenAI-compatible HTTP server for
// tests: it answers POST /v1/chat/completions and /v1/embeddings (and GET
// /v1/models) like a vLLM server would, except that a seeded fraction of
// requests fail in the ways real deployments fail.
//
// # Faults
//
// Each request is identified by its key, the hex SHA-256 of its body, and by
// its attempt number a (1 for the first request with that key, 2 for the
// next, and so on). Its fault is drawn from the configured rates with
//
//	u = first 8 bytes of SHA-256(seed ‖ key ‖ a) / 2^64 ∈ [0, 1),
//
// the fault being the first class whose cumulative rate exceeds u. The draw
// depends only on the seed, the body and the attempt, never on timing or on
// the order in which concurrent requests arrive, so a run with the same
// requests sees the same faults. After Config.MaxFaultsPerKey faults for one
// key, that key is always served, which bounds how long a client that
// retries can be kept from progressing.
//
// The classes are: 429 with Retry-After; 500; 503 with Retry-After; a
// connection reset (the connection is hijacked and closed with SO_LINGER 0,
// so the client sees a TCP RST); a truncated body (Content-Length promises
// more bytes than are sent before the connection closes); a 200 whose body
// is not the expected JSON (an HTML page or a JSON document cut short with a
// matching Content-Length); and a stall (no answer until the client gives
// up, the server closes, or Config.MaxStall passes, then 504).
//
// # Log
//
// Every request is logged with its arrival order, key, items (the key for a
// chat request; one hash per input text for an embeddings request), attempt,
// fault and status. The http.Client returned by Client marks an entry
// Consumed when the client read a successful body to its end, so a test can
// tell a success the client received from one it abandoned (its context
// ended while the answer was in flight). Repeats lists every request for an
// item that arrived after a consumed success of the same item: for a client
// that caches what it received, that list must be empty.
//
// The server never logs request headers, so a bearer token cannot leak into
// the log.
package faultserver
