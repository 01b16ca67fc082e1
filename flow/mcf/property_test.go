package mcf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"
)

// kind is a family of random test networks.
type kind int

const (
	dagNegative     kind = iota // DAG, costs of both signs
	cyclicPositive              // cycles, non-negative costs
	cyclicPotential             // cycles, negative costs but no negative cycle
	cyclicAny                   // cycles, costs of both signs (negative cycles likely)
	numKinds
)

func (k kind) String() string {
	return [...]string{"dag-negative", "cyclic-positive", "cyclic-potential", "cyclic-any"}[k]
}

// randomNetwork builds a network of the given kind. Supplies sit on a few
// nodes; with single they sit on node 0 (supply) and nn-1 (demand) only.
// fractional draws real-valued capacities and supplies; tight makes the
// supply large relative to capacities, so some instances are infeasible.
func randomNetwork(rng *rand.Rand, k kind, nn, m int, fractional, single, tight bool) *Network {
	n := NewNetwork(nn)
	perm := rng.Perm(nn)
	if single { // keep 0 first and nn-1 last in the DAG order
		perm = append([]int{0}, append(rng.Perm(nn-2), nn-1)...)
		for i := 1; i < nn-1; i++ {
			perm[i]++
		}
	}
	rank := make([]int, nn)
	for i, v := range perm {
		rank[v] = i
	}
	pot := make([]float64, nn)
	for v := range pot {
		pot[v] = float64(rng.IntN(21) - 10)
	}
	num := func(lo, hi int) float64 {
		if fractional {
			return float64(lo) + rng.Float64()*float64(hi-lo)
		}
		return float64(lo + rng.IntN(hi-lo+1))
	}
	for i := 0; i < m; i++ {
		u, v := rng.IntN(nn), rng.IntN(nn)
		if k == dagNegative {
			if u == v {
				continue
			}
			if rank[u] > rank[v] {
				u, v = v, u
			}
		}
		var c float64
		switch k {
		case dagNegative:
			c = num(-10, 10)
		case cyclicPositive:
			c = num(0, 10)
		case cyclicPotential:
			c = num(0, 10) + pot[u] - pot[v]
		case cyclicAny:
			c = num(-3, 10)
		}
		capacity := num(0, 8)
		if rng.IntN(10) == 0 {
			capacity = 0
		}
		n.AddArc(u, v, capacity, c)
	}
	total := num(1, 4)
	if tight {
		total *= 6
	}
	if single || nn < 4 {
		n.SetSupply(0, total)
		n.SetSupply(nn-1, -total)
		return n
	}
	// Two supply and two demand nodes, splitting total unevenly.
	nodes := rng.Perm(nn)[:4]
	f := 0.2 + 0.6*rng.Float64()
	n.SetSupply(nodes[0], total*f)
	n.SetSupply(nodes[1], total-total*f)
	n.SetSupply(nodes[2], -total*(1-f))
	n.SetSupply(nodes[3], -(total - total*(1-f)))
	return n
}

// checkFeasible checks capacity bounds and conservation (exact for a full
// solution; for a partial one each node's net outflow lies between 0 and
// its supply) within Eps-scaled tolerances, and that Cost matches the flow.
func checkFeasible(t *testing.T, n *Network, sol *Solution, tag string) {
	t.Helper()
	tol := 1e-9
	out := make([]float64, n.NumNodes())
	var cost float64
	for a, f := range sol.Flow {
		u, v, capacity, c := n.Arc(a)
		if f < -tol || f > capacity+tol {
			t.Fatalf("%s: arc %d flow %g outside [0,%g]", tag, a, f, capacity)
		}
		out[u] += f
		out[v] -= f
		cost += f * c
	}
	for v, x := range out {
		b := n.Supply(v)
		scale := tol * math.Max(1, math.Abs(b))
		if !sol.Partial {
			if math.Abs(x-b) > scale {
				t.Fatalf("%s: node %d net outflow %g, supply %g", tag, v, x, b)
			}
			continue
		}
		lo, hi := math.Min(0, b), math.Max(0, b)
		if x < lo-scale || x > hi+scale {
			t.Fatalf("%s: partial: node %d net outflow %g outside [%g,%g]", tag, v, x, lo, hi)
		}
	}
	if math.Abs(cost-sol.Cost) > 1e-9*math.Max(1, math.Abs(cost)) {
		t.Fatalf("%s: Cost %g but Σ f·c = %g", tag, sol.Cost, cost)
	}
}

