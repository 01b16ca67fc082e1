package score

import (
	"fmt"
	"reflect"
	"testing"
)

// TestParallelIdentical checks that Config.Parallel changes nothing in the
// scores (bit for bit), on graphs with isolated and dangling nodes too, and
// that both sweep kernels give the same values for φ and PageRank run
// separately as run together.
func TestParallelIdentical(t *testing.T) {
	defer func(m int) { parallelMinEdges = m }(parallelMinEdges)
	parallelMinEdges = 0 // the test graphs are small
	for seed := uint64(1); seed <= 20; seed++ {
		for _, rmin := range []float64{0.22, 0.5} {
			name := fmt.Sprintf("seed%d/rmin%v", seed, rmin)
			n := 30 + int(seed*13)%200
			g := randomGraph(t, seed, n, 6, 2*n)
			c := ClassicConfig()
			c.RMin = rmin
			ix := NewIndex(g)
			serial, err := (&Scorer{Config: c, Index: ix}).ScoreVector(g, "flow graph table", randomQuery(seed, 6))
			if err != nil {
				t.Fatal(err)
			}
			c.Parallel = true
			par, err := (&Scorer{Config: c, Index: ix}).ScoreVector(g, "flow graph table", randomQuery(seed, 6))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(serial, par) {
				t.Fatalf("%s: Parallel changes the scores", name)
			}
			a := ix.adjacency(c.RMin, c.PhiEps)
			spec := sweepSpec{r: serial.R, alpha: c.PhiAlpha, phiTol: c.PhiTol, phiMax: c.PhiMaxIter,
				pers: personalisation(serial.R, c.Seeds), damping: c.Damping, pprTol: c.PPRTol, pprMax: c.PPRMaxIter}
			if spec.pers == nil {
				continue
			}
			sPhi, sPPR := spec, spec
			sPhi.pers, sPPR.r = nil, nil
			for _, kr := range []struct {
				name string
				f    func(*adjacency, sweepSpec, *scratch) ([]float64, int, []float64, int)
			}{{"edge-once", sweepsEdgeOnce}, {"csr", sweepsCSR}} {
				phi, pit, x, xit := kr.f(a, spec, &scratch{})
				phi1, pit1, _, _ := kr.f(a, sPhi, &scratch{})
				_, _, x1, xit1 := kr.f(a, sPPR, &scratch{})
				if !reflect.DeepEqual(phi, phi1) || pit != pit1 || !reflect.DeepEqual(x, x1) || xit != xit1 {
					t.Fatalf("%s: %s: φ or PageRank alone differs from both together", name, kr.name)
				}
				if kr.name != "edge-once" {
					continue
				}
				phi2, pit2, _, _ := sweepsEdgeOnceOne(a, sPhi, &scratch{})
				_, _, x2, xit2 := sweepsEdgeOnceOne(a, sPPR, &scratch{})
				if !reflect.DeepEqual(phi, phi2) || pit != pit2 || !reflect.DeepEqual(x, x2) || xit != xit2 {
					t.Fatalf("%s: the one-signal walks differ from the shared ones", name)
				}
			}
		}
	}
}
