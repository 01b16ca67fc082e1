package flow

import (
	"math"
	"sort"

	ybgraph "github.com/yourbasic/graph"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/proposal"
	"github.com/flowreader/flowreader/score"
)

// maxCutCandidates bounds the nodes considered on each side of the cut by
// CutPairs (the highest-h ones): the pair score is at most
// (h_u + h_v)/2, so the best pairs sit among high-h nodes, and the bound
// keeps T1 linear in N.
const maxCutCandidates = 256

// System 2's candidates (paper v1 §3.5): the constants the paper leaves
// open.
const (
	// proposedPairs caps every list of pairs a Proposal holds.
	proposedPairs = 8
	// seedDepth and newSeeds shape T3's source expansion: BFS to depth 2
	// from the sources, the 8 best new nodes by φ.
	seedDepth = 2
	newSeeds  = 8
)

func init() {
	proposal.Propose = func(routing any, g *graph.Graph, s *score.Scores, t proposal.Triggers) proposal.Proposal {
		return routing.(*Routing).propose(g, s, t)
	}
}

// propose finds the candidates of the fired triggers for r, routed over g
// with the scores s (paper v1 §3.5): System 2's one entry point into a
// routing (internal/proposal); the min cut is computed once per routing.
func (r *Routing) propose(g *graph.Graph, s *score.Scores, t proposal.Triggers) proposal.Proposal {
	p := proposal.Proposal{Affinity: func(u, v int) float64 { return r.affinity(g, u, v) }}
	if t.LowSaturation {
		p.Bridges = cutPairs(g, s, r, proposedPairs)
		p.CutEdges = cutEdges(g, r, proposedPairs)
	}
	if t.LowConsistency {
		p.TopFlow = topFlowEdges(r)
		if len(p.TopFlow) > proposedPairs {
			p.TopFlow = p.TopFlow[:proposedPairs]
		}
	}
	if t.NoSupport {
		p.Seeds = expandSources(g, s, r, seedDepth, newSeeds)
		srcs := append(append([]int(nil), r.Sources...), p.Seeds...)
		p.SeedEdges = sourceEdges(g, r, srcs, proposedPairs)
	}
	return p
}

// netPairs lists the routed network's arcs between content nodes as
// unordered pairs (deduplicated, sorted) and, aligned, the largest flow on
// either direction.
func netPairs(r *Routing) (pairs [][2]int, flow []float64) {
	net, fl := r.fullNetwork()
	if net == nil {
		return nil, nil
	}
	idx := map[[2]int]int{}
	for id := 0; id < net.NumArcs(); id++ {
		u, v, _, _ := net.Arc(id)
		if u >= r.Source || v >= r.Source {
			continue
		}
		k := canon(u, v)
		f := 0.0
		if id < len(fl) {
			f = fl[id]
		}
		if i, ok := idx[k]; ok {
			flow[i] = math.Max(flow[i], f)
			continue
		}
		idx[k] = len(pairs)
		pairs = append(pairs, k)
		flow = append(flow, f)
	}
	return pairs, flow
}

// adjacency is the undirected content adjacency of the routed network, each
// list sorted.
func adjacency(r *Routing, n int) [][]int {
	pairs, _ := netPairs(r)
	adj := make([][]int, n)
	for _, p := range pairs {
		adj[p[0]] = append(adj[p[0]], p[1])
		adj[p[1]] = append(adj[p[1]], p[0])
	}
	for i := range adj {
		sort.Ints(adj[i])
	}
	return adj
}

type scoredPair struct {
	p     [2]int
	score float64
}

func sortPairs(ps []scoredPair) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].score != ps[j].score {
			return ps[i].score > ps[j].score
		}
		if ps[i].p[0] != ps[j].p[0] {
			return ps[i].p[0] < ps[j].p[0]
		}
		return ps[i].p[1] < ps[j].p[1]
	})
}

