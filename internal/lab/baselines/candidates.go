package baselines

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Candidates routes on a candidate subgraph: the M nodes with the highest h
// (ties by index) and every node within Hops edges of them, so that routing
// cost grows with M and the neighbourhood, not with the collection. Node
// order is kept, so with M ≥ N the result equals the inner router's on the
// whole graph.
//
// It is an approximation of routing the whole graph: quantities computed
// over nodes (F0, the relevant set, ⌈√N⌉, κ's spreads) see only the
// candidates; h̄ comes from the scores. Chains are mapped back to the
// graph's node ids; the returned Routing carries no Network, so System-2
// helpers, which need it, do not apply to it.
type Candidates struct {
	// Router routes the subgraph (flow.DefaultAspects when nil).
	Router flow.Router
	// M is the number of seeds by h (256 when 0) and Hops the neighbourhood
	// radius (1 when 0; -1 for none).
	M, Hops int
}

type candidatesGraph struct {
	inner   flow.Router
	g       *graph.Graph
	m, hops int
}

// Open keeps the graph; the subgraph depends on the question.
func (c *Candidates) Open(ctx context.Context, g *graph.Graph) (flow.GraphRouter, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil graph", flow.ErrScores)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cg := &candidatesGraph{inner: c.Router, g: g, m: c.M, hops: c.Hops}
	if cg.inner == nil {
		cg.inner = &flow.Aspects{}
	}
	if cg.m <= 0 {
		cg.m = 256
	}
	if cg.hops == 0 {
		cg.hops = 1
	}
	return cg, nil
}

// Route picks the candidates, routes their induced subgraph and maps the
// chains back.
func (c *candidatesGraph) Route(ctx context.Context, s *score.Scores, budget int) (*flow.Routing, error) {
	g := c.g
	if err := checkScores(g, s); err != nil {
		return nil, err
	}
	t0 := time.Now()
	keep := make([]bool, len(g.Nodes))
	frontier := byScore(s.H)[:min(c.m, len(g.Nodes))]
	for _, v := range frontier {
		keep[v] = true
	}
	for h := 0; h < c.hops; h++ {
		var next []int
		for _, v := range frontier {
			nb, _ := g.Neighbors(v)
			for _, w := range nb {
				if !keep[w] {
					keep[w] = true
					next = append(next, int(w))
				}
			}
		}
		frontier = next
	}
	sub, local, err := induced(g, keep)
	if err != nil {
		return nil, err
	}
	ss := subScores(s, local, keep)
	prep := time.Since(t0)
	gr, err := c.inner.Open(ctx, sub)
	if err != nil {
		return nil, err
	}
	r, err := gr.Route(ctx, ss, budget)
	if err != nil {
		return nil, err
	}
	out := &flow.Routing{
		Router: "candidates(" + r.Router + ")", Scores: s,
		Demand: r.Demand, Routed: r.Routed, MaxFlow: r.MaxFlow, Saturation: r.Saturation,
		Aspects: r.Aspects, Kappa: r.Kappa, Cost: r.Cost, Distinct: r.Distinct, Stages: maps.Clone(r.Stages),
		Source: r.Source, Sink: r.Sink, AspectBase: r.AspectBase,
		Relevant: r.Relevant, ContentArcs: r.ContentArcs, Edits: r.Edits,
	}
	out.Chains = make([]flow.Chain, len(r.Chains))
	for i, ch := range r.Chains {
		ch.Nodes = mapNodes(ch.Nodes, local)
		out.Chains[i] = ch
	}
	out.Sources, out.Sinks = mapNodes(r.Sources, local), mapNodes(r.Sinks, local)
	if out.Stages == nil {
		out.Stages = map[string]time.Duration{}
	}
	out.Stages["network"] += prep
	return out, nil
}

// induced returns the subgraph on the kept nodes (in index order) and the
// graph node of each subgraph node.
func induced(g *graph.Graph, keep []bool) (*graph.Graph, []int, error) {
	var local []int
	pos := make([]int32, len(g.Nodes))
	for v, k := range keep {
		pos[v] = -1
		if k {
			pos[v] = int32(len(local))
			local = append(local, v)
		}
	}
	nodes := make([]graph.Node, len(local))
	emb := make([]float32, 0, len(local)*g.Dim)
	for i, v := range local {
		nodes[i] = g.Nodes[v]
		emb = g.AppendEmbedding(emb, v)
	}
	var edges []graph.Edge
	for _, e := range g.Edges {
		if pu, pv := pos[e.U], pos[e.V]; pu >= 0 && pv >= 0 {
			edges = append(edges, graph.Edge{U: pu, V: pv, Kind: e.Kind})
		}
	}
	sub, err := graph.New(nodes, g.Dim, emb, edges)
	if err != nil {
		return nil, nil, fmt.Errorf("baselines: candidate subgraph: %w", err)
	}
	return sub, local, nil
}

// subScores restricts every per-node signal to the candidates; sources and
// sinks outside them are dropped. Means stay those of the whole graph.
func subScores(s *score.Scores, local []int, keep []bool) *score.Scores {
	ss := *s
	cut := func(x []float64) []float64 {
		if x == nil {
			return nil
		}
		out := make([]float64, len(local))
		for i, v := range local {
			out[i] = x[v]
		}
		return out
	}
	ss.Cos, ss.BM25, ss.Ref, ss.R, ss.Phi, ss.Psi, ss.H, ss.A =
		cut(s.Cos), cut(s.BM25), cut(s.Ref), cut(s.R), cut(s.Phi), cut(s.Psi), cut(s.H), cut(s.A)
	if ss.HMean == 0 {
		for _, x := range s.H {
			ss.HMean += x
		}
		if len(s.H) > 0 {
			ss.HMean /= float64(len(s.H))
		}
	}
	idx := func(vs []int) []int {
		if vs == nil {
			return nil
		}
		out := []int{}
		for _, v := range vs {
			if keep[v] {
				out = append(out, sort.SearchInts(local, v))
			}
		}
		return out
	}
	ss.Sources, ss.Sinks = idx(s.Sources), idx(s.Sinks)
	return &ss
}

func mapNodes(vs []int, local []int) []int {
	if vs == nil {
		return nil
	}
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = local[v]
	}
	return out
}
