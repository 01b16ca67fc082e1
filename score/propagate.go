package score

import "math"

// propagate computes φ (paper v1 §3.3, Eq. 4) by Jacobi iteration from
// φ⁰ = r:
//
//	φ_v ← (1-α_φ) r_v + α_φ Σ_{u∈N(v)} p_uv φ_u / (Σ_{u∈N(v)} p_uv + ε)
//
// over the pruned undirected graph, reading Eq. 4's pred(v) as every kept
// neighbour N(v). Each sweep is a convex combination of r and φ with
// weights summing below 1, so φ stays in [0,1] and the map contracts with
// factor ≤ α_φ: it converges. It stops when max|Δφ| < tol or after maxIter
// sweeps, and returns φ and the number of sweeps.
//
// A sweep reads each kept edge {v,u} (v < u) once, from v, for both
// directions: it adds p·φ_u to v's sum and p·φ_v to u's, so that the edge
// list is streamed once rather than twice. st[v] holds φ_v and the part of
// v's sum gathered from lower neighbours. Walking v upwards, u's sum is
// complete when the walk reaches u, and φ_u is read only by u and by lower
// nodes, all before u is updated: updating st in place still gives Jacobi
// sweeps, each reading only the previous sweep's values. Each node's sum
// adds its terms in ascending order of u, so the result is deterministic.
func propagate(a *adjacency, r []float64, alpha, tol float64, maxIter int) ([]float64, int) {
	n := len(r)
	st := make([][2]float64, n)
	base := make([]float64, n) // (1-α_φ) r_v
	for v, rv := range r {
		st[v][0] = rv
		base[v] = (1 - alpha) * rv
	}
	uoff, up, invP := a.uoff[:n+1], a.up, a.invP[:n]
	it := 0
	for it < maxIter {
		it++
		delta := 0.0
		lo := uoff[0]
		for v := range st {
			hi := uoff[v+1]
			sv := &st[v]
			fv, sum := sv[0], sv[1]
			for _, e := range up[lo:hi] {
				su := &st[e.u]
				sum += e.p * su[0]
				su[1] += e.p * fv
			}
			lo = hi
			f := base[v] + alpha*(sum*invP[v])
			if d := math.Abs(f - fv); d > delta {
				delta = d
			}
			sv[0], sv[1] = f, 0
		}
		if delta < tol {
			break
		}
	}
	phi := make([]float64, n)
	for v := range phi {
		phi[v] = st[v][0]
	}
	return phi, it
}
