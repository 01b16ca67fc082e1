package score

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// TestParallelIdentical checks that Config.Parallel changes nothing in the
// scores (bit for bit), on graphs with isolated and dangling nodes too, and
// that both sweep kernels give the same values for φ and PageRank run
// separately as run together.
func TestParallelIdentical(t *testing.T) {
	defer func(m, c int) { parallelMinEdges, parallelMinCos = m, c }(parallelMinEdges, parallelMinCos)
	parallelMinEdges, parallelMinCos = 0, 0 // the test graphs are small
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
			// The tweaks make each signal outlast the other (on amd64 the
			// joint kernel then goes on for it alone) or not run at all.
			for _, tweak := range []func(*sweepSpec){
				func(*sweepSpec) {},
				func(s *sweepSpec) { s.phiTol = 1e-13 },
				func(s *sweepSpec) { s.pprTol = 1e-15 },
				func(s *sweepSpec) { s.phiMax = 0 },
				func(s *sweepSpec) { s.pprMax = 1 },
			} {
				spec := spec
				tweak(&spec)
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
}

// TestParallelNaN checks that a NaN embedding in either half of the split
// cosine pass is reported, naming the first such node as without Parallel.
func TestParallelNaN(t *testing.T) {
	defer func(c int) { parallelMinCos = c }(parallelMinCos)
	parallelMinCos = 0
	for _, node := range []int{0, 3, 7, 8, 19} {
		g := randomGraph(t, 2, 20, 4, 10)
		g.Emb[node*4+1] = float32(math.NaN()) // behind graph.New's back
		g.Emb[19*4] = float32(math.Inf(1))
		var msgs []string
		for _, par := range []bool{false, true} {
			c := ClassicConfig()
			c.Parallel = par
			_, err := (&Scorer{Config: c}).ScoreVector(g, "x", []float32{1, 1, 1, 1})
			if !errors.Is(err, ErrNaN) {
				t.Fatalf("node %d, parallel %v: err = %v, want ErrNaN", node, par, err)
			}
			msgs = append(msgs, err.Error())
		}
		if msgs[0] != msgs[1] {
			t.Errorf("node %d: %q with Parallel, %q without", node, msgs[1], msgs[0])
		}
	}
}
