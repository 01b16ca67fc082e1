package flow

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Router routes one query over one graph and returns the chains with the
// quantities that explain them. Implementations are safe for concurrent use
// when their fields are not modified.
type Router interface {
	Route(ctx context.Context, g *graph.Graph, s *score.Scores) (*Routing, error)
}

// Rerouter is a Router that can apply System-2 edits to a previous routing and
// solve again (METHOD A.7: all edits of one pass, then one re-solve).
type Rerouter interface {
	Router
	Reroute(ctx context.Context, g *graph.Graph, s *score.Scores, prev *Routing, e Edits) (*Routing, error)
}

// Preparer is a Router with per-graph work that does not depend on the
// query (for Aspects: the content pairs, their bridge terms and a per-node
// index of them). Prepare does that work ahead of the first query, so that
// the first Route on g costs what every later one does; Route works
// without it. The root package's Pipeline calls it when it builds or loads
// a graph.
type Preparer interface {
	Prepare(ctx context.Context, g *graph.Graph) error
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
	// ErrScores reports scores that do not fit the graph (lengths, NaN).
	ErrScores = errors.New("flow: scores do not fit the graph")
	// ErrConfig reports an invalid router option.
	ErrConfig = errors.New("flow: invalid router option")
	// ErrEdit reports an edit with nodes out of range or a non-finite affinity.
	ErrEdit = errors.New("flow: invalid edit")
)

// Name implementations: every router reports its name in Routing.Router.
type namer interface{ Name() string }

var (
	_ Rerouter = (*Aspects)(nil)
	_ Rerouter = (*Classic)(nil)
	_ Preparer = (*Aspects)(nil)
	_ namer    = (*Aspects)(nil)
	_ namer    = (*Classic)(nil)
)

func checkScores(g *graph.Graph, s *score.Scores) error {
	if g == nil || s == nil {
		return fmt.Errorf("%w: nil graph or scores", ErrScores)
	}
	n := g.Len()
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
	n := g.Len()
	for _, x := range e.Edges {
		if x.U < 0 || x.V < 0 || x.U >= n || x.V >= n || x.U == x.V {
			return fmt.Errorf("%w: pair (%d,%d) with %d nodes", ErrEdit, x.U, x.V, n)
		}
		if x.Affinity != x.Affinity || x.Affinity > 1e300 || x.Affinity < -1e300 {
			return fmt.Errorf("%w: affinity of (%d,%d) is not finite", ErrEdit, x.U, x.V)
		}
	}
	for _, v := range e.Sources {
		if v < 0 || v >= n {
			return fmt.Errorf("%w: source %d with %d nodes", ErrEdit, v, n)
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
// per-value test, which costs three times as much.
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
