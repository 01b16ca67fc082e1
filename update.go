package flowreader

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader/graph"
)

// builder is the graph.Builder that Build and Update use.
func (p *Pipeline) builder(ctx context.Context) *graph.Builder {
	return &graph.Builder{
		Embedder:    p.embed,
		Model:       p.model,
		Cache:       p.cfg.Cache,
		Concurrency: p.cfg.Concurrency,
		Progress:    p.progress(ctx),
		Root:        p.cfg.ImageRoot,

		Int8Embeddings: p.cfg.Int8Embeddings,
	}
}

// Update returns the graph Build(ctx, docs) would return, given g, a graph
// this pipeline's configuration built (or updated) from an earlier version
// of the collection, and which documents were added, replaced and removed
// (matched by ID and content). Only new and changed documents are analysed
// and embedded, and only the kNN lists they touch are recomputed (see
// graph.Builder.Update); g is not modified. A graph built with a Model has
// been through LLM evolution rounds, a process over the whole collection,
// and cannot be updated: Update then fails with graph.ErrUpdate, and Build
// with Config.Cache set re-builds it without repeating unchanged calls.
func (p *Pipeline) Update(ctx context.Context, g *graph.Graph, docs []graph.Document) (*graph.Graph, graph.Diff, error) {
	ng, diff, err := p.builder(ctx).Update(ctx, g, docs)
	if err != nil {
		return nil, diff, fmt.Errorf("flowreader: update: %w", err)
	}
	return ng, diff, nil
}
