package score

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// refPropagate is Eq. 4 written plainly from the graph's edges, with no
// precomputed weights: the oracle for φ's sweeps.
func refPropagate(g *graph.Graph, r []float64, c Config) ([]float64, int) {
	n := len(r)
	phi := append([]float64(nil), r...)
	it := 0
	for it < phiMaxIter {
		it++
		next := make([]float64, n)
		delta := 0.0
		for v := 0; v < n; v++ {
			num, den := 0.0, 0.0
			nb, es := g.Neighbors(v)
			for k, u := range nb {
				wt := g.Edges[es[k]].Weight
				if wt < float32(c.MinEdgeWeight) {
					continue
				}
				x := min(max(float64(wt), 0), 1)
				p := x * math.Sqrt(1-x*x)
				num += p * phi[u]
				den += p
			}
			next[v] = (1-neighbourShare)*r[v] + neighbourShare*num/(den+phiEps)
			delta = math.Max(delta, math.Abs(next[v]-phi[v]))
		}
		phi = next
		if delta < phiTol {
			break
		}
	}
	return phi, it
}

// refDiffusion is networkx 3.2's personalised PageRank written as networkx
// does (each node pushes its mass along its out-edges, dangling mass goes
// back through the personalisation), seeded like diffusion and divided by
// its maximum: the oracle for PageRank's sweeps and ψ.
func refDiffusion(g *graph.Graph, r []float64, c Config) ([]float64, int) {
	n := len(r)
	keep := func(w float32) bool { return w >= float32(c.MinEdgeWeight) }
	psi := make([]float64, n)
	p := make([]float64, n)
	ps := 0.0
	for _, v := range topK(r, pprSeeds, nil) {
		p[v] = r[v]
		ps += r[v]
	}
	if ps <= 0 {
		return psi, 0
	}
	for i := range p {
		p[i] /= ps
	}
	wsum := make([]float64, n)
	for u := 0; u < n; u++ {
		nb, es := g.Neighbors(u)
		for k := range nb {
			if wt := g.Edges[es[k]].Weight; keep(wt) {
				wsum[u] += min(max(float64(wt), 0), 1)
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	it := 0
	for it < pprMaxIter {
		it++
		xlast := x
		x = make([]float64, n)
		dangling := 0.0
		for u := 0; u < n; u++ {
			if wsum[u] == 0 {
				dangling += xlast[u]
				continue
			}
			nb, es := g.Neighbors(u)
			for k, v := range nb {
				if wt := g.Edges[es[k]].Weight; keep(wt) {
					x[v] += damping * xlast[u] * min(max(float64(wt), 0), 1) / wsum[u]
				}
			}
		}
		err := 0.0
		for v := range x {
			x[v] += damping*dangling*p[v] + (1-damping)*p[v]
			err += math.Abs(x[v] - xlast[v])
		}
		if err < float64(n)*pprTol {
			break
		}
	}
	m := 0.0
	for _, v := range x {
		m = math.Max(m, v)
	}
	for i, v := range x {
		psi[i] = v / m
	}
	return psi, it
}

// TestClassicSignalsMatchReference checks φ and ψ, as Score computes them
// and as propagate and diffusion do, against the plain oracles on random
// graphs: the same sweep counts, and values within 1e-12 (the sweeps only
// sum in another order).
func TestClassicSignalsMatchReference(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		for _, rmin := range []float64{0.22, 0.5} { // 0.5 leaves isolated and dangling nodes
			name := fmt.Sprintf("seed%d/rmin%v", seed, rmin)
			c := classicConfig()
			c.MinEdgeWeight = rmin
			n := 30 + int(seed*7)%150
			g := randomGraph(t, seed, n, 6, 2*n)
			sc, err := scoreVec(g, c, "flow graph table", randomQuery(seed, 6))
			if err != nil {
				t.Fatal(err)
			}
			phi, pit := refPropagate(g, sc.R, c)
			psi, sit := refDiffusion(g, sc.R, c)
			if pit != sc.PhiSweeps || sit != sc.PsiSweeps {
				t.Fatalf("%s: sweeps φ %d ψ %d, reference %d %d", name, sc.PhiSweeps, sc.PsiSweeps, pit, sit)
			}
			for v := range phi {
				if !near(sc.Phi[v], phi[v], 1e-12) || !near(sc.Psi[v], psi[v], 1e-12) {
					t.Fatalf("%s node %d: φ %v ψ %v, reference %v %v", name, v, sc.Phi[v], sc.Psi[v], phi[v], psi[v])
				}
			}
			a := newAdjacency(g, c.MinEdgeWeight)
			if phi2, it := propagate(a, sc.R, neighbourShare, phiTol, phiMaxIter); it != pit || !allNear(phi2, phi, 1e-12) {
				t.Fatalf("%s: propagate differs from the reference", name)
			}
			if psi2, it := diffusion(a, sc.R, damping); it != sit || !allNear(psi2, psi, 1e-12) {
				t.Fatalf("%s: diffusion differs from the reference", name)
			}
			// Each iteration's values do not depend on whether the walk
			// serves the other too.
			phi1, _ := propagate(a, sc.R, neighbourShare, phiTol, phiMaxIter)
			psi1, _ := diffusion(a, sc.R, damping)
			if !reflect.DeepEqual(phi1, sc.Phi) || !reflect.DeepEqual(psi1, sc.Psi) {
				t.Fatalf("%s: φ or ψ alone differs from both together", name)
			}
		}
	}
}

func allNear(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i], tol) {
			return false
		}
	}
	return true
}

