package score

import "math"

// sweepSpec says which of the two classic iterations to run and with which
// constants; a nil r or p leaves that iteration out.
type sweepSpec struct {
	r      []float64 // φ⁰ = r and Eq. 4's anchor
	alpha  float64   // α_φ
	phiTol float64   // φ stops at max|Δφ| < phiTol
	phiMax int       // ... or after phiMax sweeps
	p      []float64 // PageRank's personalisation, summing to 1
	d      float64   // PageRank's damping
	pprTol float64   // PageRank stops at Σ|Δx| < N·pprTol
	pprMax int       // ... or after pprMax sweeps
}

// sweeps runs, side by side, the Jacobi iteration of φ (paper v1 §3.3,
// Eq. 4) from φ⁰ = r,
//
//	φ_v ← (1-α_φ) r_v + α_φ Σ_{u∈N(v)} p_uv φ_u / (Σ_{u∈N(v)} p_uv + ε)
//
// over the pruned undirected graph, reading Eq. 4's pred(v) as every kept
// neighbour N(v), and personalised PageRank as networkx 3.2 computes it
// (pagerank with personalization, weight="weight", dangling=None),
//
//	x ← d (xW + (Σ_{u dangling} x_u) p) + (1-d) p
//
// from x⁰ = 1/N, where W is the weight matrix row-normalised by each node's
// weight sum W_u and a dangling node is one whose kept edges weigh 0 in
// all. Each sweep of φ is a convex combination of r and φ with weights
// summing below 1, so φ stays in [0,1] and the map contracts with factor
// ≤ α_φ: it converges. Each iteration stops by its own rule (networkx
// raises after its maximum; the last iterate is returned). It returns φ
// and x (nil when left out) and their sweep counts.
//
// Both are products with the same sparse pattern, so one walk over the
// edges serves both: each kept edge {v,u} (v < u) is read once, from v,
// for both directions and both iterations, adding p·φ_u and w·y_u to v's
// sums and p·φ_v and w·y_v to u's, with y_u = x_u/W_u. The two sums of a
// node are independent chains of additions, so serving both costs little
// more than serving one. st[v] holds φ_v, y_v and the parts of v's two
// sums gathered from lower neighbours. Walking v upwards, u's sums are
// complete when the walk reaches u, and u's values are read only by u and
// by lower nodes, all before u is updated: updating st in place still
// gives Jacobi sweeps, each reading only the previous sweep's values. Each
// sum adds its terms in ascending order of u, so the results are
// deterministic. Once one iteration has stopped, the walk goes on for the
// other; the stopped one's further values are not read.
//
// The working arrays come from buf (nil: allocated); the returned slices
// are the caller's.
func sweeps(a *adjacency, s sweepSpec, buf *scratch) (phi []float64, phiIt int, x []float64, xIt int) {
	if buf == nil {
		buf = &scratch{}
	}
	n := len(a.invP)
	buf.st = grow(buf.st, n)
	buf.base, buf.tel, buf.p, buf.x = grow(buf.base, n), grow(buf.tel, n), grow(buf.p, n), grow(buf.x, n)
	st := buf.st     // φ_v, y_v and the two sums from lower neighbours
	base := buf.base // (1-α_φ) r_v
	tel := buf.tel   // (1-d) p_v
	p := buf.p
	x = buf.x
	clear(st)
	clear(base)
	clear(tel)
	clear(p)
	clear(x)
	invP, invW := a.invP[:n], a.invW[:n]
	if s.r != nil {
		for v, rv := range s.r[:n] {
			st[v][0] = rv
			base[v] = (1 - s.alpha) * rv
		}
	}
	if s.p != nil {
		copy(p, s.p)
		for v := range x {
			x[v] = 1 / float64(n)
			st[v][1] = x[v] * invW[v]
			tel[v] = (1 - s.d) * p[v]
		}
	}
	uoff, up := a.uoff[:n+1], a.up
	alpha, d := s.alpha, s.d
	phiOn, xOn := s.r != nil, s.p != nil
	var xDone []float64
	for phiOn || xOn {
		dangling := 0.0
		for _, u := range a.dangling {
			dangling += x[u]
		}
		delta, errSum := 0.0, 0.0
		lo := uoff[0]
		for v := range st {
			hi := uoff[v+1]
			sv := &st[v]
			fv, yv, sf, sy := sv[0], sv[1], sv[2], sv[3]
			for _, e := range up[lo:hi] {
				su := &st[e.u]
				w := float64(e.w)
				sf += e.p * su[0]
				sy += w * su[1]
				su[2] += e.p * fv
				su[3] += w * yv
			}
			lo = hi
			nf := base[v] + alpha*(sf*invP[v])
			if dd := math.Abs(nf - fv); dd > delta {
				delta = dd
			}
			nx := d*(sy+dangling*p[v]) + tel[v]
			errSum += math.Abs(nx - x[v])
			x[v] = nx
			sv[0], sv[1], sv[2], sv[3] = nf, nx*invW[v], 0, 0
		}
		if phiOn {
			phiIt++
			if delta < s.phiTol || phiIt >= s.phiMax {
				phiOn = false
				phi = make([]float64, n)
				for v := range phi {
					phi[v] = st[v][0]
				}
			}
		}
		if xOn {
			xIt++
			if errSum < float64(n)*s.pprTol || xIt >= s.pprMax {
				xOn = false
				xDone = append([]float64(nil), x...)
			}
		}
	}
	return phi, phiIt, xDone, xIt
}

// classicSignals computes φ (when withPhi) and ψ (when withPsi) for the
// relevance r (paper v1 §3.3). ψ is personalised PageRank with damping d,
// seeded at the top pprSeeds nodes by r with weight ∝ r, divided by its
// maximum so that it is commensurate with r and φ in [0,1]; when the
// seeds' relevance is all zero there is nothing to diffuse and ψ is 0
// after 0 sweeps. A signal left out is nil after 0 sweeps. buf is as for
// sweeps.
func classicSignals(a *adjacency, r []float64, alpha, d float64, withPhi, withPsi bool, buf *scratch) (phi []float64, phiIt int, psi []float64, psiIt int) {
	s := sweepSpec{alpha: alpha, phiTol: phiTol, phiMax: phiMaxIter, d: d, pprTol: pprTol, pprMax: pprMaxIter}
	if withPhi {
		s.r = r
	}
	if withPsi {
		s.p = personalisation(r, pprSeeds)
	}
	phi, phiIt, x, psiIt := sweeps(a, s, buf)
	if withPsi {
		if x != nil {
			psi = maxNormalise(x)
		} else {
			psi = make([]float64, len(r))
		}
	}
	return phi, phiIt, psi, psiIt
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
