package score

import "errors"

// Errors returned by [Index.Score], wrapped with context; test them with
// errors.Is.
var (
	// ErrConfig reports an invalid [Config]; the message names the field.
	ErrConfig = errors.New("score: invalid config")
	// ErrEmbedding reports an embedding that cannot be scored: a query
	// embedding whose length is not the graph's dimension, or a NaN or an
	// infinity in the query embedding or in a node's.
	ErrEmbedding = errors.New("score: unusable embedding")
)
