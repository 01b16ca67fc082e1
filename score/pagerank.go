package score

import "math"

// pagerank is personalised PageRank as networkx 3.2 computes it (pagerank
// with personalization, weight="weight", dangling=None):
//
//	x ← d (xW + (Σ_{u dangling} x_u) p) + (1-d) p
//
// from x⁰ = 1/N, where W is the weight matrix of the pruned undirected
// graph row-normalised by each node's weight sum W_u, a dangling node is
// one whose kept edges weigh 0 in all, and p is the personalisation,
// summing to 1. It stops when Σ|Δx| < N·tol or after maxIter sweeps
// (networkx raises there; the last iterate is returned), and returns x and
// the number of sweeps.
//
// A sweep walks the edges as propagate does (each kept edge once, both
// directions, the state updated in place and still Jacobi), with st[v]
// holding y_v = x_v/W_v, what v sends along each unit of weight, and the
// part of Σ_u w_uv y_u gathered from lower neighbours.
func pagerank(a *adjacency, p []float64, d, tol float64, maxIter int) ([]float64, int) {
	n := len(p)
	x := make([]float64, n)
	st := make([][2]float64, n)
	tel := make([]float64, n) // (1-d) p_v
	invW := a.invW[:n]
	for v := range x {
		x[v] = 1 / float64(n)
		st[v][0] = x[v] * invW[v]
		tel[v] = (1 - d) * p[v]
	}
	uoff, up := a.uoff[:n+1], a.up
	it := 0
	for it < maxIter {
		it++
		dangling := 0.0
		for _, u := range a.dangling {
			dangling += x[u]
		}
		errSum := 0.0
		lo := uoff[0]
		for v := range st {
			hi := uoff[v+1]
			sv := &st[v]
			yv, sum := sv[0], sv[1]
			for _, e := range up[lo:hi] {
				su := &st[e.u]
				w := float64(e.w)
				sum += w * su[0]
				su[1] += w * yv
			}
			lo = hi
			nx := d*(sum+dangling*p[v]) + tel[v]
			errSum += math.Abs(nx - x[v])
			x[v] = nx
			sv[0], sv[1] = nx*invW[v], 0
		}
		if errSum < float64(n)*tol {
			break
		}
	}
	return x, it
}

// diffusion computes ψ (paper v1 §3.3): personalised PageRank with damping
// d, seeded at the top pprSeeds nodes by r with weight ∝ r, divided by its
// maximum so that it is commensurate with r and φ in [0,1]. When the seeds'
// relevance is all zero there is nothing to diffuse: ψ is 0 after 0 sweeps.
func diffusion(a *adjacency, r []float64, d float64) ([]float64, int) {
	p := personalisation(r, pprSeeds)
	if p == nil {
		return make([]float64, len(r)), 0
	}
	x, it := pagerank(a, p, d, pprTol, pprMaxIter)
	return maxNormalise(x), it
}

// personalisation is PageRank's p: r on the top k nodes by r, zero
// elsewhere, normalised to sum 1; nil when those nodes' r is all zero.
func personalisation(r []float64, k int) []float64 {
	top := topK(r, k, nil)
	sum := 0.0
	for _, v := range top {
		sum += r[v]
	}
	if sum <= 0 {
		return nil
	}
	p := make([]float64, len(r))
	for _, v := range top {
		p[v] = r[v]
	}
	sum = 0 // in index order
	for _, v := range p {
		sum += v
	}
	for _, v := range top {
		p[v] /= sum
	}
	return p
}

// maxNormalise divides x by its maximum in place (sets it to zero when the
// maximum is not positive) and returns it.
func maxNormalise(x []float64) []float64 {
	m := 0.0
	for _, v := range x {
		if v > m { // x holds no NaN
			m = v
		}
	}
	if m > 0 {
		for i, v := range x {
			x[i] = v / m
		}
	} else {
		clear(x)
	}
	return x
}
