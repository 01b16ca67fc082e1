package score

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
	ps := 0.0
	for _, v := range p {
		ps += v
	}
	pn := make([]float64, len(p))
	for i, v := range p {
		pn[i] = v / ps
	}
	_, _, x, it := sweeps(a, sweepSpec{pers: pn, damping: d, pprTol: tol, pprMax: maxIter}, nil)
	return x, it
}

// diffusion computes ψ: personalised PageRank seeded at the top `seeds`
// nodes by r with weight ∝ r, normalised by its maximum. When the seeds'
// relevance is all zero there is nothing to diffuse and ψ is 0.
func diffusion(a *adjacency, r []float64, c Config) ([]float64, int) {
	_, _, psi, it := classicSignals(a, r, c, false, true, nil, nil)
	return psi, it
}

// personalisation is PageRank's p: r on the top `seeds` nodes by r, zero
// elsewhere, normalised to sum 1; nil when those nodes' r is all zero.
func personalisation(r []float64, seeds int) []float64 {
	return personalisationBuf(r, seeds, nil)
}

// personalisationBuf is personalisation writing into buf when it is long
// enough (cleared first), allocating otherwise.
func personalisationBuf(r []float64, seeds int, buf []float64) []float64 {
	top := topK(r, seeds, nil)
	sum := 0.0
	for _, v := range top {
		sum += r[v]
	}
	if sum <= 0 {
		return nil
	}
	p := grow(buf, len(r))
	clear(p)
	for _, v := range top {
		p[v] = r[v]
	}
	sum = 0 // in index order, as pagerank normalises
	for _, v := range p {
		sum += v
	}
	for _, v := range top {
		p[v] /= sum
	}
	return p
}

// maxNormalised returns x divided by its maximum (all zero when x is nil or
// its maximum is not positive), as a slice of n values.
func maxNormalised(x []float64, n int) []float64 {
	out := make([]float64, n)
	copy(out, x)
	return maxNormalise(out)
}

// maxNormalise divides x by its maximum in place (sets it to zero when the
// maximum is not positive) and returns it.
func maxNormalise(x []float64) []float64 {
	m := 0.0
	for _, v := range x {
		if v > m { // rarely taken: cheaper than a max chain (x holds no NaN)
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
