package baselines

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/scorehook"
	"github.com/flowreader/flowreader/score"
)

// TopK is the flow-free baseline: the budget most relevant nodes by r (ties
// by index), each as a one-node chain. Table 3(a) "top-k relevance".
type TopK struct {
	// UseH ranks by h instead of r.
	UseH bool
	// Name names the router in Routing.Router ("" = "topk").
	Name string
}

// MMRTopK is the maximal-marginal-relevance list: the first pick is argmax
// h, then argmax λ h_v − (1−λ) max_{u picked} cos(ê_v, ê_u).
type MMRTopK struct {
	// Lambda is λ_MMR (0.7 when 0).
	Lambda float64
}

// PPRTopK ranks by personalised PageRank ψ: the scores' Psi when present,
// else computed here (paper v1 §3.1: seeds the top Seeds nodes by r with
// personalisation ∝ r, damping 0.85, tolerance 1e-6, edge weight w_ij on
// edges with w ≥ RMin).
type PPRTopK struct {
	Seeds   int     // seed count (8 when 0)
	Damping float64 // 0.85 when 0
	RMin    float64 // graph filter (0: keep every edge)
	// Recompute ignores the scores' Psi.
	Recompute bool
}

// ranker is a ranked baseline opened on a graph.
type ranker struct {
	g    *graph.Graph
	name string
	rank func(s *score.Scores, k int) []int
}

func open(ctx context.Context, g *graph.Graph, name string, rank func(s *score.Scores, k int) []int) (flow.GraphRouter, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil graph", flow.ErrScores)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &ranker{g: g, name: name, rank: rank}, nil
}

// Open returns the top-k router of g.
func (t *TopK) Open(ctx context.Context, g *graph.Graph) (flow.GraphRouter, error) {
	name := t.Name
	if name == "" {
		name = "topk"
	}
	useH := t.UseH
	return open(ctx, g, name, func(s *score.Scores, _ int) []int {
		if useH {
			return byScore(s.H)
		}
		return byScore(s.R)
	})
}

// Open returns the MMR router of g.
func (m *MMRTopK) Open(ctx context.Context, g *graph.Graph) (flow.GraphRouter, error) {
	lambda := m.Lambda
	if lambda == 0 {
		lambda = 0.7
	}
	return open(ctx, g, "mmr", func(s *score.Scores, k int) []int { return scorehook.MMR(g, s.H, k, lambda) })
}

// Open returns the PPR router of g.
func (p *PPRTopK) Open(ctx context.Context, g *graph.Graph) (flow.GraphRouter, error) {
	seeds, d := p.Seeds, p.Damping
	if seeds == 0 {
		seeds = 8
	}
	if d == 0 {
		d = 0.85
	}
	rmin, recompute := p.RMin, p.Recompute
	return open(ctx, g, "ppr", func(s *score.Scores, _ int) []int {
		psi := s.Psi
		if psi == nil || recompute {
			psi = PPR(g, s.R, seeds, d, rmin)
		}
		return byScore(psi)
	})
}

// Route ranks the nodes and lists the first budget.
func (r *ranker) Route(_ context.Context, s *score.Scores, budget int) (*flow.Routing, error) {
	if budget <= 0 {
		return nil, fmt.Errorf("%w: budget %d, want > 0", flow.ErrConfig, budget)
	}
	if err := checkScores(r.g, s); err != nil {
		return nil, err
	}
	t0 := time.Now()
	return ranked(r.name, s, r.rank(s, budget), budget, t0), nil
}

// checkScores is the check the ranked lists need: a relevance per node.
func checkScores(g *graph.Graph, s *score.Scores) error {
	if s == nil {
		return fmt.Errorf("%w: nil scores", flow.ErrScores)
	}
	n := len(g.Nodes)
	if len(s.H) != n || len(s.R) != n || (s.Psi != nil && len(s.Psi) != n) {
		return fmt.Errorf("%w: %d nodes, len(H)=%d len(R)=%d", flow.ErrScores, n, len(s.H), len(s.R))
	}
	return nil
}

// ranked turns a ranking into one-node chains whose Flow is the rank weight
// (K − i)/K, so that flow order is rank order.
func ranked(name string, s *score.Scores, order []int, k int, t0 time.Time) *flow.Routing {
	order = order[:min(k, len(order))]
	r := &flow.Routing{Router: name, Scores: s, Demand: float64(k), Routed: float64(len(order))}
	for i, v := range order {
		r.Chains = append(r.Chains, flow.Chain{Nodes: []int{v}, Flow: float64(k-i) / float64(k), Aspect: -1})
	}
	r.MaxFlow = r.Routed
	r.Saturation = math.Min(r.Routed/r.Demand, 1)
	r.Distinct = len(order)
	r.Stages = map[string]time.Duration{"network": time.Since(t0)}
	return r
}

// byScore returns node indexes sorted by x descending, ties by index.
func byScore(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
	return idx
}

// PPR is personalised PageRank on the graph's edges with weight ≥ rmin
// (both directions, weight w_ij), seeded at the top seeds nodes by r with
// personalisation ∝ r; damping d, dangling mass returned to the
// personalisation, stop when Σ|Δ| < N·1e-6 or after 100 iterations
// (networkx semantics). The result is normalised by its maximum.
func PPR(g *graph.Graph, r []float64, seeds int, d, rmin float64) []float64 {
	n := len(g.Nodes)
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
