// Package langchaingo adapts LangChainGo (github.com/tmc/langchaingo) to
// flowreader, in both directions:
//
//   - [NewEmbedder] turns an embeddings.Embedder into an llm.Embedder, and
//     [NewModel] an llms.Model into an llm.Model, so that a pipeline can
//     build graphs and read with any provider LangChainGo speaks to;
//   - [NewRetriever] exposes a *flowreader.Index as a schema.Retriever, so
//     that LangChainGo chains can retrieve by evidence routing.
//
// LangChainGo reports neither an embedder's dimension nor a name, so the
// caller declares both: the name is part of flowreader's cache keys and of
// the graph file header, and must change when the model does.
//
// Errors are mapped so that llm's retry middleware can tell temporary
// failures from permanent ones: rate limits wrap llm.ErrRateLimited, an
// unreachable or overloaded provider llm.ErrUnavailable, a prompt too long
// llm.ErrContextTooLong, and an HTTP status found in the provider's error is
// returned as an *llm.APIError.
//
// The retriever runs Score, Route and Select (paper v3 §3) and returns the
// nodes of the selected chains, chain by chain in each chain's order,
// every node once.
//
// This package is a module of its own, so that LangChainGo's dependencies
// stay out of flowreader's module.
package langchaingo
