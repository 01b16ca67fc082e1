package score

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// jointState is the state sweepsEdgeOnce starts from, with random r and a
// random personalisation, for the kernel tests.
func jointState(a *adjacency, seed uint64) ([][4]float64, []nodeConst) {
	n := len(a.off) - 1
	rng := rand.New(rand.NewPCG(seed, 3))
	st := make([][4]float64, n)
	nc := make([]nodeConst, n)
	for v := range st {
		r, p := rng.Float64(), rng.Float64()/float64(n)
		st[v] = [4]float64{r, a.invW[v] / float64(n), 0, 0}
		nc[v] = nodeConst{base: 0.5 * r, invP: a.invP[v], tel: 0.15 * p, pers: p, invW: a.invW[v], x: 1 / float64(n)}
	}
	return st, nc
}

// TestJointSweepKernel checks jointSweep (the chunked assembly kernel on
// amd64) against jointSweepGo bit for bit over several sweeps: states,
// node constants and both returned norms, on graphs with isolated nodes,
// nodes with no higher neighbour and degrees on both sides of the chunk
// width.
func TestJointSweepKernel(t *testing.T) {
	for _, tc := range []struct {
		seed        uint64
		n, d, extra int
	}{{1, 1, 4, 0}, {2, 2, 4, 0}, {3, 7, 3, 5}, {4, 60, 8, 200}, {5, 500, 16, 4000}, {6, 3000, 32, 20000}, {7, 400, 8, 40}} {
		g := randomGraph(t, tc.seed, tc.n, tc.d, tc.extra)
		a := newAdjacency(g, 0.22, 1e-8)
		stA, ncA := jointState(a, tc.seed)
		stB, ncB := jointState(a, tc.seed)
		for sweep := 0; sweep < 6; sweep++ {
			dangling := 0.01 * float64(sweep)
			dA, eA := jointSweep(a, stA, ncA, 0.5, 0.85, dangling)
			dB, eB := jointSweepGo(stB, a.up, a.uoff, ncB, 0.5, 0.85, dangling)
			if math.Float64bits(dA) != math.Float64bits(dB) || math.Float64bits(eA) != math.Float64bits(eB) {
				t.Fatalf("n=%d sweep %d: norms (%v, %v), Go (%v, %v)", tc.n, sweep, dA, eA, dB, eB)
			}
			for v := range stA {
				for k := range stA[v] {
					if math.Float64bits(stA[v][k]) != math.Float64bits(stB[v][k]) {
						t.Fatalf("n=%d sweep %d: st[%d][%d] = %v, Go %v", tc.n, sweep, v, k, stA[v][k], stB[v][k])
					}
				}
				if math.Float64bits(ncA[v].x) != math.Float64bits(ncB[v].x) {
					t.Fatalf("n=%d sweep %d: x[%d] = %v, Go %v", tc.n, sweep, v, ncA[v].x, ncB[v].x)
				}
			}
		}
	}
}

// TestBuildChunks checks the chunk layout: every up edge once, in order,
// under its node, the padding of weight 0 from the node to itself.
func TestBuildChunks(t *testing.T) {
	g := randomGraph(t, 8, 300, 8, 1500)
	a := newAdjacency(g, 0.22, 1e-8)
	chunks := buildChunks(a)
	k := 0
	for _, c := range chunks {
		for j := range c.uo {
			v := int(c.vo / stateRow)
			if c.vo%stateRow != 0 || c.uo[j]%stateRow != 0 {
				t.Fatalf("offsets (%d, %d) not whole rows", c.vo, c.uo[j])
			}
			u := c.uo[j] / stateRow
			if k >= int(a.uoff[v+1]) {
				if int(u) != v {
					t.Fatalf("padding of node %d to %d", v, u)
				}
				if c.pw[j] != [2]float64{} {
					t.Fatalf("padding with weight %v", c.pw[j])
				}
				continue
			}
			if k >= len(a.up) || int(a.uoff[v]) > k {
				t.Fatalf("edge %d under node %d out of place", k, v)
			}
			e := a.up[k]
			if u != e.u || c.pw[j] != [2]float64{e.p, float64(e.w)} {
				t.Fatalf("edge %d: chunk has (%d, %v), up has %+v", k, u, c.pw[j], e)
			}
			k++
		}
	}
	if k != len(a.up) {
		t.Fatalf("chunks hold %d edges, up %d", k, len(a.up))
	}
}