// TestMMRTiesMatchDefinition drives the lazy MMR through exact ties: many
// nodes share an embedding and h takes few values, so equal MMR scores are
// common and must go to the lower index as in the definition.
func TestMMRTiesMatchDefinition(t *testing.T) {
	c := classicConfig()
	for seed := uint64(1); seed <= 30; seed++ {
		n := 100 + int(seed)*13
		g0 := randomGraph(t, seed, n, 8, n)
		emb := append([]float32(nil), g0.Emb...)
		rng := rand.New(rand.NewPCG(seed, 3))
		for i := 1; i < n; i++ {
			if rng.IntN(3) == 0 { // a duplicate of an earlier node
				j := rng.IntN(i)
				copy(emb[i*8:(i+1)*8], emb[j*8:(j+1)*8])
			}
		}
		g := mustGraph(t, g0.Nodes, 8, emb, nil)
		ix := NewIndex(g)
		sc, err := ix.Score(c, Query{Text: "flow", Embedding: randomQuery(seed, 8)})
		if err != nil {
			t.Fatal(err)
		}
		h := make([]float64, n)
		for i := range h {
			h[i] = float64(rng.IntN(5)) / 4
		}
		for _, k := range []int{1, 8, 20} {
			got, _ := mmr(g, h, [][]float64{sc.Cos, ix.meanCos}, k, 0.7, nil)
			if want := naiveMMR(g, h, k, 0.7); !slices.Equal(got, want) {
				t.Fatalf("seed %d k %d: MMR %v, by definition %v", seed, k, got, want)
			}
		}
	}
}

// TestSweepsLanesIndependent runs φ and PageRank together with each made
// to outlast the other, and checks each against its run alone, bit for
// bit.
func TestSweepsLanesIndependent(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		g := randomGraph(t, seed, 50+int(seed)*20, 6, 150)
		sc, err := scoreVec(g, classicConfig(), "flow graph table", randomQuery(seed, 6))
		if err != nil {
			t.Fatal(err)
		}
		a := newAdjacency(g, 0.22)
		p := personalisation(sc.R, pprSeeds)
		for _, tol := range [][2]float64{{phiTol, pprTol}, {1e-13, pprTol}, {phiTol, 1e-15}, {1e-3, 1e-9}} {
			s := sweepSpec{r: sc.R, alpha: 0.5, phiTol: tol[0], phiMax: phiMaxIter, p: p, d: 0.85, pprTol: tol[1], pprMax: pprMaxIter}
			phi, pit, x, xit := sweeps(a, s, &scratch{})
			phi1, pit1 := propagate(a, sc.R, 0.5, tol[0], phiMaxIter)
			x1, xit1 := pagerank(a, p, 0.85, tol[1], pprMaxIter)
			if !reflect.DeepEqual(phi, phi1) || pit != pit1 || !reflect.DeepEqual(x, x1) || xit != xit1 {
				t.Fatalf("seed %d tol %v: together (%d, %d sweeps) differ from alone (%d, %d)", seed, tol, pit, xit, pit1, xit1)
			}
		}
	}
}
