// Package flowreader answers questions over long multimodal document
// collections by routing evidence with a minimum-cost flow instead of top-k
// retrieval (Mehrish & Vascon, "FlowReader", arXiv 2606.07235).
//
//	p, _ := flowreader.New(flowreader.Config{})  // embedded offline defaults
//	g, _ := p.Build(ctx, docs)                   // docs from graph/ingest
//	ix, _ := p.Open(ctx, g)                      // per-graph state, once
//	ev, _ := ix.Retrieve(ctx, q, flowreader.Options{}) // the evidence
//	res, _ := ix.Answer(ctx, ev)                 // the reader reads it
//
// [Index.Ask] is literally Retrieve then Answer. Retrieve runs Score, Route
// and Select (each also a method, for a caller who wants the steps; then
// [Index.Evidence] makes their Evidence) and returns the [Evidence]: the
// selected chains with each node's text, provenance and score. Answer reads
// the evidence as the caller holds it: drop chains or nodes and the reader
// reads what is left. The scores it reports are the ones routing and
// selection used (the hop step of package score included; Evidence.Scoring
// names the steps).
//
// Evidence and [Result] have one JSON form, a contract with a version
// ([SchemaVersion]): snake_case, durations in milliseconds (time.Duration
// in Go), per-node arrays only on request. An Evidence decoded from it is
// answered by an Index over the same graph; only System 2's pass needs the
// steps' state it does not carry. The CLI's ask --json and package server
// speak it. A failed or cancelled call returns its partial Result with the
// error: the steps done, the evidence, the calls made and tokens spent.
//
// [Config] holds the parts: embedder, model, scoring, router, selector,
// reader, budget. Its zero value is the default method (paper v3's aspects
// formulation with the dev-set changes) on the embedded offline models (a
// GloVe embedder compiled into the binary and the extractive reader, which
// [Pipeline.Notes] names); [PaperAspects] is v3 exactly as written and
// [Classic] paper v1. Budget is K, the read budget. With Config.System2,
// Answer runs paper v1's dual-process gate after reading and, when it
// fires, one System-2 pass (bridges across the min cut, damped
// re-weighting, new seeds; computed by package flow), keeping the new answer
// when it has support ([System2] is its account).
//
// With [Options].Stream set, Ask tells each step as it happens ([Event]):
// the evidence before any model call returns, each worker's draft, the
// answer's pieces as the reasoner writes them (llm.Streamer), the
// citations, the Result. With Config.Reranker, scoring ends with a
// cross-encoder step fused into h (Config.RerankWeight documents the
// fusion); without one, scoring is the paper's.
//
// Config.Logger (log/slog), TracerProvider and MeterProvider
// (OpenTelemetry) observe builds, opens and questions; nil means off.
// Result.Usage and graph.Graph.Usage count calls and tokens.
//
// The parts live in their own packages: graph and graph/ingest (the content
// graph, reading documents), score (node scores), flow and flow/mcf
// (routing, the min-cost flow solver), selector (choosing chains), reader
// (reading them), llm (model interfaces, middleware, the OpenAI-compatible
// adapter, offline defaults, fakes), server (HTTP and MCP), flowreadertest
// (testing retrieval built on flowreader).
package flowreader
