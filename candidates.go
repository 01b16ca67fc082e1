package flowreader

import (
	"context"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Candidate scoring (score.Index.ScoreCandidates) bounds a question's cost
// on a large graph by the candidates' size instead of the graph's.
const (
	// candidateMinNodes is the graph size from which questions are scored
	// on candidates by default: below it, scoring every node costs a few
	// milliseconds and candidates would only risk evidence (docs/scale.md).
	candidateMinNodes = 50000
	// defaultCandidates is m, the dense and the BM25 candidates per
	// question; the subgraph holds at most 8·m nodes.
	defaultCandidates = 256
)

// candidates returns m for g under Config.Candidates, 0 for every node.
func (p *Pipeline) candidates(g *graph.Graph) int {
	switch c := p.cfg.Candidates; {
	case c < 0:
		return 0
	case c > 0:
		return c
	case len(g.Nodes) >= candidateMinNodes:
		return defaultCandidates
	}
	return 0
}

// graphOf is the graph the node indexes of s refer to: its candidate
// subgraph, or the index's graph.
func (ix *Index) graphOf(s *score.Scores) *graph.Graph {
	if s != nil && s.Graph != nil {
		return s.Graph
	}
	return ix.g
}

// graphNode is node v of the graph s was scored on (the candidate subgraph
// when there is one) as a node of the index's graph: the evidence and the
// JSON contract name nodes of the graph the user holds.
func graphNode(s *score.Scores, v int) int {
	if s != nil && s.Candidates != nil && v >= 0 && v < len(s.Candidates) {
		return s.Candidates[v]
	}
	return v
}

// routerOf is the per-graph router for s: the index's, or one opened on the
// candidate subgraph (its cost is in the subgraph's size).
func (ix *Index) routerOf(ctx context.Context, s *score.Scores) (flow.GraphRouter, error) {
	if ix.store != nil {
		return ix.storeRouter(ctx, s)
	}
	if s == nil || s.Graph == nil {
		return ix.router, nil
	}
	// A router that can prices a subgraph's arcs with the whole graph's
	// statistics: then the candidate routing follows the full routing's
	// choices.
	if so, ok := ix.router.(flow.SubgraphOpener); ok {
		return so.OpenSubgraph(ctx, s.Graph, s.Candidates)
	}
	return ix.p.router.Open(ctx, s.Graph)
}
