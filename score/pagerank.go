package score

import "math"

// pagerank is personalised PageRank as networkx 3.2 computes it
// (pagerank with personalization, weight="weight", dangling=None):
//
//	x ← d (xW + (Σ_{u dangling} x_u) p) + (1-d) p
//
// from x⁰ = 1/N, where W is the weight matrix of the pruned undirected graph
// (both directions) row-normalised by each node's weight sum, a dangling
// node is one whose kept edges weigh 0 in total, and p is the
// personalisation normalised to sum 1. It stops when Σ|Δx| < N·tol or after
// maxIter sweeps (networkx raises there; we return the last iterate). It
// returns x and the number of sweeps; p must not be all zero.
func pagerank(a *adjacency, p []float64, d, tol float64, maxIter int) ([]float64, int) {
	n := len(p)
	ps := 0.0
	for _, v := range p {
		ps += v
	}
	pn := make([]float64, n)
	for i, v := range p {
		pn[i] = v / ps
	}
	x := make([]float64, n)
	next := make([]float64, n)
	y := make([]float64, n) // x_u / W_u, the mass each neighbour receives per unit weight
	for i := range x {
		x[i] = 1 / float64(n)
	}
	it := 0
	for it < maxIter {
		it++
		dangling := 0.0
		for u := range x {
			if a.wsum[u] > 0 {
				y[u] = x[u] / a.wsum[u]
			} else {
				y[u] = 0
				dangling += x[u]
			}
		}
		err := 0.0
		lo := a.off[0]
		for v := 0; v < n; v++ {
			hi := a.off[v+1]
			adj := a.adj[lo:hi]
			w := a.w[lo:hi]
			w = w[:len(adj)]
			s0, s1 := 0.0, 0.0
			k := 0
			for ; k+1 < len(adj); k += 2 {
				s0 += w[k] * y[adj[k]]
				s1 += w[k+1] * y[adj[k+1]]
			}
			if k < len(adj) {
				s0 += w[k] * y[adj[k]]
			}
			lo = hi
			nv := d*(s0+s1+dangling*pn[v]) + (1-d)*pn[v]
			next[v] = nv
			err += math.Abs(nv - x[v])
		}
		x, next = next, x
		if err < float64(n)*tol {
			break
		}
	}
	return x, it
}

// diffusion computes ψ: personalised PageRank seeded at the top `seeds`
// nodes by r with weight ∝ r, normalised by its maximum. When the seeds'
// relevance is all zero there is nothing to diffuse and ψ is 0.
func diffusion(a *adjacency, r []float64, c Config) ([]float64, int) {
	n := len(r)
	psi := make([]float64, n)
	top := topK(r, c.Seeds, nil)
	p := make([]float64, n)
	sum := 0.0
	for _, v := range top {
		p[v] = r[v]
		sum += r[v]
	}
	if sum <= 0 {
		return psi, 0
	}
	x, it := pagerank(a, p, c.Damping, c.PPRTol, c.PPRMaxIter)
	m := 0.0
	for _, v := range x {
		m = math.Max(m, v)
	}
	if m > 0 {
		for i, v := range x {
			psi[i] = v / m
		}
	}
	return psi, it
}
