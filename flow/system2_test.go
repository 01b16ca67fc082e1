package flow

import (
	"context"
	"math"
	"sort"
	"testing"
)

func TestDamped(t *testing.T) {
	cases := []struct{ old, hat, want float64 }{
		{0.5, 1.0, 0.8},  // Δ = 0.3, at the bound
		{0.5, 0.9, 0.74}, // Δ = 0.24
		{0.5, 0.0, 0.2},  // Δ = −0.3
		{0.5, 0.5, 0.5},  // no change
		{0.1, 1.0, 0.4},  // Δ = 0.54, clipped to 0.3
		{0.9, 0.0, 0.6},  // Δ = −0.54, clipped to −0.3
	}
	for _, c := range cases {
		if got := damped(c.old, c.hat, 0.6, 0.3); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("damped(%g, %g) = %g, want %g", c.old, c.hat, got, c.want)
		}
	}
}

func lowSaturation(t *testing.T) (*Classic, *Routing) {
	t.Helper()
	g := synthGraph(t, 90, 16, 21)
	s := handScores(t, g, 21)
	c := &Classic{}
	c.Demand = 100
	r, err := routeOn(context.Background(), c, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Saturation >= 1 {
		t.Fatal("want a saturated cut")
	}
	return c, r
}

func TestCutPairsExact(t *testing.T) {
	g := synthGraph(t, 90, 16, 21)
	s := handScores(t, g, 21)
	_, r := lowSaturation(t)
	side, err := r.cutSide()
	if err != nil {
		t.Fatal(err)
	}
	pairs, _ := netPairs(r)
	linked := map[[2]int]bool{}
	for _, p := range pairs {
		linked[p] = true
	}
	// Brute-force oracle (90 nodes < maxCutCandidates per side).
	type sp struct {
		p [2]int
		s float64
	}
	var all []sp
	for u := 0; u < len(g.Nodes); u++ {
		for v := 0; v < len(g.Nodes); v++ {
			if side[u] && !side[v] && !linked[canon(u, v)] {
				all = append(all, sp{[2]int{u, v}, g.Cos(u, v) * (s.H[u] + s.H[v]) / 2})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].s != all[j].s {
			return all[i].s > all[j].s
		}
		if all[i].p[0] != all[j].p[0] {
			return all[i].p[0] < all[j].p[0]
		}
		return all[i].p[1] < all[j].p[1]
	})
	got := cutPairs(g, s, r, 8)
	if len(got) != min(8, len(all)) || len(got) == 0 {
		t.Fatalf("got %d pairs, oracle %d", len(got), len(all))
	}
	for i, p := range got {
		if p != all[i].p {
			t.Fatalf("pair %d: %v, oracle %v", i, p, all[i].p)
		}
	}
	ce := cutEdges(g, r, 8)
	if len(ce) == 0 || len(ce) > 8 {
		t.Fatalf("CutEdges gave %d", len(ce))
	}
	for _, p := range ce {
		if !linked[canon(p[0], p[1])] {
			t.Fatalf("CutEdges %v is not an edge of the network", p)
		}
	}
	crosses := false
	for _, p := range pairs {
		crosses = crosses || side[p[0]] != side[p[1]]
	}
	if crosses && side[ce[0][0]] == side[ce[0][1]] {
		t.Fatal("CutEdges should start with edges crossing the cut")
	}
}

func TestTopFlowEdgesAndSources(t *testing.T) {
	g := synthGraph(t, 90, 16, 21)
	s := handScores(t, g, 21)
	_, r := lowSaturation(t)
	pairs, flow := netPairs(r)
	used := 0
	for _, f := range flow {
		if f > 1e-9 {
			used++
		}
	}
	top := topFlowEdges(r)
	if len(top) != (used+9)/10 || len(top) == 0 {
		t.Fatalf("top decile: %d of %d used", len(top), used)
	}
	minTop := math.Inf(1)
	sel := map[[2]int]bool{}
	for _, p := range top {
		sel[p] = true
	}
	for i, p := range pairs {
		if sel[p] {
			minTop = math.Min(minTop, flow[i])
		}
	}
	for i, p := range pairs {
		if !sel[p] && flow[i] > minTop {
			t.Fatalf("edge %v (flow %g) beats a selected one (%g)", p, flow[i], minTop)
		}
	}

	ext := expandSources(g, s, r, 2, 8)
	if len(ext) == 0 || len(ext) > 8 {
		t.Fatalf("ExpandSources gave %d", len(ext))
	}
	// Oracle: BFS by hand.
	adj := adjacency(r, len(g.Nodes))
	depth := map[int]int{}
	queue := []int{}
	for _, v := range r.Sources {
		depth[v] = 0
		queue = append(queue, v)
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range adj[v] {
			if _, ok := depth[w]; !ok {
				depth[w] = depth[v] + 1
				queue = append(queue, w)
			}
		}
	}
	for i, v := range ext {
		d, ok := depth[v]
		if !ok || d == 0 || d > 2 {
			t.Fatalf("seed %d at depth %d (reached %v)", v, d, ok)
		}
		if i > 0 && s.Phi[ext[i-1]] < s.Phi[v] {
			t.Fatal("seeds not ranked by φ")
		}
	}
	for v, d := range depth {
		if d >= 1 && d <= 2 && s.Phi[v] > s.Phi[ext[len(ext)-1]] && len(ext) == 8 {
			found := false
			for _, x := range ext {
				found = found || x == v
			}
			if !found {
				t.Fatalf("node %d (φ %g) at depth %d missing", v, s.Phi[v], d)
			}
		}
	}
	se := sourceEdges(g, r, ext, 8)
	for _, p := range se {
		in := false
		for _, v := range ext {
			in = in || p[0] == v || p[1] == v
		}
		if !in {
			t.Fatalf("SourceEdges %v not incident to the sources", p)
		}
	}
}

func TestClassicReroute(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 90, 16, 21)
	s := handScores(t, g, 21)
	c, r := lowSaturation(t)
	// Zero the affinity of the busiest edge, add a bridge, add seeds.
	top := topFlowEdges(r)[0]
	bridge := cutPairs(g, s, r, 1)[0]
	newSrc := expandSources(g, s, r, 2, 2)
	e := Edits{
		Edges: []EdgeEdit{
			{U: top[0], V: top[1], Affinity: 0},
			{U: bridge[0], V: bridge[1], Affinity: damped(math.Max(g.Cos(bridge[0], bridge[1]), 0), 0.9, 0.6, 0.3), Add: true},
		},
		Sources: newSrc,
	}
	r2, err := rerouteOn(ctx, c, g, s, r, e)
	if err != nil {
		t.Fatal(err)
	}
	checkFlow(t, r2)
	if r2.affinity(g, top[0], top[1]) != 0 {
		t.Fatal("edit not visible through Affinity")
	}
	foundBridge, foundTop := false, false
	for id := 0; id < fullNet(r2).NumArcs(); id++ {
		u, v, _, cost := fullNet(r2).Arc(id)
		if canon(u, v) == canon(top[0], top[1]) {
			foundTop = true
			if cost != 1 {
				t.Fatalf("edited edge cost %g, want 1", cost)
			}
		}
		if canon(u, v) == canon(bridge[0], bridge[1]) {
			foundBridge = true
		}
	}
	if !foundTop || !foundBridge {
		t.Fatalf("edited edge present %v, bridge present %v", foundTop, foundBridge)
	}
	for _, v := range newSrc {
		found := false
		for _, u := range r2.Sources {
			found = found || u == v
		}
		if !found {
			t.Fatalf("new source %d missing", v)
		}
	}
	if r2.MaxFlow < r.MaxFlow-1e-9 {
		t.Fatalf("adding sources and a bridge lowered f_max: %g → %g", r.MaxFlow, r2.MaxFlow)
	}
	// A second pass keeps the first pass's edits.
	r3, err := rerouteOn(ctx, c, g, s, r2, Edits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r3.Edits.Edges) != 2 || r3.Cost != r2.Cost {
		t.Fatal("reroute lost the earlier edits")
	}
	if _, err := rerouteOn(ctx, c, g, s, r, Edits{Edges: []EdgeEdit{{U: -1, V: 2}}}); err == nil {
		t.Fatal("bad edit accepted")
	}
}

