package flow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// lanczosTol is the residual tolerance of lanczosTop relative to
// ‖M‖²_F: eigenvalues (σ²) are then exact to about tol²/gap and directions
// to tol/gap.
const lanczosTol = 1e-6

// lanczosTop returns the k largest singular values of m (descending) and
// the matching right singular vectors as columns, by Lanczos with full
// reorthogonalisation on mᵀm. The Ritz pairs are checked every 8 steps once
// the Krylov space has 2k+8 vectors; it stops when the top k residuals are
// within lanczosTol·‖m‖²_F or the space is all of R^d (then exact).
func lanczosTop(m *mat.Dense, k int) ([]float64, *mat.Dense, error) {
	rows, d := m.Dims()
	k = min(k, d, rows)
	if k <= 0 {
		return nil, mat.NewDense(d, 1, nil), nil
	}
	var total float64
	for i := 0; i < rows; i++ {
		for _, x := range m.RawRowView(i) {
			total += x * x
		}
	}
	rng := rand.New(rand.NewPCG(0x5eed, uint64(d)))
	var basis [][]float64
	var alpha, beta []float64
	u := mat.NewVecDense(rows, nil)
	w := mat.NewVecDense(d, nil)
	orth := func(x []float64) {
		// Full reorthogonalisation, twice ("twice is enough").
		for pass := 0; pass < 2; pass++ {
			for _, b := range basis {
				c := dot(x, b)
				for i := range x {
					x[i] -= c * b[i]
				}
			}
		}
	}
	fresh := func() ([]float64, bool) {
		for try := 0; try < 3; try++ {
			x := make([]float64, d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			orth(x)
			if n := math.Sqrt(dot(x, x)); n > 1e-8 {
				for i := range x {
					x[i] /= n
				}
				return x, true
			}
		}
		return nil, false
	}
	v, ok := fresh()
	if !ok {
		return nil, nil, fmt.Errorf("%w: Lanczos start", errSpectral)
	}
	for {
		basis = append(basis, v)
		u.MulVec(m, mat.NewVecDense(d, v))
		w.MulVec(m.T(), u)
		x := append([]float64(nil), w.RawVector().Data...)
		alpha = append(alpha, dot(x, v))
		orth(x)
		b := math.Sqrt(dot(x, x))
		exhausted := len(basis) == d
		if !exhausted && b <= 1e-12*total {
			// An invariant subspace: go on from a fresh direction orthogonal
			// to it (β = 0 decouples T); none left means the space is done.
			b = 0
			x, ok = fresh()
			exhausted = !ok
		} else if !exhausted {
			for i := range x {
				x[i] /= b
			}
		}
		beta = append(beta, b)
		n := len(basis)
		if exhausted || (n >= 2*k+8 && (n-2*k-8)%8 == 0) {
			vals, vecs, conv, err := ritz(basis, alpha, beta, k, total, exhausted)
			if err != nil {
				return nil, nil, err
			}
			if conv || exhausted {
				return vals, vecs, nil
			}
		}
		v = x
	}
}

// ritz returns the top k Ritz pairs of the Lanczos tridiagonal T and whether
// their residuals |β_n s_{n,i}| are within tolerance.
func ritz(basis [][]float64, alpha, beta []float64, k int, total float64, exact bool) ([]float64, *mat.Dense, bool, error) {
	n, d := len(alpha), len(basis[0])
	t := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		t.SetSym(i, i, alpha[i])
		if i+1 < n {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, true) {
		return nil, nil, false, fmt.Errorf("%w: tridiagonal eigenproblem", errSpectral)
	}
	theta := eig.Values(nil)
	var s mat.Dense
	eig.VectorsTo(&s)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return theta[idx[a]] > theta[idx[b]] })
	k = min(k, n)
	last := beta[n-1]
	for c := 0; c < k; c++ {
		if !exact && math.Abs(last*s.At(n-1, idx[c])) > lanczosTol*total {
			return nil, nil, false, nil
		}
	}
	vals := make([]float64, k)
	vecs := mat.NewDense(d, k, nil)
	col := make([]float64, d)
	for c := 0; c < k; c++ {
		i := idx[c]
		vals[c] = math.Sqrt(math.Max(theta[i], 0))
		for q := range col {
			col[q] = 0
		}
		for r, b := range basis {
			coef := s.At(r, i)
			for q := range col {
				col[q] += coef * b[q]
			}
		}
		vecs.SetCol(c, col)
	}
	return vals, vecs, true, nil
}
