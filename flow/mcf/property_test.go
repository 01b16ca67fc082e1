package mcf_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"
)

// hasNegativeCycle is an independent Floyd–Warshall check over arcs of
// positive capacity.
func hasNegativeCycle(n *mcf.Network) bool {
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
		if capacity > mcf.Eps && c < d[u][v] {
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

// gonumMaxFlow is gonum's Dinic on the same arcs (parallel arcs merged).
func gonumMaxFlow(n *mcf.Network, s, t int) float64 {
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
		k := mcftest.Kind(it % int(mcftest.NumKinds))
		nn := 2 + rng.IntN(8)
		m := nn + rng.IntN(3*nn+1)
		fractional := rng.IntN(2) == 0
		single := rng.IntN(3) != 0
		tight := rng.IntN(6) == 0
		n := mcftest.RandomNetwork(rng, k, nn, m, fractional, single, tight)
		tag := fmt.Sprintf("it %d %v n=%d m=%d frac=%v single=%v", it, k, nn, n.NumArcs(), fractional, single)

		sol, err := (&mcf.SSP{}).Solve(ctx, n)
		var ce *mcf.NegativeCycleError
		if errors.As(err, &ce) {
			if !hasNegativeCycle(n) {
				t.Fatalf("%s: NegativeCycleError without a negative cycle", tag)
			}
			if len(ce.Arcs) == 0 {
				t.Fatalf("%s: %v lists no arcs", tag, err)
			}
			var cost float64
			for i, a := range ce.Arcs {
				_, v, capacity, c := n.Arc(a)
				u2, _, _, _ := n.Arc(ce.Arcs[(i+1)%len(ce.Arcs)])
				if v != u2 || capacity <= mcf.Eps {
					t.Fatalf("%s: reported cycle %v is not a cycle of usable arcs", tag, ce.Arcs)
				}
				cost += c
			}
			if cost >= 0 || !mcftest.RelClose(cost, ce.Cost, 1e-9) {
				t.Fatalf("%s: reported cycle cost %g (sum %g)", tag, ce.Cost, cost)
			}
			counts["negative-cycle"]++
			continue
		}
		if err != nil {
			t.Fatalf("%s: mcf.SSP: %v", tag, err)
		}
		if hasNegativeCycle(n) {
			t.Fatalf("%s: mcf.SSP missed a negative cycle", tag)
		}
		mcftest.CheckFeasible(t, n, sol, tag+" mcf.SSP")
		ref, err := mcftest.LP{}.Solve(ctx, n)
		if err != nil {
			t.Fatalf("%s: mcftest.LP: %v", tag, err)
		}
		mcftest.CheckFeasible(t, n, ref, tag+" mcftest.LP")
		if sol.Partial != ref.Partial || !mcftest.RelClose(sol.Routed, ref.Routed, 1e-7) {
			t.Fatalf("%s: routed mcf.SSP %g (partial %v) mcftest.LP %g (partial %v)", tag, sol.Routed, sol.Partial, ref.Routed, ref.Partial)
		}
		if !mcftest.RelClose(sol.Cost, ref.Cost, 1e-7) {
			t.Fatalf("%s: cost mcf.SSP %.12g mcftest.LP %.12g", tag, sol.Cost, ref.Cost)
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
		value, side, err := mcf.MaxFlow(n, s, tt)
		if err != nil {
			t.Fatalf("%s: mcf.MaxFlow: %v", tag, err)
		}
		lpValue, err := mcftest.MaxFlowLP(n, s, tt)
		if err != nil {
			t.Fatalf("%s: mcftest.LP max flow: %v", tag, err)
		}
		if !mcftest.RelClose(value, lpValue, 1e-7) || !mcftest.RelClose(value, gonumMaxFlow(n, s, tt), 1e-7) {
			t.Fatalf("%s: mcf.MaxFlow %g, mcftest.LP %g, gonum %g", tag, value, lpValue, gonumMaxFlow(n, s, tt))
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
		if !mcftest.RelClose(cut, value, 1e-7) {
			t.Fatalf("%s: cut capacity %g, max flow %g", tag, cut, value)
		}

		if single {
			checkDecompose(t, n, sol.Flow, 0, nn-1, tag)
			counts["decomposed"]++
		}
	}
	t.Logf("mcftest.LP-checked networks by mcftest.Kind and feature: %v (of %d)", counts, total)
	if counts["partial"] == 0 || counts["negative-cycle"] == 0 || counts["feasible"] < 200 || counts["decomposed"] < 100 {
		t.Fatalf("generator lost coverage: %v", counts)
	}
}

// checkDecompose decomposes an s–t flow and checks the pieces: well-formed
// walks, positive amounts, s–t paths before cycles, and per-arc sums equal
// to the flow.
func checkDecompose(t *testing.T, n *mcf.Network, flow []float64, s, tt int, tag string) {
	t.Helper()
	paths, err := mcf.Decompose(n, flow, s, tt, 0)
	if err != nil {
		t.Fatalf("%s: mcf.Decompose: %v", tag, err)
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
