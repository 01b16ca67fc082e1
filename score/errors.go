package score

import "errors"

// Errors returned by the scorer. They are wrapped with context; test them
// with errors.Is.
var (
	// ErrNaN reports a NaN or infinite value in the query embedding, or in a
	// node embedding (found through the cosine it gives).
	ErrNaN = errors.New("score: NaN or Inf in query embedding")
	// ErrDimension reports a query embedding whose length differs from the
	// graph's embedding dimension.
	ErrDimension = errors.New("score: query dimension does not match the graph")
	// ErrConfig reports an invalid Config (a negative constant, fusion weights
	// that sum above 1, ...).
	ErrConfig = errors.New("score: invalid config")
	// ErrNoEmbedder reports a Scorer.Score call on a Scorer without an
	// Embedder.
	ErrNoEmbedder = errors.New("score: no embedder")
	// ErrEmbed reports an embedder that returned the wrong number of vectors.
	ErrEmbed = errors.New("score: embedder returned no query vector")
	// ErrIndex reports an Index built for another graph.
	ErrIndex = errors.New("score: index was built for another graph")
	// ErrNilGraph reports a nil graph.
	ErrNilGraph = errors.New("score: nil graph")
)
