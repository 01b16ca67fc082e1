package langchaingo

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader/llm"
	"github.com/tmc/langchaingo/embeddings"
)

// Task prefixes of nomic-embed-text (v1 and v1.5), for [EmbedderOptions].
const (
	NomicDocumentPrefix = "search_document: "
	NomicQueryPrefix    = "search_query: "
)

// EmbedderOptions are the optional settings of [NewEmbedder].
type EmbedderOptions struct {
	// DocumentPrefix and QueryPrefix are prepended to texts of
	// llm.KindDocument and llm.KindQuery: [NomicDocumentPrefix] and
	// [NomicQueryPrefix] for nomic-embed-text. Empty means none.
	DocumentPrefix, QueryPrefix string
	// MaxBatch, when positive, is the largest batch the provider accepts;
	// the graph builder then sends batches of that size (llm.BatchSizer).
	MaxBatch int
}

// Embedder is a LangChainGo embeddings.Embedder as an llm.Embedder. It
// implements llm.Namer, and llm.BatchSizer when MaxBatch is set.
type Embedder struct {
	e    embeddings.Embedder
	name string
	dim  int
	opt  EmbedderOptions
}

// NewEmbedder adapts e. name identifies the embedding model (for example
// "openai/text-embedding-3-small"), dim is the length of its vectors; both
// are required, since LangChainGo reports neither.
func NewEmbedder(e embeddings.Embedder, name string, dim int, opt EmbedderOptions) (*Embedder, error) {
	if e == nil || name == "" || dim <= 0 {
		return nil, fmt.Errorf("langchaingo: NewEmbedder needs an embedder, a name and a positive dimension (got name %q, dimension %d)", name, dim)
	}
	return &Embedder{e: e, name: name, dim: dim, opt: opt}, nil
}

// Name returns the declared name.
func (e *Embedder) Name() string { return e.name }

// Dimension returns the declared dimension.
func (e *Embedder) Dimension() int { return e.dim }

// MaxBatch returns EmbedderOptions.MaxBatch.
func (e *Embedder) MaxBatch() int { return e.opt.MaxBatch }

// Embed embeds documents with EmbedDocuments and queries with EmbedQuery
// (providers that distinguish the two, such as Vertex AI and Bedrock, then
// embed each as its task wants), after the kind's prefix. Every vector must
// have the declared dimension and be finite.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	in := prefixed(texts, kind, e.opt.DocumentPrefix, e.opt.QueryPrefix)
	var out [][]float32
	if kind == llm.KindQuery {
		out = make([][]float32, 0, len(in))
		for _, t := range in {
			v, err := e.e.EmbedQuery(ctx, t)
			if err != nil {
				return nil, mapError(ctx, "langchaingo: embed query", err)
			}
			out = append(out, v)
		}
	} else {
		var err error
		if out, err = e.e.EmbedDocuments(ctx, in); err != nil {
			return nil, mapError(ctx, "langchaingo: embed documents", err)
		}
	}
	if err := checkVectors(out, len(texts), e.dim); err != nil {
		return nil, fmt.Errorf("langchaingo: %w", err)
	}
	return out, nil
}