// CutPairs returns T1's candidate bridges: pairs (u, v) of content nodes with
// u on the source side of the min cut and v on the sink side, not joined by
// a content arc of the routed network, the top k by cos(e_u, e_v)·(h_u+h_v)/2
// (ties by pair), among the maxCutCandidates highest-h nodes of each side.
// It is nil when the routing has no network.
func cutPairs(g *graph.Graph, s *score.Scores, r *Routing, k int) [][2]int {
	side, err := r.cutSide()
	if err != nil || side == nil || k <= 0 {
		return nil
	}
	n := len(g.Nodes)
	h := s.H
	var xs, ys []int
	for _, v := range byScore(h) {
		if side[v] {
			if len(xs) < maxCutCandidates {
				xs = append(xs, v)
			}
		} else if len(ys) < maxCutCandidates {
			ys = append(ys, v)
		}
	}
	if len(xs) == 0 || len(ys) == 0 {
		return nil
	}
	pairs, _ := netPairs(r)
	linked := make(map[[2]int]bool, len(pairs))
	for _, p := range pairs {
		linked[p] = true
	}
	var best []scoredPair
	kth := func() float64 {
		if len(best) < k {
			return math.Inf(-1)
		}
		return best[k-1].score
	}
	for _, u := range xs {
		// cos ≤ 1, so (h_u + h_v)/2 bounds the score; both lists are sorted
		// by h, so the scan stops as soon as the bound falls below the k-th.
		if (h[u]+h[ys[0]])/2 < kth() {
			break
		}
		for _, v := range ys {
			if (h[u]+h[v])/2 < kth() {
				break
			}
			if u >= n || v >= n || linked[canon(u, v)] {
				continue
			}
			sc := g.Cos(u, v) * (h[u] + h[v]) / 2
			best = append(best, scoredPair{p: [2]int{u, v}, score: sc})
			sortPairs(best)
			if len(best) > k {
				best = best[:k]
			}
		}
	}
	out := make([][2]int, len(best))
	for i, b := range best {
		out[i] = b.p
	}
	return out
}

// CutEdges returns up to k content edges of the routed network for T1's
// re-weighting: first the content edges crossing the min cut, then other
// edges incident to a cut node (a content endpoint of any network arc that
// crosses the cut, source and sink arcs included), each group ranked by
// affinity·(h_u+h_v)/2 (ties by pair).
func cutEdges(g *graph.Graph, r *Routing, k int) [][2]int {
	side, err := r.cutSide()
	if err != nil || side == nil || k <= 0 || r.Scores == nil {
		return nil
	}
	h := r.Scores.H
	pairs, _ := netPairs(r)
	cutNode := map[int]bool{}
	var crossing, incident []scoredPair
	net, _ := r.fullNetwork()
	for id := 0; id < net.NumArcs(); id++ {
		u, v, _, _ := net.Arc(id)
		if side[u] && !side[v] {
			if u < r.Source {
				cutNode[u] = true
			}
			if v < r.Source {
				cutNode[v] = true
			}
		}
	}
	for _, p := range pairs {
		sp := scoredPair{p: p, score: r.affinity(g, p[0], p[1]) * (h[p[0]] + h[p[1]]) / 2}
		switch {
		case side[p[0]] != side[p[1]]:
			crossing = append(crossing, sp)
		case cutNode[p[0]] || cutNode[p[1]]:
			incident = append(incident, sp)
		}
	}
	sortPairs(crossing)
	sortPairs(incident)
	var out [][2]int
	for _, sp := range append(crossing, incident...) {
		if len(out) == k {
			break
		}
		out = append(out, sp.p)
	}
	return out
}

// TopFlowEdges returns T2's edges: the content edges carrying flow, the top
// decile of them by flow (at least one; ties by pair), as unordered pairs.
func topFlowEdges(r *Routing) [][2]int {
	pairs, flow := netPairs(r)
	var used []scoredPair
	for i, p := range pairs {
		if flow[i] > 1e-9 {
			used = append(used, scoredPair{p: p, score: flow[i]})
		}
	}
	sortPairs(used)
	m := (len(used) + 9) / 10
	out := make([][2]int, m)
	for i := range out {
		out[i] = used[i].p
	}
	return out
}

