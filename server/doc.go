// Package server serves a flowreader Index over HTTP and the Model Context
// Protocol, for teams that run flowreader inside a service: [New] is an
// http.Handler to mount in one's own mux, behind one's own middleware, and
// [NewMCP] the MCP server for agents (over stdio, or streamable HTTP at /mcp
// of New's handler). The CLI's `flowreader serve` and `flowreader mcp` are
// thin wrappers around them.
//
// # Endpoints
//
//	POST /v1/retrieve  {"question": "...", "budget": 16, "scores": false} → flowreader.Evidence
//	POST /v1/ask       same request                                      → flowreader.Result
//	GET  /v1/graph     → {"nodes", "edges", "documents", "embedder", "dimension"}
//	GET  /healthz      → {"status": "ok"}
//	/mcp               MCP over streamable HTTP (stateless): tools retrieve and ask
//
// Every body is JSON with schema_version ([flowreader.SchemaVersion]); the
// answers are the library's JSON contract, the same as `flowreader ask
// --json`. Requests take only the fields of [Request]; an unknown field,
// malformed JSON, data after the object, a blank question or a negative
// budget is a 400. Every error is
//
//	{"schema_version": 1, "error": {"code": "...", "message": "..."}}
//
// with the codes bad_request, empty_question, bad_budget (400), not_found
// (404), method_not_allowed (405, with Allow), too_large (413),
// unsupported_media_type (415), busy (503, with Retry-After; more than
// Options.MaxInFlight calls), model_rate_limited (503), model_failed (502),
// timeout (504; Options.Timeout), internal (500). A failed ask also carries
// "partial": the result so far (stages done, evidence, calls and tokens).
//
// The index is loaded once and served concurrently: an Index is safe for
// concurrent use, and each call runs under its request's context, so a
// client that goes away cancels its call.
package server
