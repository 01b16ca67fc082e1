package eino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/embedding"
	"github.com/flowreader/flowreader/llm"
)

// Task prefixes of nomic-embed-text (v1 and v1.5), for [EmbedderOptions].
const (
	NomicDocumentPrefix = "search_document: "
	NomicQueryPrefix    = "search_query: "
)

// EmbedderOptions are the optional settings of [NewEmbedder].
type EmbedderOptions struct {
	// DocumentPrefix and QueryPrefix are prepended to texts of
	// llm.KindDocument and llm.KindQuery, since Eino embeds with no kind:
	// [NomicDocumentPrefix] and [NomicQueryPrefix] for nomic-embed-text.
	// Empty means none.
	DocumentPrefix, QueryPrefix string
	// MaxBatch, when positive, is the largest batch the provider accepts;
	// the graph builder then sends batches of that size (llm.BatchSizer).
	MaxBatch int
	// Options are passed to every EmbedStrings call.
	Options []embedding.Option
}

// Embedder is an Eino embedding.Embedder as an llm.Embedder. It
// implements llm.Namer, and llm.BatchSizer when MaxBatch is set.
type Embedder struct {
	e    embedding.Embedder
	name string
	dim  int
	opt  EmbedderOptions
}

// NewEmbedder adapts e. name identifies the embedding model, dim is the
// length of its vectors; both are required, since Eino reports neither.
func NewEmbedder(e embedding.Embedder, name string, dim int, opt EmbedderOptions) (*Embedder, error) {
	if e == nil || name == "" || dim <= 0 {
		return nil, fmt.Errorf("eino: NewEmbedder needs an embedder, a name and a positive dimension (got name %q, dimension %d)", name, dim)
	}
	return &Embedder{e: e, name: name, dim: dim, opt: opt}, nil
}

// Name returns the declared name.
func (e *Embedder) Name() string { return e.name }

// Dimension returns the declared dimension.
func (e *Embedder) Dimension() int { return e.dim }

// MaxBatch returns EmbedderOptions.MaxBatch.
func (e *Embedder) MaxBatch() int { return e.opt.MaxBatch }

// Embed prefixes the texts by kind, embeds them with EmbedStrings and
// converts the vectors to float32. Every vector must have the declared
// dimension and be finite.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	in := prefixed(texts, kind, e.opt.DocumentPrefix, e.opt.QueryPrefix)
	vs, err := e.e.EmbedStrings(ctx, in, e.opt.Options...)
	if err != nil {
		return nil, mapError(ctx, "eino: embed", err)
	}
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = make([]float32, len(v))
		for j, x := range v {
			out[i][j] = float32(x) // beyond float32's range it becomes ±Inf, which the check refuses
		}
	}
	if err := checkVectors(out, len(texts), e.dim); err != nil {
		return nil, fmt.Errorf("eino: %w", err)
	}
	return out, nil
}
