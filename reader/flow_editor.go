package reader

import (
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// FlowEditor is the default Editor: the flow package's System-2 functions.
type FlowEditor struct{}

// CutPairs calls flow.CutPairs.
func (FlowEditor) CutPairs(g *graph.Graph, s *score.Scores, r *flow.Routing, k int) [][2]int {
	return flow.CutPairs(g, s, r, k)
}

// CutEdges calls flow.CutEdges.
func (FlowEditor) CutEdges(g *graph.Graph, r *flow.Routing, k int) [][2]int {
	return flow.CutEdges(g, r, k)
}

// TopFlowEdges calls flow.TopFlowEdges.
func (FlowEditor) TopFlowEdges(r *flow.Routing) [][2]int { return flow.TopFlowEdges(r) }

// ExpandSources calls flow.ExpandSources.
func (FlowEditor) ExpandSources(g *graph.Graph, s *score.Scores, r *flow.Routing, depth, k int) []int {
	return flow.ExpandSources(g, s, r, depth, k)
}

// SourceEdges calls flow.SourceEdges.
func (FlowEditor) SourceEdges(g *graph.Graph, r *flow.Routing, sources []int, k int) [][2]int {
	return flow.SourceEdges(g, r, sources, k)
}

// Affinity calls r.Affinity.
func (FlowEditor) Affinity(g *graph.Graph, r *flow.Routing, u, v int) float64 {
	return r.Affinity(g, u, v)
}