func TestAspectsReroute(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 60, 16, 5)
	s := handScores(t, g, 5)
	a := paperAspects()
	r, err := routeOn(ctx, a, g, s)
	if err != nil {
		t.Fatal(err)
	}
	top := topFlowEdges(r)
	if len(top) == 0 {
		t.Skip("no content arc carries flow")
	}
	u, v := top[0][0], top[0][1]
	r2, err := rerouteOn(ctx, a, g, s, r, Edits{Edges: []EdgeEdit{{U: u, V: v, Affinity: 1 / math.Sqrt2}}})
	if err != nil {
		t.Fatal(err)
	}
	if !r2.acyclic() {
		t.Fatal("rerouted aspects network has a cycle")
	}
	// Gain at c = 1/√2 is 1, so the edited arc's cost must reflect p ≥ 0.7.
	n := len(g.Nodes)
	for id := 0; id < fullNet(r2).NumArcs(); id++ {
		x, y, _, w := fullNet(r2).Arc(id)
		if x < n && y < n && canon(x, y) == canon(u, v) {
			_, _, _, wOld := fullNet(r).Arc(id)
			if w > wOld+1e-12 && gain(r.affinity(g, u, v)) < 1 {
				t.Fatalf("raising the gain raised the cost: %g → %g", wOld, w)
			}
			return
		}
	}
	t.Fatal("edited arc not found")
}

// damped is paper v1's System-2 re-weighting rule (the root's System 2
// applies it): p_old + sign(Δ)·min(bound, |Δ|) with Δ = λ(p̂ − p_old).
func damped(pOld, pHat, lambda, bound float64) float64 {
	d := lambda * (pHat - pOld)
	return pOld + math.Copysign(math.Min(bound, math.Abs(d)), d)
}