func BenchmarkJointSweep(b *testing.B) {
	g, _ := benchGraph(b, 10000, 100)
	a := newAdjacency(g, 0.22, 1e-8)
	b.Run("kernel", func(b *testing.B) {
		st, nc := jointState(a, 1)
		for b.Loop() {
			jointSweep(a, st, nc, 0.5, 0.85, 0)
		}
	})
	b.Run("go", func(b *testing.B) {
		st, nc := jointState(a, 1)
		for b.Loop() {
			jointSweepGo(st, a.up, a.uoff, nc, 0.5, 0.85, 0)
		}
	})
}

// TestJointSweepMisaligned checks that a state that is not 16-byte aligned
// (which the amd64 kernel cannot take) still gives jointSweepGo's values.
func TestJointSweepMisaligned(t *testing.T) {
	g := randomGraph(t, 9, 200, 8, 800)
	a := newAdjacency(g, 0.22, 1e-8)
	ref, ncRef := jointState(a, 9)
	backing := make([]float64, 4*len(ref)+2)
	off := 0
	if uintptr(unsafe.Pointer(&backing[0]))%16 == 0 {
		off = 1
	}
	st := unsafe.Slice((*[4]float64)(unsafe.Pointer(&backing[off])), len(ref))
	if uintptr(unsafe.Pointer(&st[0]))%16 == 0 {
		t.Fatal("state is aligned")
	}
	copy(st, ref)
	_, nc := jointState(a, 9)
	for sweep := 0; sweep < 3; sweep++ {
		dA, eA := jointSweep(a, st, nc, 0.5, 0.85, 0.01)
		dB, eB := jointSweepGo(ref, a.up, a.uoff, ncRef, 0.5, 0.85, 0.01)
		if dA != dB || eA != eB {
			t.Fatalf("sweep %d: norms (%v, %v), Go (%v, %v)", sweep, dA, eA, dB, eB)
		}
		for v := range st {
			if st[v] != ref[v] || nc[v].x != ncRef[v].x {
				t.Fatalf("sweep %d: node %d differs", sweep, v)
			}
		}
	}
}

// BenchmarkJointSweepSizes reports one joint sweep's cost per edge slot
// (edge or padding) as the graph outgrows the caches (mean degree 16).
func BenchmarkJointSweepSizes(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000, 30000} {
		g := randomGraph(b, 1, n, 16, 5*n)
		a := newAdjacency(g, 0, 1e-8)
		slots := chunkWidth * len(a.chunks)
		if !jointSweepFast {
			slots = len(a.up)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			st, nc := jointState(a, 1)
			for b.Loop() {
				jointSweep(a, st, nc, 0.5, 0.85, 0)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(slots), "ns/slot")
		})
	}
}

// BenchmarkClassicSignals times φ and ψ as one classic query computes them
// (with its r, on the 10k × 100 benchmark graph), set-up included.
func BenchmarkClassicSignals(b *testing.B) {
	g, ix := benchGraph(b, 10000, 100)
	question, q := benchQuery(100)
	c := ClassicConfig()
	sc, err := (&Scorer{Config: c, Index: ix}).ScoreVector(g, question, q)
	if err != nil {
		b.Fatal(err)
	}
	a := ix.adjacency(c.RMin, c.PhiEps)
	buf := &scratch{}
	for b.Loop() {
		classicSignals(a, sc.R, c, true, true, buf, nil)
	}
	b.ReportMetric(float64(sc.PhiSweeps), "phi-sweeps")
	b.ReportMetric(float64(sc.PsiSweeps), "psi-sweeps")
}
