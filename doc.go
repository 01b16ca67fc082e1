// Package flowreader answers questions over long multimodal document
// collections by routing evidence with a minimum-cost flow instead of top-k
// retrieval (Mehrish & Vascon, "FlowReader", arXiv 2606.07235).
//
// The data flows one way:
//
//	documents --ingest.Path--> []graph.Document --Pipeline.Build--> *graph.Graph
//	*graph.Graph --Pipeline.Open (or Load from a file)--> *Index
//	question --Index.Score--> *score.Scores --Index.Route--> *flow.Routing
//	         --Index.Select--> []flow.Chain --Index.Answer--> *Result
//
// Index.Retrieve runs the first three with per-call [Options] (the budget)
// and returns the [Evidence]: the selected chains with their nodes' text
// and provenance, for a caller that reads with its own model. Index.Ask is
// Retrieve followed by Answer. Evidence and [Result] have one JSON form, a
// contract with a version ([SchemaVersion]): snake_case, durations in
// milliseconds, per-node arrays only on request; the CLI's ask --json and
// package server answer with it. A failed or cancelled Ask returns its
// partial Result with the error: the steps done, the evidence, and the
// calls made and tokens spent. A [Pipeline] holds the configured parts
// ([Config]: embedder, model, scoring, router, selector, reader, budget);
// [New] validates them and fills every zero field with its documented
// default, so the zero Config is the default method (paper v3's aspects
// formulation with the dev-set changes) on the
// embedded offline models: a GloVe embedder compiled into the binary and
// the extractive reader, which [Pipeline.Notes] names. [Classic] is paper
// v1 and [PaperAspects] is v3 exactly as written.
//
// An [Index] is a pipeline bound to one graph: Open builds the graph's
// scoring index and the router's per-graph state once, so every question
// costs the same, and one pipeline can serve many graphs.
//
// With Config.System2, Answer runs paper v1's dual-process gate after
// reading: the reader's judge (reader.Judge) measures the consistency c of
// the chains' answers, and when c < τ = 0.65, the saturation σ < ξ = 0.60
// or no chain supports an answer, one System-2 pass edits the flow network
// (bridges across the min cut, damped re-weighting, new seeds), re-routes
// once (flow.Rerouter), re-selects and re-reads, keeping the new answer
// when it has support ([System2] is its account).
//
// Config.Logger (log/slog), Config.TracerProvider and Config.MeterProvider
// (OpenTelemetry) observe builds, opens and questions; nil means off, and
// no global logger or provider is used unless passed. Every model and
// embedding call is a span following the OpenTelemetry GenAI semantic
// conventions, without prompt or document content, and Result.Usage and
// graph.Graph.Usage count calls and tokens.
//
// The parts live in their own packages: graph and graph/ingest (the content
// graph and reading documents), score (node scores), flow and flow/mcf
// (routing, the min-cost flow solver), selector (choosing chains), reader
// (reading them), llm (model interfaces, middleware, the OpenAI-compatible
// adapter, offline defaults and fakes for tests).
package flowreader
