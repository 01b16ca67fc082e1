package flow

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSpectralGramMatchesSVD checks that the Gram-matrix route (|C| > d)
// gives the singular values and (up to sign) the right singular vectors of
// a direct SVD.
func TestSpectralGramMatchesSVD(t *testing.T) {
	g := synthGraph(t, 60, 12, 4)
	m := mat.NewDense(60, 12, nil)
	for v := 0; v < 60; v++ {
		for j, x := range g.Embedding(v) {
			m.Set(v, j, float64(x)*(0.5+float64(v%7)/10))
		}
	}
	vals, vecs, err := topRight(m, 5) // 60 > 12: Gram route
	if err != nil {
		t.Fatal(err)
	}
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDThinV) {
		t.Fatal("svd failed")
	}
	want := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	for j := 0; j < 5; j++ {
		if math.Abs(vals[j]-want[j]) > 1e-9*want[0] {
			t.Fatalf("σ_%d = %g, SVD %g", j, vals[j], want[j])
		}
		var d float64
		for i := 0; i < 12; i++ {
			d += vecs.At(i, j) * v.At(i, j)
		}
		if math.Abs(math.Abs(d)-1) > 1e-6 {
			t.Fatalf("vector %d: |<gram, svd>| = %g", j, math.Abs(d))
		}
	}
}

// BenchmarkSpectral times the aspects' spectral step when the relevant set
// is (almost) the whole graph, as with a static embedder:
// |C| = n rows of dimension d.
func BenchmarkSpectral(b *testing.B) {
	for _, sz := range []struct{ n, d int }{{1000, 100}, {10000, 100}, {300, 768}, {1000, 768}, {10000, 768}} {
		b.Run(fmt.Sprintf("C=%d/d=%d", sz.n, sz.d), func(b *testing.B) {
			big := benchRows(b, sz.n, sz.d)
			h := make([]float64, sz.n)
			c := make([]int, sz.n)
			for i := range h {
				h[i], c[i] = 1, i
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := spectral(big, h, c, nil, 16, 0.9); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLanczosMatchesExact compares the Lanczos pairs with the exact
// decomposition on tall, wide and rank-deficient matrices.
func TestLanczosMatchesExact(t *testing.T) {
	for _, sz := range []struct{ rows, d, dup int }{{30, 50, 0}, {200, 40, 0}, {120, 64, 100}, {5, 30, 0}, {400, 100, 0}} {
		g := benchRows(t, sz.rows, sz.d)
		m := mat.NewDense(sz.rows, sz.d, nil)
		for i := 0; i < sz.rows; i++ {
			src := i
			if i < sz.dup {
				src = i % 7 // many identical rows: rank deficiency
			}
			for j, x := range g.Embedding(src) {
				m.Set(i, j, float64(x)*(0.5+float64(i%5)/10))
			}
		}
		k := 16
		lv, lvec, err := lanczosTop(m, k)
		if err != nil {
			t.Fatal(err)
		}
		ev, evec, err := topRight(m, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(lv) != len(ev) {
			t.Fatalf("%v: %d vs %d values", sz, len(lv), len(ev))
		}
		for j := range lv {
			if math.Abs(lv[j]-ev[j]) > 1e-6*ev[0] {
				t.Fatalf("%v: σ_%d Lanczos %g exact %g", sz, j, lv[j], ev[j])
			}
			// Vectors agree up to sign where the eigenvalue is simple.
			simple := (j == 0 || ev[j-1]-ev[j] > 1e-3*ev[0]) && (j+1 >= len(ev) || ev[j]-ev[j+1] > 1e-3*ev[0])
			if !simple || ev[j] < 1e-6*ev[0] {
				continue
			}
			var d float64
			for i := 0; i < sz.d; i++ {
				d += lvec.At(i, j) * evec.At(i, j)
			}
			if math.Abs(math.Abs(d)-1) > 1e-5 {
				t.Fatalf("%v: vector %d overlap %g", sz, j, d)
			}
		}
	}
}
