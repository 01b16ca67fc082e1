// Package server serves a flowreader Index over HTTP and the Model Context
// Protocol, for teams that run flowreader inside a service: [New] is an
// http.Handler to mount in one's own mux, behind one's own middleware, and
// [NewMCP] the MCP server for agents (over stdio, or streamable HTTP at /mcp
// of New's handler). The CLI's `flowreader serve` and `flowreader mcp` are
// thin wrappers around them.
//
// # Endpoints
//
//	POST /v1/retrieve  {"question": "...", "budget": 16, "scores": false, "partial": false,
//	                    "collection": "NAME", "filter": {"ids": [...], "metadata": {"k": "v"}}} → flowreader.Evidence
//	POST /v1/ask       same request                                      → flowreader.Result
//	                   with "stream": true                               → text/event-stream (below)
//	GET  /v1/graph     → {"nodes", "edges", "documents", "embedder", "dimension"} (?collection=NAME)
//	GET  /healthz      → {"status": "ok"}
//	GET  /metrics      → Prometheus text: calls in flight, queued, refused, by status, durations
//	/mcp               MCP over streamable HTTP (stateless): tools retrieve and ask
//
// Every body is JSON with schema_version ([flowreader.SchemaVersion]); the
// answers are the library's JSON contract, the same as `flowreader ask
// --json`. Requests are application/json (anything else is a 415, so that a
// web page cannot post one without a CORS preflight) and take only the
// fields of [Request]; an unknown field, malformed JSON, data after the
// object, a blank question, a negative budget or one above
// Options.MaxBudget is a 400. Every error is
//
//	{"schema_version": 1, "error": {"code": "...", "message": "..."}}
//
// with the codes bad_request, empty_question, bad_budget (400),
// unauthorized (401, Options.Tokens), forbidden_host (403,
// Options.AllowedHosts), not_found (404), method_not_allowed (405, with
// Allow), request_timeout (408: the body did not arrive in time), too_large
// (413), unsupported_media_type (415), busy (503, with Retry-After: every
// slot taken and the queue full, or no slot within the timeout),
// unknown_collection (404: the request names a collection the server does
// not have), store_unavailable (503, with Retry-After: the collection's
// store cannot be reached for now), model_rate_limited (503),
// model_failed (502), timeout (504;
// Options.Timeout), internal (500). A failed ask whose request set
// "partial" also carries "partial": the result so far (stages done,
// evidence, calls and tokens).
//
// # Bounds
//
// Every limit applies per call: Options.MaxInFlight calls run at once and
// Options.MaxQueue wait for a slot in arrival order; a call's slot is
// released when its answer is computed, before it is written, and the
// write is bounded by Options.WriteTimeout from its first byte, so a client
// that does not read holds neither a slot nor its connection for long. The
// budget is bounded by Options.MaxBudget, and routing and selection check
// the call's context, so a call past its timeout or whose client left
// stops computing.
//
// # Streaming
//
// POST /v1/ask with "stream": true answers text/event-stream once the call
// is admitted (errors before that are the JSON errors above): one event per
// step of the answer, named by its kind, its data the flowreader.Event's
// JSON,
//
//	event: evidence   data: {"event":"evidence","pass":1,"evidence":{…Evidence…}}
//	event: draft      data: {"event":"draft","pass":1,"draft":{"chain":0,"status":"supported","answer":"31",…}}
//	event: delta      data: {"event":"delta","pass":1,"text":"The East"}
//	event: citations  data: {"event":"citations","pass":1,"citations":[…]}
//	event: done       data: {"event":"done","pass":1,"result":{…Result…}}
//
// the evidence before any model call of the reading returns, a draft as
// each worker finishes, the answer's pieces as the reasoner writes them
// ("thought": true for its reasoning), the citations, and the result a
// non-streamed ask answers. A failure after the stream began is one last
// event, "error", whose data is the error body above (with the partial
// result when the request has "partial": true); "done" does not come. Each
// event is flushed as it is written, with a write deadline of its own
// (10 s), so a client that stops reading loses its stream and its slot
// within that time; the call keeps Options.Timeout and holds its slot
// while it streams. A client that goes
// away cancels the call: every model call of the question ends. The MCP
// ask tool reports the same steps as progress notifications to a call with
// a progress token.
//
// The index is loaded once and served concurrently: an Index is safe for
// concurrent use, and each call runs under its request's context.
//
// # Collections and filters
//
// With Options.Collections a server answers from many collections (a
// store's, each request naming its "collection") or from an index replaced
// while it serves: each call asks it for its index once, and holds that
// index until it ends. "filter" restricts a call to the documents it
// passes (flowreader.Filter: document IDs, metadata key/values), with the
// same semantics over a graph and over a store.
package server
