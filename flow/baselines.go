package flow

import (
	"context"
	"math"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// TopK is the flow-free baseline: the K most relevant nodes by r (ties by
// index), each as a one-node chain. Table 3(a) "top-k relevance".
type TopK struct {
	// K is the list length (16 = the read budget).
	K int
	// UseH ranks by h instead of r.
	UseH bool
	// Label names the router ("" = "topk").
	Label string
}

// Name returns the router's label.
func (t *TopK) Name() string { return labelOr(t.Label, "topk") }

// Route ranks the nodes.
func (t *TopK) Route(_ context.Context, g *graph.Graph, s *score.Scores) (*Routing, error) {
	if err := checkScores(g, s); err != nil {
		return nil, err
	}
	x := s.R
	if t.UseH {
		x = s.H
	}
	return ranked(t.Name(), s, byScore(x), kOr16(t.K), time.Now()), nil
}

// MMRTopK is the maximal-marginal-relevance list: the first pick is argmax
// h, then argmax λ h_v − (1−λ) max_{u picked} cos(ê_v, ê_u).
type MMRTopK struct {
	// K is the list length (16) and Lambda λ_MMR (0.7 when 0).
	K      int
	Lambda float64
	// Label names the router ("" = "mmr").
	Label string
}

// Name returns the router's label.
func (m *MMRTopK) Name() string { return labelOr(m.Label, "mmr") }

// Route ranks the nodes by MMR.
func (m *MMRTopK) Route(_ context.Context, g *graph.Graph, s *score.Scores) (*Routing, error) {
	if err := checkScores(g, s); err != nil {
		return nil, err
	}
	lambda := m.Lambda
	if lambda == 0 {
		lambda = 0.7
	}
	k := kOr16(m.K)
	t := time.Now()
	return ranked(m.Name(), s, MMR(g, s.H, k, lambda), k, t), nil
}

// PPRTopK ranks by personalised PageRank ψ: the scores' Psi when present,
// else computed here (METHOD A.1: seeds the top Seeds nodes by r with
// personalisation ∝ r, damping 0.85, tolerance 1e-6, edge weight w_ij on
// edges with w ≥ RMin).
type PPRTopK struct {
	K       int     // list length (16)
	Seeds   int     // seed count (8 when 0)
	Damping float64 // 0.85 when 0
	RMin    float64 // graph filter (0: keep every edge)
	// Recompute ignores the scores' Psi.
	Recompute bool
	Label     string // "" = "ppr"
}

// Name returns the router's label.
func (p *PPRTopK) Name() string { return labelOr(p.Label, "ppr") }

// Route ranks the nodes by ψ.
func (p *PPRTopK) Route(_ context.Context, g *graph.Graph, s *score.Scores) (*Routing, error) {
	if err := checkScores(g, s); err != nil {
		return nil, err
	}
	t := time.Now()
	psi := s.Psi
	if psi == nil || p.Recompute {
		seeds := p.Seeds
		if seeds == 0 {
			seeds = 8
		}
		d := p.Damping
		if d == 0 {
			d = 0.85
		}
		psi = PPR(g, s.R, seeds, d, p.RMin)
	}
	return ranked(p.Name(), s, byScore(psi), kOr16(p.K), t), nil
}

func labelOr(l, d string) string {
	if l == "" {
		return d
	}
	return l
}

func kOr16(k int) int {
	if k <= 0 {
		return 16
	}
	return k
}

// ranked turns a ranking into one-node chains whose Flow is the rank weight
// (K − i)/K, so that flow order is rank order.
func ranked(name string, s *score.Scores, order []int, k int, t0 time.Time) *Routing {
	order = order[:min(k, len(order))]
	r := &Routing{Router: name, Scores: s, Demand: float64(k), Routed: float64(len(order))}
	for i, v := range order {
		r.Chains = append(r.Chains, Chain{Nodes: []int{v}, Flow: float64(k-i) / float64(k), Aspect: -1})
	}
	r.MaxFlow = r.Routed
	r.Saturation = math.Min(r.Routed/r.Demand, 1)
	r.Distinct = distinct(r.Chains)
	r.Timings.Network = time.Since(t0)
	return r
}

// MMR selects k nodes by maximal marginal relevance over h (see score.MMR,
// which it calls: the same exact picks as the scorer's sources).
func MMR(g *graph.Graph, h []float64, k int, lambda float64) []int {
	return score.MMR(g, h, k, lambda)
}

// PPR is personalised PageRank on the graph's edges with weight ≥ rmin
// (both directions, weight w_ij), seeded at the top seeds nodes by r with
// personalisation ∝ r; damping d, dangling mass returned to the
// personalisation, stop when Σ|Δ| < N·1e-6 or after 100 iterations
// (networkx semantics). The result is normalised by its maximum.
func PPR(g *graph.Graph, r []float64, seeds int, d, rmin float64) []float64 {
	n := g.Len()
	if n == 0 {
		return nil
	}
	pers := make([]float64, n)
	var ps float64
	top := byScore(r)[:min(seeds, n)]
	for _, v := range top {
		pers[v] = math.Max(r[v], 0)
		ps += pers[v]
	}
	for _, v := range top {
		if ps > 0 {
			pers[v] /= ps
		} else {
			pers[v] = 1 / float64(len(top))
		}
	}
	out := make([]float64, n)
	for v := 0; v < n; v++ {
		nb, eid := g.Neighbors(v)
		for i := range nb {
			if w := float64(g.Edges[eid[i]].Weight); w >= rmin {
				out[v] += w
			}
		}
	}
	x := append([]float64(nil), pers...)
	next := make([]float64, n)
	for it := 0; it < 100; it++ {
		dangling := 0.0
		for v := range next {
			next[v] = 0
		}
		for v := 0; v < n; v++ {
			if out[v] == 0 {
				dangling += x[v]
				continue
			}
			nb, eid := g.Neighbors(v)
			for i, u := range nb {
				if w := float64(g.Edges[eid[i]].Weight); w >= rmin {
					next[u] += d * x[v] * w / out[v]
				}
			}
		}
		errSum := 0.0
		for v := range next {
			next[v] += (d*dangling + 1 - d) * pers[v]
			errSum += math.Abs(next[v] - x[v])
		}
		x, next = next, x
		if errSum < float64(n)*1e-6 {
			break
		}
	}
	m := 0.0
	for _, v := range x {
		m = math.Max(m, v)
	}
	if m > 0 {
		for i := range x {
			x[i] /= m
		}
	}
	return x
}

// ShortestPath is base (PaperAspects when nil) with the unit capacities
// removed and d_a kept: the Table 3 "shortest path" variant.
func ShortestPath(base *Aspects) *Aspects {
	a := clone(base)
	a.Uncapacitated = true
	a.Label = "shortest-path"
	return a
}

// DocOrder is base with content arcs oriented by (document, reading order)
// instead of h: the Table 3 "document order" variant.
func DocOrder(base *Aspects) *Aspects {
	a := clone(base)
	a.Orientation = ByDocument
	a.Label = "doc-order"
	return a
}

// SingleSink is base with one aspect (A = 1, d_1 = F0, κ recomputed).
func SingleSink(base *Aspects) *Aspects {
	a := clone(base)
	a.MaxAspects = 1
	a.Label = "single-sink"
	return a
}

// NoAgreement is base with ω ≡ 1 (the "− agreement edge objective" variant).
func NoAgreement(base *Aspects) *Aspects {
	a := clone(base)
	a.Agreement = false
	a.Label = "no-agreement"
	return a
}

// NoCredit is base without the node credit (ω h_v − h̄).
func NoCredit(base *Aspects) *Aspects {
	a := clone(base)
	a.NodeCredit = false
	a.Label = "no-credit"
	return a
}

func clone(base *Aspects) *Aspects {
	if base == nil {
		base = PaperAspects()
	}
	c := *base
	return &c
}
