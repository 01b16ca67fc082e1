package flow

import (
	"context"
	"fmt"
	"math"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// contentKinds are the graph edges that become content arcs (paper v3
// §3.1: LLM links and kNN edges; reading order comes from paperOrderWindow).
const contentKinds = graph.EdgeKNN | graph.EdgeLink

// feasibility is the fallback factor: when f_max < F0 the router sends
// F = min(F0, feasibility · f_max), a little under the maximum so that the
// solver is never asked for the exact limit of what fits.
const feasibility = 0.99

// Aspects is paper v3's aspect formulation (§3.2–3.3): a DAG of content arcs
// oriented toward higher relevance, entry arcs from s at every node,
// spectral aspect terminals with capacities d_a summing to the demand F0,
// and one min-cost flow whose decomposition gives the chains.
//
// The zero Aspects is the default, meant for score's default hybrid
// relevance; flowreader.PaperAspects sets it to §3 exactly as written. Every other variant,
// the Table 3 ablations included, is a change of fields: a field's zero
// value is the default's, and a setting whose default is not zero is
// switched off by a negative value. An Aspects holds settings only:
// [Aspects.Open] does the work of one graph, and the value may be shared
// by many graphs and goroutines.
//
// The default differs from the paper in five settings, each measured on
// the dev sets (docs/experiments.md):
//
//   - the demand is the budget, capped by the nodes with h ≥ 0.25: under
//     hybrid relevance a few nodes near h = 1 dominate Σ z², so the
//     participation ratio asks for far fewer nodes than the reader reads;
//     the floor keeps a small corpus from being padded with off-topic
//     nodes;
//   - no node credit: with hybrid relevance the mean h̄ is low, so the
//     credit (ω h_v − h̄) pays for chains of weak predecessors that push
//     ranked evidence out;
//   - b = 0.2: the spectral alignment cost, whose leading direction is the
//     corpus mean rather than a facet of the question, no longer outweighs
//     relevance;
//   - κ's spreads pooled over the arcs that can carry flow, and only live
//     nodes' alignments computed;
//   - chains with equal node sequences merged: a selector that picks
//     budget chains does not spend reads on repeated node sequences.
type Aspects struct {
	// Solver solves the network; nil means &mcf.SSP{}.
	Solver mcf.Solver
	// BridgeWeight β and CrossModalBonus γ weigh the bridge term and the
	// modality change in p_uv = clip((1−β) gain + β bridge + γ 1[mod
	// differs], 0, 1) (App. A.2). Zero means 0.3 and 0.2; negative none.
	BridgeWeight, CrossModalBonus float64
	// NodeCredit keeps the credit (ω_uv h_v − h̄) in the traversal cost
	// w_uv (§3.2, as PaperAspects sets it); the default leaves it out
	// (Table 3's "− node credit").
	NodeCredit bool
	// RelevanceThreshold τ bounds the relevant set C = {h ≥ τ} whose
	// embeddings give the aspects, and the excess z_v = max(0, h_v − τ) of
	// the participation ratio. Zero means 0.5; negative means 0.
	RelevanceThreshold float64
	// DemandRatio sets F0 to paper v3's participation ratio (Σ z)²/Σ z² of
	// the excess relevance z_v = max(0, h_v − τ) (§3.2, Eq. 3), as
	// PaperAspects does. The default sets F0 to the budget, but no more
	// than the number of nodes with h_v ≥ DemandFloor: the flow reads as
	// many nodes as top-k would, yet never pads the budget with nodes far
	// below the best one. Either is clipped to [1, budget]; the budget
	// given to Route is F_max.
	DemandRatio bool
	// DemandFloor is the relevance h a node needs, without DemandRatio, to
	// count toward the demand and to be routed at all: nodes below it get
	// no entry capacity, and since arcs climb in h no chain reaches them.
	// Zero means 0.25; negative means every node counts.
	DemandFloor float64
	// EnergyFraction η: the aspects are the fewest leading singular
	// vectors holding η of ‖M‖²_F (§3.2). Zero means 0.9.
	EnergyFraction float64
	// TerminationShare b sets the termination scale
	// κ = b/(1−b) · sd(w_uv)/sd(c_a(v)) (App. A.3, Eq. 10; the paper's
	// 0.634). Zero means 0.2; negative means 0.
	TerminationShare float64
	// PoolEveryArc computes κ's spreads over every arc, as the paper does
	// (PaperAspects sets it). The default pools the arcs whose tail the
	// source reaches, the only ones that can carry flow: dead arcs cannot
	// influence the flow, but pooled they let nodes that can never be
	// routed (under DemandFloor, most of a large corpus) set the cost
	// scale of the ones that can; it also spares the alignments c_a(v) of
	// dead nodes. Both are equal when every node is live.
	PoolEveryArc bool
	// SplitChains keeps chains with identical node sequences that end in
	// different aspects apart, as §3.3 does (PaperAspects sets it). The
	// default merges them (flows summed, cost flow-weighted, the aspect of
	// the larger flow).
	SplitChains bool
	// KeepCopies routes the copies of one content (graph.Graph.Copies:
	// exact and near-duplicates) as separate nodes, as the paper does
	// (PaperAspects sets it). The default routes each content class as one
	// node: its lowest node, holding the union of the members' content
	// pairs and the highest of their relevances, while the other members
	// get none; a content is then read once, however many documents hold
	// it. The routing names the class by the member the question scores
	// highest (ties: the lowest index), the copy whose relevance the
	// class's entry cost 1 − h (§3.3) is: its chains, Scores (the class
	// relevances it used) and Network carry that member where the class's
	// lowest node was, so a revision of a page that answers the question
	// better than its twin is the one read and cited.
	KeepCopies bool

	// The Table 3 variants of the network (§4.3). ShortestPath removes the
	// unit capacities of entry, content and terminal arcs (d_a kept):
	// every unit takes the cheapest path. DocumentOrder orients content
	// arcs by (document, reading order, index) instead of by relevance;
	// the network stays a DAG. SingleSink keeps one aspect terminal
	// (A = 1, d_1 = F0). NoAgreement sets the agreement ω ≡ 1 in the node
	// credit.
	ShortestPath, DocumentOrder, SingleSink, NoAgreement bool

	// noPrune solves the whole network, not only its live part: the
	// reference the pruning is tested against.
	noPrune bool
	// testMinDemand and testOrderWindow replace paperMinDemand and
	// paperOrderWindow in tests when non-zero (a negative window adds no
	// reading-order edges).
	testMinDemand   float64
	testOrderWindow int
}

// The constants of paper v3 that no preset changes.
const (
	// paperMinDemand is F_min, the least demand F0 (paper v3 §3.2, Eq. 3).
	paperMinDemand = 1.0
	// paperOrderWindow links nodes of one document at most this many
	// positions apart by reading-order arcs (paper v3 §3.1: ±1).
	paperOrderWindow = 1
)

// minDemand is the least demand F0.
func (a *Aspects) minDemand() float64 {
	if a.testMinDemand != 0 {
		return a.testMinDemand
	}
	return paperMinDemand
}

// orderWindow is the reading-order window.
func (a *Aspects) orderWindow() int {
	switch {
	case a.testOrderWindow < 0:
		return 0
	case a.testOrderWindow > 0:
		return a.testOrderWindow
	}
	return paperOrderWindow
}

// settings returns a with every zero field set to its default and every
// negative "off" value to 0: the values the router reads. Open calls it
// once; the result is never passed through it again.
func (a *Aspects) settings() Aspects {
	c := *a
	def := func(x *float64, d float64) {
		switch {
		case *x == 0:
			*x = d
		case *x < 0:
			*x = 0
		}
	}
	def(&c.BridgeWeight, 0.3)
	def(&c.CrossModalBonus, 0.2)
	def(&c.RelevanceThreshold, 0.5)
	def(&c.DemandFloor, 0.25)
	def(&c.TerminationShare, 0.2)
	if c.EnergyFraction == 0 {
		c.EnergyFraction = 0.9
	}
	return c
}

// name is the router's name in Routing.Router.
func (a *Aspects) name() string {
	switch {
	case a.ShortestPath:
		return "shortest-path"
	case a.DocumentOrder:
		return "doc-order"
	case a.SingleSink:
		return "single-sink"
	case a.NoAgreement:
		return "no-agreement"
	case a.DemandRatio:
		return "aspects-paper"
	}
	return "aspects"
}

func (a *Aspects) validate() error {
	bad := func(field string, v float64, want string) error {
		return fmt.Errorf("%w: Aspects.%s %g not in %s", ErrConfig, field, v, want)
	}
	switch {
	case !(a.EnergyFraction >= 0 && a.EnergyFraction <= 1):
		return bad("EnergyFraction", a.EnergyFraction, "(0, 1] (0 for the default)")
	case !(a.TerminationShare < 1) || math.IsInf(a.TerminationShare, -1):
		return bad("TerminationShare", a.TerminationShare, "[0, 1) (0 for the default, negative for none)")
	case !(a.DemandFloor <= 1) || math.IsInf(a.DemandFloor, -1):
		return bad("DemandFloor", a.DemandFloor, "[0, 1] (0 for the default, negative for none)")
	case math.IsNaN(a.BridgeWeight):
		return bad("BridgeWeight", a.BridgeWeight, "the reals")
	case math.IsNaN(a.CrossModalBonus):
		return bad("CrossModalBonus", a.CrossModalBonus, "the reals")
	case math.IsNaN(a.RelevanceThreshold):
		return bad("RelevanceThreshold", a.RelevanceThreshold, "the reals")
	}
	return nil
}

// Open computes what every question on g shares: the content pairs, their
// bridge terms and a per-node index of them. The returned router copies
// the settings; a is not modified.
func (a *Aspects) Open(ctx context.Context, g *graph.Graph) (GraphRouter, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, fmt.Errorf("%w: nil graph", ErrScores)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ag := &aspectsGraph{cfg: a.settings(), g: g}
	ag.openCopies()
	ag.pairs = ag.pairSet(Edits{})
	return ag, nil
}

// aspectsGraph routes the questions of one graph with the settings of the
// Aspects it was opened from.
type aspectsGraph struct {
	cfg   Aspects // after settings()
	g     *graph.Graph
	pairs *pairSet // without edits; shared and read-only
	// whole is what routers on candidate subgraphs of g take from it
	// (OpenSubgraph); sub is set when g is such a subgraph.
	whole wholeGraph
	sub   *subStats
	// classes and rep are g's content classes and each node's
	// representative (nil under KeepCopies, or without copies).
	classes [][]int32
	rep     []int32
}

// openCopies finds the content classes routed as one node (unless
// KeepCopies).
func (ag *aspectsGraph) openCopies() {
	if ag.cfg.KeepCopies {
		return
	}
	if ag.classes = copyClasses(ag.g); ag.classes != nil {
		ag.rep = copyRep(len(ag.g.Nodes), ag.classes)
	}
}

// Route builds G+ for the question and solves it; budget is F_max.
func (ag *aspectsGraph) Route(ctx context.Context, s *score.Scores, budget int) (*Routing, error) {
	return ag.route(ctx, s, budget, Edits{})
}

// Reroute applies System-2 edits (cumulative with prev's) and solves again.
// Affinity edits replace max(cos, 0) in the gain of p_uv; added pairs become
// content edges oriented like the others. Extra sources are ignored: every
// node already has an entry arc.
func (ag *aspectsGraph) Reroute(ctx context.Context, s *score.Scores, budget int, prev *Routing, e Edits) (*Routing, error) {
	var base Edits
	if prev != nil {
		base = prev.Edits
	}
	return ag.route(ctx, s, budget, merge(base, e))
}

// pairSet returns the content pairs with their bridge terms and incidence:
// the opened graph's when there are no edits.
func (ag *aspectsGraph) pairSet(edits Edits) *pairSet {
	if ag.pairs != nil && len(edits.Edges) == 0 {
		return ag.pairs
	}
	if ag.sub != nil {
		pairs := contentPairsOrder(ag.g, contentKinds, ag.sub.order, nil, newEditTable(edits.Edges))
		if ag.rep != nil {
			pairs = mergeCopyPairs(ag.g, pairs, ag.rep)
		}
		return newPairSet(len(ag.g.Nodes), pairs, bridgeScoresDF(ag.g, pairs, ag.sub.df, ag.sub.cutoff, nil))
	}
	pairs := contentPairs(ag.g, contentKinds, ag.cfg.orderWindow(), nil, newEditTable(edits.Edges))
	if ag.rep != nil {
		pairs = mergeCopyPairs(ag.g, pairs, ag.rep)
	}
	return newPairSet(len(ag.g.Nodes), pairs, bridgeScores(ag.g, pairs, ag.rep))
}