// hasNegativeCycle is an independent Floyd–Warshall check over arcs of
// positive capacity.
func hasNegativeCycle(n *Network) bool {
	nn := n.NumNodes()
	d := make([][]float64, nn)
	for i := range d {
		d[i] = make([]float64, nn)
		for j := range d[i] {
			d[i][j] = math.Inf(1)
		}
	}
	for a := 0; a < n.NumArcs(); a++ {
		u, v, capacity, c := n.Arc(a)
		if capacity > Eps && c < d[u][v] {
			d[u][v] = c
		}
	}
	for k := 0; k < nn; k++ {
		for i := 0; i < nn; i++ {
			for j := 0; j < nn; j++ {
				if x := d[i][k] + d[k][j]; x < d[i][j] {
					d[i][j] = x
				}
			}
		}
	}
	for i := 0; i < nn; i++ {
		if d[i][i] < -1e-9 {
			return true
		}
	}
	return false
}

func relClose(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// gonumMaxFlow is gonum's Dinic on the same arcs (parallel arcs merged).
func gonumMaxFlow(n *Network, s, t int) float64 {
	g := simple.NewWeightedDirectedGraph(0, 0)
	for v := 0; v < n.NumNodes(); v++ {
		g.AddNode(simple.Node(v))
	}
	w := map[[2]int]float64{}
	var keys [][2]int
	for a := 0; a < n.NumArcs(); a++ {
		u, v, capacity, _ := n.Arc(a)
		if u == v || capacity <= 0 {
			continue
		}
		k := [2]int{u, v}
		if _, ok := w[k]; !ok {
			keys = append(keys, k)
		}
		w[k] += capacity
	}
	for _, k := range keys {
		g.SetWeightedEdge(g.NewWeightedEdge(simple.Node(k[0]), simple.Node(k[1]), w[k]))
	}
	return network.MaxFlowDinic(g, simple.Node(s), simple.Node(t), 1e-12)
}

// TestPropertyAgainstLP solves at least 600 random small networks of every
// kind with SSP and with the LP oracle and checks feasibility, equal optimal
// cost (1e-7 relative), equal routed amount, MaxFlow against the LP max flow
// and gonum's Dinic, the min cut, and that Decompose sums back to the flow.
func TestPropertyAgainstLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	ctx := context.Background()
	counts := map[string]int{}
	const total = 640
	for it := 0; it < total; it++ {
		k := kind(it % int(numKinds))
		nn := 2 + rng.IntN(8)
		m := nn + rng.IntN(3*nn+1)
		fractional := rng.IntN(2) == 0
		single := rng.IntN(3) != 0
		tight := rng.IntN(6) == 0
		n := randomNetwork(rng, k, nn, m, fractional, single, tight)
		tag := fmt.Sprintf("it %d %v n=%d m=%d frac=%v single=%v", it, k, nn, n.NumArcs(), fractional, single)

		sol, err := (&SSP{}).Solve(ctx, n)
		if errors.Is(err, ErrNegativeCycle) {
			if !hasNegativeCycle(n) {
				t.Fatalf("%s: ErrNegativeCycle without a negative cycle", tag)
			}
			var ce *NegativeCycleError
			if !errors.As(err, &ce) || len(ce.Arcs) == 0 {
				t.Fatalf("%s: %v is not a *NegativeCycleError", tag, err)
			}
			var cost float64
			for i, a := range ce.Arcs {
				_, v, capacity, c := n.Arc(a)
				u2, _, _, _ := n.Arc(ce.Arcs[(i+1)%len(ce.Arcs)])
				if v != u2 || capacity <= Eps {
					t.Fatalf("%s: reported cycle %v is not a cycle of usable arcs", tag, ce.Arcs)
				}
				cost += c
			}
			if cost >= 0 || !relClose(cost, ce.Cost, 1e-9) {
				t.Fatalf("%s: reported cycle cost %g (sum %g)", tag, ce.Cost, cost)
			}
			counts["negative-cycle"]++
			continue
		}
		if err != nil {
			t.Fatalf("%s: SSP: %v", tag, err)
		}
		if hasNegativeCycle(n) {
			t.Fatalf("%s: SSP missed a negative cycle", tag)
		}
		checkFeasible(t, n, sol, tag+" SSP")
		ref, err := LP{}.Solve(ctx, n)
		if err != nil {
			t.Fatalf("%s: LP: %v", tag, err)
		}
		checkFeasible(t, n, ref, tag+" LP")
		if sol.Partial != ref.Partial || !relClose(sol.Routed, ref.Routed, 1e-7) {
			t.Fatalf("%s: routed SSP %g (partial %v) LP %g (partial %v)", tag, sol.Routed, sol.Partial, ref.Routed, ref.Partial)
		}
		if !relClose(sol.Cost, ref.Cost, 1e-7) {
			t.Fatalf("%s: cost SSP %.12g LP %.12g", tag, sol.Cost, ref.Cost)
		}
		counts[k.String()]++
		if sol.Partial {
			counts["partial"]++
		} else {
			counts["feasible"]++
		}
		if fractional {
			counts["fractional"]++
		}

		// Max flow between the first supply and demand nodes.
		s, tt := -1, -1
		for v := 0; v < nn; v++ {
			if b := n.Supply(v); b > 0 && s < 0 {
				s = v
			} else if b < 0 && tt < 0 {
				tt = v
			}
		}
		value, side, err := MaxFlow(n, s, tt)
		if err != nil {
			t.Fatalf("%s: MaxFlow: %v", tag, err)
		}
		lpValue, err := lpMaxFlow(n, s, tt)
		if err != nil {
			t.Fatalf("%s: LP max flow: %v", tag, err)
		}
		if !relClose(value, lpValue, 1e-7) || !relClose(value, gonumMaxFlow(n, s, tt), 1e-7) {
			t.Fatalf("%s: MaxFlow %g, LP %g, gonum %g", tag, value, lpValue, gonumMaxFlow(n, s, tt))
		}
		if !side[s] || side[tt] {
			t.Fatalf("%s: min cut side s=%v t=%v", tag, side[s], side[tt])
		}
		var cut float64
		for a := 0; a < n.NumArcs(); a++ {
			u, v, capacity, _ := n.Arc(a)
			if side[u] && !side[v] {
				cut += capacity
			}
		}
		if !relClose(cut, value, 1e-7) {
			t.Fatalf("%s: cut capacity %g, max flow %g", tag, cut, value)
		}

		if single {
			checkDecompose(t, n, sol.Flow, 0, nn-1, tag)
			counts["decomposed"]++
		}
	}
	t.Logf("LP-checked networks by kind and feature: %v (of %d)", counts, total)
	if counts["partial"] == 0 || counts["negative-cycle"] == 0 || counts["feasible"] < 200 || counts["decomposed"] < 100 {
		t.Fatalf("generator lost coverage: %v", counts)
	}
}

