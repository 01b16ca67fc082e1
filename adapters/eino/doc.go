// Package eino adapts CloudWeGo Eino (github.com/cloudwego/eino) to
// flowreader, in both directions:
//
//   - [NewEmbedder] turns an Eino embedding.Embedder into an llm.Embedder,
//     and [NewModel] a model.BaseChatModel into an llm.Model, so that a
//     pipeline can build graphs and read with any Eino component;
//   - [NewRetriever] exposes a *flowreader.Index as an Eino
//     retriever.Retriever, for Eino chains and graphs.
//
// Eino embeds to [][]float64 with no notion of query or document, and
// reports neither dimension nor name: the caller declares dimension and
// name (the name is part of flowreader's cache keys and of the graph file
// header) and, for embedders with task prefixes, the prefixes.
//
// Eino has no common error types; errors are mapped by the HTTP status the
// provider's error carries (a StatusCode or HTTPStatusCode field or method,
// as the OpenAI-protocol clients have, or a status in its text): 429 wraps
// llm.ErrRateLimited, 5xx llm.ErrUnavailable, and the status is returned as
// an *llm.APIError, so that llm's retry middleware retries what is
// temporary.
//
// The retriever runs Score, Route and Select (paper v3 §3) and returns the
// nodes of the selected chains, chain by chain in each chain's order,
// every node once.
//
// This package is a module of its own, so that Eino's dependencies stay
// out of flowreader's module.
package eino
