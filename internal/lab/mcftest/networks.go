// Package mcftest holds the test helpers of package mcf and of its users: the
// LP oracle [LP], generators of random and FlowReader-shaped networks, and
// checks of feasibility and of the optimality certificate.
package mcftest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
)

// Kind is a family of random test networks.
type Kind int

const (
	DAGNegative     Kind = iota // DAG, costs of both signs
	CyclicPositive              // cycles, non-negative costs
	CyclicPotential             // cycles, negative costs but no negative cycle
	CyclicAny                   // cycles, costs of both signs (negative cycles likely)
	NumKinds                    // the number of kinds
)

func (k Kind) String() string {
	return [...]string{"dag-negative", "cyclic-positive", "cyclic-potential", "cyclic-any"}[k]
}

// RandomNetwork builds a network of the given kind. Supplies sit on a few
// nodes; with single they sit on node 0 (supply) and nn-1 (demand) only.
// fractional draws real-valued capacities and supplies; tight makes the
// supply large relative to capacities, so some instances are infeasible.
func RandomNetwork(rng *rand.Rand, k Kind, nn, m int, fractional, single, tight bool) *mcf.Network {
	n := mcf.NewNetwork(nn)
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
		if k == DAGNegative {
			if u == v {
				continue
			}
			if rank[u] > rank[v] {
				u, v = v, u
			}
		}
		var c float64
		switch k {
		case DAGNegative:
			c = num(-10, 10)
		case CyclicPositive:
			c = num(0, 10)
		case CyclicPotential:
			c = num(0, 10) + pot[u] - pot[v]
		case CyclicAny:
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

// CheckFeasible checks capacity bounds and conservation (exact for a full
// solution; for a partial one each node's net outflow lies between 0 and
// its supply) within Eps-scaled tolerances, and that Cost matches the flow.
func CheckFeasible(t testing.TB, n *mcf.Network, sol *mcf.Solution, tag string) {
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

// RelClose reports |a-b| ≤ rel·max(1, |a|, |b|).
func RelClose(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// AspectsNetwork builds a network shaped like FlowReader's aspect network
// (paper v3 §3.3, Eq. 7): s→v for every content
// node (cost 1-h, cap 1), content arcs oriented toward higher h with costs
// of both signs (cap 1), v→a for every node and aspect (cost κ(1-c), cap 1),
// a→t with capacities d_a summing to F0; s supplies F0. Returns s and t.
func AspectsNetwork(rng *rand.Rand, N, A int, F0 float64) (n *mcf.Network, s, t int) {
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
	n = mcf.NewNetwork(N + A + 2)
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

// CheckCertificate verifies optimality without a second solver: in the
// residual network extended by S and T (arcs S→v with the unrouted supply
// and v→S with the routed one, likewise for T), a minimum-cost flow of its
// value has no negative-cost cycle, and a partial solution leaves no S–T
// path. Bellman–Ford ignores improvements below a relative 1e-9.
func CheckCertificate(t testing.TB, n *mcf.Network, sol *mcf.Solution, tag string) {
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
		if f < capacity-mcf.Eps {
			arcs = append(arcs, arc{u, v, c})
		}
		if f > mcf.Eps {
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
			if b-out[v] > mcf.Eps {
				arcs = append(arcs, arc{S, v, 0})
			}
			if out[v] > mcf.Eps {
				arcs = append(arcs, arc{v, S, 0})
			}
		case b < 0:
			if out[v]-b > mcf.Eps {
				arcs = append(arcs, arc{v, T, 0})
			}
			if -out[v] > mcf.Eps {
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

// TransshipmentNetwork builds a NETGEN-like transshipment network: √n
// sources and as many sinks sharing 1000·√n units of supply, a feasible
// skeleton (each source's supply runs along its own chain of transshipment
// nodes and ends at one to four sinks), then random arcs up to 8n in all,
// with costs in 1..10^4 and capacities in 1..10^3 (skeleton arcs at least
// the flow they must carry).
func TransshipmentNetwork(rng *rand.Rand, nodes int) *mcf.Network {
	ns := max(1, int(math.Round(math.Sqrt(float64(nodes)))))
	n := mcf.NewNetwork(nodes)
	trans := rng.Perm(nodes - 2*ns)
	chain := len(trans) / ns
	total := 1000 * ns
	left := total
	type key struct{ u, v int }
	need := map[key]int{}
	var order []key
	put := func(u, v, f int) {
		k := key{u, v}
		if _, ok := need[k]; !ok {
			order = append(order, k)
		}
		need[k] += f
	}
	for s := 0; s < ns; s++ {
		sup := left
		if s < ns-1 {
			sup = rng.IntN(2*total/ns + 1)
			sup = min(sup, left)
		}
		left -= sup
		n.SetSupply(s, float64(sup))
		prev := s
		for _, v := range trans[s*chain : (s+1)*chain] {
			put(prev, 2*ns+v, sup)
			prev = 2*ns + v
		}
		k := 1 + rng.IntN(4)
		for i := 0; i < k && sup > 0; i++ {
			amt := sup
			if i < k-1 {
				amt = rng.IntN(sup + 1)
			}
			sup -= amt
			t := ns + rng.IntN(ns)
			put(prev, t, amt)
			n.SetSupply(t, n.Supply(t)-float64(amt))
		}
	}
	seen := map[key]bool{}
	for _, k := range order {
		seen[k] = true
		n.AddArc(k.u, k.v, float64(max(need[k], 1+rng.IntN(1000))), float64(1+rng.IntN(10000)))
	}
	for tries := 0; n.NumArcs() < 8*nodes && tries < 160*nodes; tries++ {
		k := key{rng.IntN(nodes), rng.IntN(nodes)}
		if k.u == k.v || seen[k] {
			continue
		}
		seen[k] = true
		n.AddArc(k.u, k.v, float64(1+rng.IntN(1000)), float64(1+rng.IntN(10000)))
	}
	return n
}
