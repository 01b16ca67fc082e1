// Package proposal carries what paper v1's System 2 (§3.5) asks of a
// routing, between package flow, which computes it, and the root's
// System 2, which scores and applies it, without making it public API.
// Package flow sets Propose when it is initialised; importing flow
// (directly or not) is enough.
package proposal

import (
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Triggers are the dual-process gate's triggers that fired (paper v1
// §3.5); each asks a Proposal for its candidates.
type Triggers struct {
	// LowSaturation is T1 (σ < ξ): bridges across the min cut, and the
	// content edges crossing it.
	LowSaturation bool
	// LowConsistency is T2 (c < τ): the content edges of the top decile of
	// flow.
	LowConsistency bool
	// NoSupport is T3 (no supported answer): new seeds by BFS from the
	// sources, and the content edges at the sources.
	NoSupport bool
}

// Proposal is what System 2 scores before it edits a routing: each fired
// trigger's candidates, best first, at most 8 pairs per list (the paper
// leaves the number open), nil for a trigger that did not fire or a
// routing without a network. The caller scores the pairs with a model
// (prompts B.5 and B.6), sets each pair's new affinity by the damped
// update from Affinity, and applies the edits with a flow.Rerouter.
type Proposal struct {
	// Bridges are T1's candidate new edges: pairs (u, v) of content nodes
	// with u on the source side of a minimum s–t cut and v on the sink
	// side, that no content edge joins, by (h_u + h_v)/2.
	Bridges [][2]int
	// CutEdges are T1's content edges of the routed network that cross
	// the cut, by affinity·(h_u + h_v)/2.
	CutEdges [][2]int
	// TopFlow are T2's content edges carrying flow, the top decile by
	// flow (at least one).
	TopFlow [][2]int
	// Seeds are T3's new seeds: the content nodes within 2 hops of the
	// sources that are not sources, the 8 best by φ (h without it).
	Seeds []int
	// SeedEdges are T3's content edges of the routed network at a source
	// or a new seed, by affinity·(h_u + h_v)/2.
	SeedEdges [][2]int
	// Affinity is the current affinity of the pair {u, v}: the routing's
	// last System-2 edit of the pair if any, else the graph edge's weight
	// max(cos, 0), else 0. It replaces max(cos, 0) in the classic cost
	// (Eq. 5) and in the aspects gain.
	Affinity func(u, v int) float64
}

// Propose finds the candidates of the fired triggers for routing (a
// *flow.Routing), routed over g with the scores s; the min cut is computed
// once per routing.
var Propose func(routing any, g *graph.Graph, s *score.Scores, t Triggers) Proposal