// ExpandSources returns T3's new seeds: the content nodes within depth hops
// of the routing's sources in the routed network (breadth-first, via
// github.com/yourbasic/graph), not already sources, the top k by φ (h when
// the scores carry no Phi; ties by index). It is nil when the routing has no
// explicit sources (aspects: every node is a source).
func expandSources(g *graph.Graph, s *score.Scores, r *Routing, depth, k int) []int {
	if len(r.Sources) == 0 || k <= 0 || depth <= 0 {
		return nil
	}
	n := len(g.Nodes)
	it := &rootedAdj{adj: adjacency(r, n), roots: r.Sources}
	dist := make([]int, n+1)
	for i := range dist {
		dist[i] = -1
	}
	dist[n] = -1 // the virtual root; sources get depth 0
	seen := make([]bool, n+1)
	ybgraph.BFS(it, n, func(v, w int, _ int64) {
		seen[w] = true
		dist[w] = dist[v] + 1
	})
	isSource := map[int]bool{}
	for _, v := range r.Sources {
		isSource[v] = true
	}
	phi := s.Phi
	if phi == nil {
		phi = s.H
	}
	var cand []int
	for v := 0; v < n; v++ {
		if seen[v] && !isSource[v] && dist[v] <= depth {
			cand = append(cand, v)
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return phi[cand[i]] > phi[cand[j]] })
	return cand[:min(k, len(cand))]
}

// SourceEdges returns up to k content edges of the routed network incident
// to the given sources, ranked by affinity·(h_u+h_v)/2 (ties by pair).
func sourceEdges(g *graph.Graph, r *Routing, sources []int, k int) [][2]int {
	if k <= 0 || r.Scores == nil {
		return nil
	}
	h := r.Scores.H
	in := map[int]bool{}
	for _, v := range sources {
		in[v] = true
	}
	pairs, _ := netPairs(r)
	var c []scoredPair
	for _, p := range pairs {
		if in[p[0]] || in[p[1]] {
			c = append(c, scoredPair{p: p, score: r.affinity(g, p[0], p[1]) * (h[p[0]] + h[p[1]]) / 2})
		}
	}
	sortPairs(c)
	out := make([][2]int, 0, min(k, len(c)))
	for _, sp := range c[:min(k, len(c))] {
		out = append(out, sp.p)
	}
	return out
}

// rootedAdj is an undirected adjacency with a virtual root (node len(adj))
// joined to every root, as a yourbasic/graph Iterator.
type rootedAdj struct {
	adj   [][]int
	roots []int
}

func (a *rootedAdj) Order() int { return len(a.adj) + 1 }

func (a *rootedAdj) Visit(v int, do func(w int, c int64) bool) bool {
	ns := a.roots
	if v < len(a.adj) {
		ns = a.adj[v]
	}
	for _, w := range ns {
		if do(w, 0) {
			return true
		}
	}
	return false
}

// netIter views a routed network's arcs with positive capacity as a
// yourbasic/graph Iterator.
type netIter struct{ out [][]int }

func (it *netIter) Order() int { return len(it.out) }

func (it *netIter) Visit(v int, do func(w int, c int64) bool) bool {
	for _, w := range it.out[v] {
		if do(w, 0) {
			return true
		}
	}
	return false
}

// acyclic reports whether the routed network (arcs with positive capacity)
// has no directed cycle; the aspects network G+ must be a DAG (paper v3 §3.2).
func (r *Routing) acyclic() bool {
	net, _ := r.fullNetwork()
	if net == nil {
		return true
	}
	it := &netIter{out: make([][]int, net.NumNodes())}
	for id := 0; id < net.NumArcs(); id++ {
		u, v, c, _ := net.Arc(id)
		if c > 0 {
			it.out[u] = append(it.out[u], v)
		}
	}
	return ybgraph.Acyclic(it)
}
