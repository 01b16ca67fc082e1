package flow

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Router holds routing settings. Open does the question-independent work
// for one graph; a Router value is never modified by Open and may be shared
// by many graphs and pipelines.
type Router interface {
	Open(ctx context.Context, g *graph.Graph) (GraphRouter, error)
}

// GraphRouter routes the questions of the one graph it was opened on; it is
// safe for concurrent use.
type GraphRouter interface {
	// Route routes the evidence for one question's scores (of that graph);
	// budget is the number of distinct nodes the caller will read (aspects:
	// the read cap F_max of paper v3, and the demand unless Aspects.DemandRatio;
	// classic: unused, its demand F is a setting). budget <= 0 is an
	// ErrConfig-wrapped error.
	Route(ctx context.Context, s *score.Scores, budget int) (*Routing, error)
}

// Rerouter is an optional capability of a GraphRouter: apply System-2
// edits to a previous routing and solve again (paper v1 §4: all edits of
// one pass, then one re-solve). Both routers of this package have it.
type Rerouter interface {
	Reroute(ctx context.Context, s *score.Scores, budget int, prev *Routing, e Edits) (*Routing, error)
}

// SubgraphOpener is an optional capability of a GraphRouter: open routers
// on candidate subgraphs of its graph (score.Index.ScoreCandidates) that
// price every arc as the whole graph's router does, so that a candidate
// routing follows the whole routing's choices. The aspects router has it.
type SubgraphOpener interface {
	// PrepareSubgraphs computes now the whole-graph statistics that
	// OpenSubgraph needs (O(N), once), so that a large graph's first
	// candidate question does not pay for them.
	PrepareSubgraphs()
	// OpenSubgraph opens a router on sub, the subgraph of the opened graph
	// induced by nodes (ascending indexes of it: node i of sub is
	// nodes[i], as graph.Graph.Subgraph makes it). Its cost is in sub's
	// size.
	OpenSubgraph(ctx context.Context, sub *graph.Graph, nodes []int) (GraphRouter, error)
}

// EdgeEdit sets the affinity of the content pair {U, V}. The affinity
// replaces max(cos, 0) in the classic cost (Eq. 5) and in the aspects gain.
// Add marks a new edge (T1 bridge); an edit of a pair that is not an edge of
// the routed network is ignored unless Add is set.
type EdgeEdit struct {
	U, V     int
	Affinity float64
	Add      bool
}

// Edits are the System-2 edits of one pass.
type Edits struct {
	// Edges are affinity edits and added edges; a later edit of the same pair
	// wins.
	Edges []EdgeEdit
	// Sources are extra seeds (T3), each joined to s with capacity h_v
	// (classic; the aspects network already starts at every node).
	Sources []int
}

// Errors returned by routers.
var (
	// ErrConfig reports an invalid setting or budget.
	ErrConfig = errors.New("flow: invalid router setting")
	// ErrScores reports scores or edits that do not fit the graph (lengths,
	// nodes out of range, non-finite values).
	ErrScores = errors.New("flow: scores or edits do not fit the graph")
)

var (
	_ Router   = (*Aspects)(nil)
	_ Router   = (*Classic)(nil)
	_ Rerouter = (*aspectsGraph)(nil)
	_ Rerouter = (*classicGraph)(nil)

	_ SubgraphOpener = (*aspectsGraph)(nil)
)

func checkScores(g *graph.Graph, s *score.Scores) error {
	if g == nil || s == nil {
		return fmt.Errorf("%w: nil graph or scores", ErrScores)
	}
	n := len(g.Nodes)
	if len(s.H) != n || len(s.R) != n {
		return fmt.Errorf("%w: %d nodes, len(H)=%d len(R)=%d", ErrScores, n, len(s.H), len(s.R))
	}
	for _, x := range [][]float64{s.H, s.R, s.Phi, s.Psi, s.A, s.Cos} {
		if x != nil && len(x) != n {
			return fmt.Errorf("%w: a signal has length %d, want %d", ErrScores, len(x), n)
		}
		if i := nonFinite(x); i >= 0 {
			return fmt.Errorf("%w: non-finite value at node %d", ErrScores, i)
		}
	}
	if len(s.Query) != 0 && len(s.Query) != g.Dim {
		return fmt.Errorf("%w: query dimension %d, graph %d", ErrScores, len(s.Query), g.Dim)
	}
	for _, v := range append(append([]int(nil), s.Sources...), s.Sinks...) {
		if v < 0 || v >= n {
			return fmt.Errorf("%w: source or sink %d out of range", ErrScores, v)
		}
	}
	return nil
}

func checkEdits(g *graph.Graph, e Edits) error {
	n := len(g.Nodes)
	for _, x := range e.Edges {
		if x.U < 0 || x.V < 0 || x.U >= n || x.V >= n || x.U == x.V {
			return fmt.Errorf("%w: pair (%d,%d) with %d nodes", ErrScores, x.U, x.V, n)
		}
		if x.Affinity != x.Affinity || x.Affinity > 1e300 || x.Affinity < -1e300 {
			return fmt.Errorf("%w: affinity of (%d,%d) is not finite", ErrScores, x.U, x.V)
		}
	}
	for _, v := range e.Sources {
		if v < 0 || v >= n {
			return fmt.Errorf("%w: source %d with %d nodes", ErrScores, v, n)
		}
	}
	return nil
}

// merge appends e to prev, giving the cumulative edits of a reroute.
func merge(prev, e Edits) Edits {
	return Edits{
		Edges:   append(append([]EdgeEdit(nil), prev.Edges...), e.Edges...),
		Sources: append(append([]int(nil), prev.Sources...), e.Sources...),
	}
}

// nonFinite returns the first index of x holding a NaN, an infinity or a
// value beyond ±1e300, or -1. It first sums |x| in four lanes: a sum at
// most 1e300 bounds every term and is not NaN, so x passes without the
// per-value test, which costs more.
func nonFinite(x []float64) int {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += math.Abs(x[i])
		s1 += math.Abs(x[i+1])
		s2 += math.Abs(x[i+2])
		s3 += math.Abs(x[i+3])
	}
	for ; i < len(x); i++ {
		s0 += math.Abs(x[i])
	}
	if s0+s1+s2+s3 <= 1e300 {
		return -1
	}
	for i, v := range x {
		if v != v || v > 1e300 || v < -1e300 {
			return i
		}
	}
	return -1
}
