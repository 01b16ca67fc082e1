package score

import "math"

// propagate computes φ (METHOD A.1, Eq. 4) by Jacobi iteration from φ⁰ = r:
//
//	φ_v ← (1-α_φ) r_v + α_φ Σ_{u∈N(v)} p_uv φ_u / (Σ_{u∈N(v)} p_uv + ε)
//
// over the pruned undirected graph, where pred(v) is read as every kept
// neighbour N(v). Each sweep is a convex combination of r and φ with
// weights summing below 1, so φ stays in [0,1] and the map contracts with
// factor ≤ α_φ: it converges. It returns φ and the number of sweeps.
func propagate(a *adjacency, r []float64, c Config) ([]float64, int) {
	n := len(r)
	phi := make([]float64, n)
	next := make([]float64, n)
	copy(phi, r)
	it := 0
	for it < c.PhiMaxIter {
		it++
		delta := 0.0
		lo := a.off[0]
		for v := 0; v < n; v++ {
			hi := a.off[v+1]
			adj := a.adj[lo:hi]
			pn := a.pn[lo:hi]
			pn = pn[:len(adj)]
			// Two partial sums break the add dependency chain.
			s0, s1 := 0.0, 0.0
			k := 0
			for ; k+1 < len(adj); k += 2 {
				s0 += pn[k] * phi[adj[k]]
				s1 += pn[k+1] * phi[adj[k+1]]
			}
			if k < len(adj) {
				s0 += pn[k] * phi[adj[k]]
			}
			x := (1-c.PhiAlpha)*r[v] + c.PhiAlpha*(s0+s1)
			next[v] = x
			if d := math.Abs(x - phi[v]); d > delta {
				delta = d
			}
			lo = hi
		}
		phi, next = next, phi
		if delta < c.PhiTol {
			break
		}
	}
	return phi, it
}
