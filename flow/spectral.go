package flow

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/flowreader/flowreader/graph"
)

// spectrum holds the chosen aspects: σ_a and unit directions φ_a.
type spectrum struct {
	sigma []float64
	dirs  [][]float64
}

// errSpectral reports a failed eigen- or singular-value decomposition.
var errSpectral = errors.New("flow: spectral decomposition failed")

// exactMax is the largest min(|C|, d) at which spectral decomposes M
// exactly: below it the full decomposition is cheap, above it Lanczos finds
// the few leading pairs several times faster.
const exactMax = 128

// spectral computes the aspects of paper v3 §3.2: the right singular
// vectors of M (rows h_v ê_v for v ∈ C), signs toward q̂, count by energy η
// capped at k. When |C| > d it eigen-decomposes the d×d Gram matrix MᵀM
// instead of M itself: its eigenvectors are M's right singular vectors and
// its eigenvalues their σ², at O(|C|d²) rather than a |C|×d SVD. The energy
// total is always ‖M‖²_F, so the count rule stays exact though only the top
// k pairs are kept.
func spectral(g *graph.Graph, h []float64, c []int, q []float64, k int, eta float64) (spectrum, error) {
	d := g.Dim
	fallback := func() spectrum {
		dir := make([]float64, d)
		copy(dir, q)
		return spectrum{sigma: []float64{0}, dirs: [][]float64{dir}}
	}
	if len(c) == 0 || d == 0 {
		return fallback(), nil
	}
	m := mat.NewDense(len(c), d, nil)
	e := make([]float32, 0, d)
	for i, v := range c {
		row := m.RawRowView(i)
		e = g.AppendEmbedding(e[:0], v)
		for j, x := range e {
			row[j] = h[v] * float64(x)
		}
	}
	total := 0.0
	for i := range c {
		for _, x := range m.RawRowView(i) {
			total += x * x
		}
	}
	var sigma []float64
	var dirs [][]float64
	if k > 0 {
		top := lanczosTop
		if min(len(c), d) <= exactMax {
			top = topRight
		}
		vals, vecs, err := top(m, k)
		if err != nil {
			return spectrum{}, err
		}
		for j, s := range vals {
			dir := make([]float64, d)
			mat.Col(dir, j, vecs)
			if q != nil && dot(dir, q) < 0 {
				for i := range dir {
					dir[i] = -dir[i]
				}
			}
			sigma = append(sigma, s)
			dirs = append(dirs, dir)
		}
	}
	if total <= 0 || len(sigma) == 0 {
		return fallback(), nil
	}
	// A_η = the fewest leading aspects holding η of the energy, then the cap.
	na := len(sigma)
	var cum float64
	for j, s := range sigma {
		cum += s * s
		if cum >= eta*total*(1-1e-12) {
			na = j + 1
			break
		}
	}
	return spectrum{sigma: sigma[:na], dirs: dirs[:na]}, nil
}

// topRight returns the k largest singular values of m (descending) and the
// matching right singular vectors as columns.
func topRight(m *mat.Dense, k int) ([]float64, *mat.Dense, error) {
	rows, d := m.Dims()
	if rows <= d {
		var svd mat.SVD
		if !svd.Factorize(m, mat.SVDThinV) {
			return nil, nil, fmt.Errorf("%w: SVD of %d×%d", errSpectral, rows, d)
		}
		vals := svd.Values(nil)
		var v mat.Dense
		svd.VTo(&v)
		k = min(k, len(vals))
		return vals[:k], mat.DenseCopyOf(v.Slice(0, d, 0, k)), nil
	}
	gram := mat.NewSymDense(d, nil)
	gram.SymRankK(gram, 1, m.T())
	var eig mat.EigenSym
	if !eig.Factorize(gram, true) {
		return nil, nil, fmt.Errorf("%w: eigen-decomposition of the %d×%d Gram matrix", errSpectral, d, d)
	}
	lam := eig.Values(nil) // ascending
	var vec mat.Dense
	eig.VectorsTo(&vec)
	k = min(k, d)
	vals := make([]float64, k)
	out := mat.NewDense(d, k, nil)
	for j := 0; j < k; j++ {
		src := d - 1 - j
		vals[j] = math.Sqrt(math.Max(lam[src], 0))
		for i := 0; i < d; i++ {
			out.Set(i, j, vec.At(i, src))
		}
	}
	return vals, out, nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
