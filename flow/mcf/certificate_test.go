package mcf

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// aspectsNetwork builds a network shaped like FlowReader's aspect network
// (METHOD B.7, and /work/shared/bench/gen_aspects.py): s→v for every content
// node (cost 1-h, cap 1), content arcs oriented toward higher h with costs
// of both signs (cap 1), v→a for every node and aspect (cost κ(1-c), cap 1),
// a→t with capacities d_a summing to F0; s supplies F0. Returns s and t.
func aspectsNetwork(rng *rand.Rand, N, A int, F0 float64) (n *Network, s, t int) {
	h := make([]float64, N)
	mx := 0.0
	for i := range h {
		h[i] = math.Pow(rng.Float64(), 2.5) // skewed towards 0 like Beta(2,5)
		mx = math.Max(mx, h[i])
	}
	var hbar float64
	for i := range h {
		h[i] /= mx
		hbar += h[i] / float64(N)
	}
	n = NewNetwork(N + A + 2)
	s, t = N+A, N+A+1
	k := max(3, min(32, int(math.Ceil(math.Log2(float64(N))))))
	for u := 0; u < N; u++ {
		for j := 0; j < k/2+1; j++ {
			v := (u + 1 + rng.IntN(50)) % N
			if rng.IntN(5) == 0 {
				v = rng.IntN(N)
			}
			if u == v {
				continue
			}
			a, b := u, v
			if h[a] > h[b] || (h[a] == h[b] && a > b) {
				a, b = b, a
			}
			cos := 0.2 + 0.7*rng.Float64()
			p := math.Min(1, 1.4*cos*math.Sqrt(1-cos*cos))
			w := (1 - p) - (h[b] - h[a]) - (cos*h[b] - hbar)
			n.AddArc(a, b, 1, w)
		}
	}
	for v := 0; v < N; v++ {
		n.AddArc(s, v, 1, 1-h[v])
	}
	sig := make([]float64, A)
	var tot float64
	for a := range sig {
		x := math.Pow(rng.Float64(), 3)
		sig[a] = x
		tot += x * x
	}
	for v := 0; v < N; v++ {
		for a := 0; a < A; a++ {
			c := math.Max(0, math.Min(1, 0.3+0.2*rng.NormFloat64()))
			n.AddArc(v, N+a, 1, 1.3*(1-c))
		}
	}
	for a := 0; a < A; a++ {
		n.AddArc(N+a, t, F0*sig[a]*sig[a]/tot, 0)
	}
	n.SetSupply(s, F0)
	n.SetSupply(t, -F0)
	return n, s, t
}

// checkCertificate verifies optimality without a second solver: in the
// residual network extended by S and T (arcs S→v with the unrouted supply
// and v→S with the routed one, likewise for T), a minimum-cost flow of its
// value has no negative-cost cycle, and a partial solution leaves no S–T
// path. Bellman–Ford ignores improvements below a relative 1e-9.
func checkCertificate(t *testing.T, n *Network, sol *Solution, tag string) {
	t.Helper()
	nn := n.NumNodes()
	S, T := nn, nn+1
	type arc struct {
		u, v int
		c    float64
	}
	var arcs []arc
	var scale float64
	for a, f := range sol.Flow {
		u, v, capacity, c := n.Arc(a)
		scale = math.Max(scale, math.Abs(c))
		if f < capacity-Eps {
			arcs = append(arcs, arc{u, v, c})
		}
		if f > Eps {
			arcs = append(arcs, arc{v, u, -c})
		}
	}
	out := make([]float64, nn)
	for a, f := range sol.Flow {
		u, v, _, _ := n.Arc(a)
		out[u] += f
		out[v] -= f
	}
	for v := 0; v < nn; v++ {
		b := n.Supply(v)
		switch {
		case b > 0:
			if b-out[v] > Eps {
				arcs = append(arcs, arc{S, v, 0})
			}
			if out[v] > Eps {
				arcs = append(arcs, arc{v, S, 0})
			}
		case b < 0:
			if out[v]-b > Eps {
				arcs = append(arcs, arc{v, T, 0})
			}
			if -out[v] > Eps {
				arcs = append(arcs, arc{T, v, 0})
			}
		}
	}
	dist := make([]float64, nn+2)
	tol := 1e-9 * math.Max(1, scale)
	for round := 0; ; round++ {
		changed := false
		for _, a := range arcs {
			if d := dist[a.u] + a.c; d < dist[a.v]-tol {
				dist[a.v] = d
				changed = true
			}
		}
		if !changed {
			break
		}
		if round > nn+2 {
			t.Fatalf("%s: residual network has a negative cycle: not optimal", tag)
		}
	}
	if sol.Partial {
		reach := make([]bool, nn+2)
		reach[S] = true
		for changed := true; changed; {
			changed = false
			for _, a := range arcs {
				if reach[a.u] && !reach[a.v] {
					reach[a.v] = true
					changed = true
				}
			}
		}
		if reach[T] {
			t.Fatalf("%s: partial solution leaves an augmenting S–T path", tag)
		}
	}
}

// TestCertificateLarger checks feasibility and the optimality certificate on
// networks too large for the LP oracle: aspects-shaped DAGs with fractional
// capacities and random networks of every kind with hundreds of nodes.
func TestCertificateLarger(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	sizes := []int{50, 200, 1000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	checked := 0
	for _, N := range sizes {
		for rep := 0; rep < 4; rep++ {
			n, _, _ := aspectsNetwork(rng, N, 8, 16)
			tag := fmt.Sprintf("aspects N=%d rep=%d", N, rep)
			sol, err := (&SSP{}).Solve(ctx, n)
			if err != nil {
				t.Fatalf("%s: %v", tag, err)
			}
			checkFeasible(t, n, sol, tag)
			checkCertificate(t, n, sol, tag)
			single, err := (&SSP{SinglePath: true}).Solve(ctx, n)
			if err != nil || !relClose(single.Cost, sol.Cost, 1e-9) {
				t.Fatalf("%s: single-path cost %v vs %v (%v)", tag, single.Cost, sol.Cost, err)
			}
			checked++
		}
	}
	for it := 0; it < 40; it++ {
		k := kind(it % 3) // no cyclicAny: negative cycles are certain at this size
		nn := 100 + rng.IntN(300)
		n := randomNetwork(rng, k, nn, 4*nn, it%2 == 0, it%3 == 0, it%4 == 0)
		tag := fmt.Sprintf("random it=%d %v n=%d", it, k, nn)
		sol, err := (&SSP{}).Solve(ctx, n)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		checkFeasible(t, n, sol, tag)
		checkCertificate(t, n, sol, tag)
		checked++
	}
	t.Logf("certificate-checked networks: %d", checked)
}
