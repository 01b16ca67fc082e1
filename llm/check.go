package llm

import (
	"fmt"
	"math"
)

// CheckVectors validates an embedder's output for a batch of n texts: exactly
// n vectors, each of length dim (when dim is 0, all of the first vector's
// non-zero length), every component finite. Wrong counts and non-finite values
// wrap ErrInvalidOutput; wrong lengths wrap ErrDimension. Embedders and the
// middleware call it so that a broken backend fails loudly instead of
// poisoning a graph with NaN.
func CheckVectors(vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return fmt.Errorf("%w: %d vectors for %d texts", ErrInvalidOutput, len(vecs), n)
	}
	if n == 0 {
		return nil
	}
	if dim <= 0 {
		dim = len(vecs[0])
		if dim == 0 {
			return fmt.Errorf("%w: empty vector", ErrDimension)
		}
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("%w: vector %d has %d components, want %d", ErrDimension, i, len(v), dim)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: vector %d component %d is %v", ErrInvalidOutput, i, j, x)
			}
		}
	}
	return nil
}
