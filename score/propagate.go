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
	phi, it, _, _ := sweeps(a, sweepSpec{r: r, alpha: c.PhiAlpha, phiTol: c.PhiTol, phiMax: c.PhiMaxIter}, nil)
	return phi, it
}

// parallelMinEdges is the fewest kept edges for which Config.Parallel
// starts a goroutine for PageRank: with the Go walks, at 1,000 nodes (8,000
// edges) the second goroutine cost more than it saved (8.7 vs 6.4 cosine
// passes at d = 100), at 10,000 nodes it saved about 15% when a core was
// free (6.4 vs 7.56). With the amd64 kernel one walk serves both signals
// at the cost of one (10,000 nodes: 6.45 split against 5.8 shared), so
// there the sweeps are never split. A variable for the tests.
var parallelMinEdges = splitSweepsFrom()

func splitSweepsFrom() int {
	if jointSweepFast {
		return math.MaxInt
	}
	return 1 << 15
}

// classicSignals computes φ (when withPhi) and ψ (when withPsi) in shared
// sweeps; see sweeps. A signal left out is nil with 0 sweeps. buf may be
// nil. With buf2 non-nil, both signals asked for and at least
// parallelMinEdges kept edges, φ and PageRank run on two goroutines,
// PageRank's working arrays from buf2; each signal's sums are the same as
// in the shared sweeps, so the values are identical.
func classicSignals(a *adjacency, r []float64, c Config, withPhi, withPsi bool, buf, buf2 *scratch) (phi []float64, phiIt int, psi []float64, psiIt int) {
	s := sweepSpec{damping: c.Damping, pprTol: c.PPRTol, pprMax: c.PPRMaxIter}
	if withPhi {
		s.r, s.alpha, s.phiTol, s.phiMax = r, c.PhiAlpha, c.PhiTol, c.PhiMaxIter
	}
	if withPsi {
		var pb []float64
		if buf != nil {
			pb = buf.pers
		}
		s.pers = personalisationBuf(r, c.Seeds, pb)
		if buf != nil && s.pers != nil {
			buf.pers = s.pers
		}
	}
	var x []float64
	if buf2 != nil && s.r != nil && s.pers != nil && len(a.up) >= parallelMinEdges {
		sPhi, sPPR := s, s
		sPhi.pers, sPPR.r = nil, nil
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _, x, psiIt = sweeps(a, sPPR, buf2)
		}()
		phi, phiIt, _, _ = sweeps(a, sPhi, buf)
		<-done
	} else {
		phi, phiIt, x, psiIt = sweeps(a, s, buf)
	}
	if withPsi {
		if x != nil {
			psi = maxNormalise(x) // x is ours: normalised in place
		} else {
			psi = make([]float64, len(r))
		}
	}
	return phi, phiIt, psi, psiIt
}