// checkDecompose decomposes an s–t flow and checks the pieces: well-formed
// walks, positive amounts, s–t paths before cycles, and per-arc sums equal
// to the flow.
func checkDecompose(t *testing.T, n *Network, flow []float64, s, tt int, tag string) {
	t.Helper()
	paths, err := Decompose(n, flow, s, tt, 0)
	if err != nil {
		t.Fatalf("%s: Decompose: %v", tag, err)
	}
	sum := make([]float64, len(flow))
	seenCycle := false
	for i, p := range paths {
		if p.Amount <= 0 || len(p.Nodes) != len(p.Arcs)+1 || len(p.Arcs) == 0 {
			t.Fatalf("%s: path %d malformed: %+v", tag, i, p)
		}
		for j, a := range p.Arcs {
			u, v, _, _ := n.Arc(a)
			if u != p.Nodes[j] || v != p.Nodes[j+1] {
				t.Fatalf("%s: path %d arc %d does not join its nodes", tag, i, a)
			}
			sum[a] += p.Amount
		}
		if p.Cycle {
			seenCycle = true
			if p.Nodes[0] != p.Nodes[len(p.Nodes)-1] {
				t.Fatalf("%s: cycle %d not closed", tag, i)
			}
		} else {
			if seenCycle {
				t.Fatalf("%s: s–t path %d after a cycle", tag, i)
			}
			if p.Nodes[0] != s || p.Nodes[len(p.Nodes)-1] != tt {
				t.Fatalf("%s: path %d runs %d→%d", tag, i, p.Nodes[0], p.Nodes[len(p.Nodes)-1])
			}
		}
	}
	for a := range flow {
		if math.Abs(sum[a]-flow[a]) > 1e-9*float64(1+len(paths)) {
			t.Fatalf("%s: arc %d: paths sum to %g, flow %g", tag, a, sum[a], flow[a])
		}
	}
}
