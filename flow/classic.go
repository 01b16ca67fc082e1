package flow

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Classic is paper v1's formulation: MMR sources and answerable
// sinks joined to s* and t* with capacities h_u and a_v, content arcs in
// both directions of every kept edge with cost c_uv = 1 − w_uv (h_u +
// h_v)/2 (Eq. 5) and capacity min(h_u, h_v), demand F = 6, saturation
// σ = min(f_max/F, 1), and min(F, f_max) routed at minimum cost.
//
// The sources, the sinks and their answerability a_v come with the scores
// (flowreader.Classic().Scoring computes them); Route rejects scores without them
// with [ErrScores]. The zero Classic is paper v1; a field's zero value is
// the paper's.
type Classic struct {
	// Solver solves the network; nil means &mcf.SSP{}.
	Solver mcf.Solver
	// MinEdgeWeight r_min prunes graph edges of weight below it, compared
	// in float32 as score does, so that an edge of weight float32(0.22)
	// survives 0.22 (paper v1: 0.22, flowreader.Classic's MinEdgeWeight, so
	// that scoring and routing prune alike). Zero means 0.22; negative
	// keeps every edge.
	MinEdgeWeight float64
	// Demand is the demand F; zero means 6.
	Demand float64
	// MaxPaths caps the decomposition; zero means 60.
	MaxPaths int
}

// classicKinds are the graph edges Classic routes over: every kind, the
// graph as built (paper v1).
const classicKinds = graph.EdgeOrder | graph.EdgeKNN | graph.EdgeLink

// settings returns c with every zero field set to paper v1's value: the
// values the router reads.
func (c *Classic) settings() Classic {
	s := *c
	switch {
	case s.MinEdgeWeight == 0:
		s.MinEdgeWeight = 0.22
	case s.MinEdgeWeight < 0:
		s.MinEdgeWeight = math.Inf(-1)
	}
	if s.Demand == 0 {
		s.Demand = 6
	}
	if s.MaxPaths == 0 {
		s.MaxPaths = 60
	}
	return s
}

func (c *Classic) validate() error {
	switch {
	case !(c.Demand >= 0) || math.IsInf(c.Demand, 0):
		return fmt.Errorf("%w: Classic.Demand %g, want > 0 (0 for the default)", ErrConfig, c.Demand)
	case c.MaxPaths < 0:
		return fmt.Errorf("%w: Classic.MaxPaths %d is negative", ErrConfig, c.MaxPaths)
	case math.IsNaN(c.MinEdgeWeight):
		return fmt.Errorf("%w: Classic.MinEdgeWeight is NaN", ErrConfig)
	}
	return nil
}

// Open keeps g's content pairs that pass the edge filter; the returned
// router copies the settings.
func (c *Classic) Open(ctx context.Context, g *graph.Graph) (GraphRouter, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, fmt.Errorf("%w: nil graph", ErrScores)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cg := &classicGraph{cfg: c.settings(), g: g}
	cg.pairs = cg.contentPairs(Edits{})
	return cg, nil
}

// classicGraph routes the questions of one graph with the settings of the
// Classic it was opened from.
type classicGraph struct {
	cfg   Classic
	g     *graph.Graph
	pairs []pair // without edits; shared and read-only
}

// contentPairs is the kept edges, with edited and added pairs.
func (cg *classicGraph) contentPairs(edits Edits) []pair {
	if cg.pairs != nil && len(edits.Edges) == 0 {
		return cg.pairs
	}
	rmin := float32(cg.cfg.MinEdgeWeight)
	keep := func(w float32) bool { return w >= rmin }
	return contentPairs(cg.g, classicKinds, 0, keep, newEditTable(edits.Edges))
}

// Route builds G* for the question and solves it; the budget only has to
// be positive (the demand is the Demand setting).
func (cg *classicGraph) Route(ctx context.Context, s *score.Scores, budget int) (*Routing, error) {
	return cg.route(ctx, s, budget, Edits{})
}

// Reroute applies System-2 edits (cumulative with prev's) and solves again:
// edited affinities replace max(cos, 0) in Eq. 5 (edited and added pairs
// survive the graph filter), and extra sources join s* with capacity h_v.
func (cg *classicGraph) Reroute(ctx context.Context, s *score.Scores, budget int, prev *Routing, e Edits) (*Routing, error) {
	var base Edits
	if prev != nil {
		base = prev.Edits
	}
	return cg.route(ctx, s, budget, merge(base, e))
}

func (cg *classicGraph) route(ctx context.Context, s *score.Scores, budget int, edits Edits) (*Routing, error) {
	c, g := &cg.cfg, cg.g
	if budget <= 0 {
		return nil, fmt.Errorf("%w: budget %d, want > 0", ErrConfig, budget)
	}
	if err := checkScores(g, s); err != nil {
		return nil, err
	}
	if err := checkEdits(g, edits); err != nil {
		return nil, err
	}
	r := &Routing{Router: "classic", Scores: s, Edits: edits, Demand: c.Demand}
	n := len(g.Nodes)
	if n == 0 {
		return r, nil
	}
	t0 := time.Now()
	if s.Sources == nil || s.Sinks == nil || s.A == nil {
		return nil, fmt.Errorf("%w: classic routing needs the scores' Sources, Sinks and A; score with flowreader.Classic().Scoring", ErrScores)
	}
	h := s.H
	sources := dedupKeep(append(append([]int(nil), s.Sources...), edits.Sources...))
	ans, sinks := s.A, s.Sinks
	pairs := cg.contentPairs(edits)
	src, snk := n, n+1
	net := mcf.NewNetwork(n + 2)
	for _, u := range sources {
		net.AddArc(src, u, h[u], 0)
	}
	arcs := 0
	for _, p := range pairs {
		capacity := math.Min(h[p.u], h[p.v])
		if capacity <= 0 && !p.edited {
			// Arcs that can carry nothing only slow the solver; edited
			// pairs stay so that the edit is visible in the network.
			continue
		}
		// Affinities are clipped to [0, 1] so that costs stay non-negative
		// and the two opposite arcs never form a negative cycle.
		w := math.Min(math.Max(p.aff, 0), 1)
		cost := 1 - w*(h[p.u]+h[p.v])/2
		net.AddArc(p.u, p.v, capacity, cost)
		net.AddArc(p.v, p.u, capacity, cost)
		arcs += 2
	}
	for _, v := range sinks {
		net.AddArc(v, snk, ans[v], 0)
	}
	fmax, side, err := mcf.MaxFlow(net, src, snk)
	if err != nil {
		return nil, fmt.Errorf("flow: classic max flow: %w", err)
	}
	r.cut = &lazyCut{}
	r.cut.once.Do(func() { r.cut.side = side })
	r.Network, r.Source, r.Sink, r.AspectBase = net, src, snk, n+2
	r.Sources, r.Sinks = sources, append([]int(nil), sinks...)
	r.ContentArcs = arcs
	r.MaxFlow = fmax
	r.Saturation = math.Min(fmax/c.Demand, 1)
	r.Aspects = nil
	r.stage("network", time.Since(t0))
	f := math.Min(c.Demand, fmax)
	if f <= mcf.Eps {
		r.Flow = make([]float64, net.NumArcs())
		return r, nil
	}
	if err := solveAndDecompose(ctx, c.Solver, r, f, c.MaxPaths, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// dedupKeep drops repeated ints, keeping first occurrences in order.
func dedupKeep(x []int) []int {
	seen := map[int]bool{}
	out := x[:0]
	for _, v := range x {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
