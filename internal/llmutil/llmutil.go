// Package llmutil holds what the llm adapters and the graph builder share
// but users of package llm do not call: the validation of embedder output,
// and an unbounded in-memory cache store for the evaluation lab and tests.
// It owns the value of llm.ErrInvalidOutput, which package llm re-exports,
// so that the check can wrap it without an import cycle.
package llmutil

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidOutput is llm.ErrInvalidOutput.
var ErrInvalidOutput = errors.New("llm: invalid output")

// CheckVectors validates an embedder's output for a batch of n texts: exactly
// n vectors, each of length dim (when dim is 0, all of the first vector's
// non-zero length), every component finite. Any violation wraps
// ErrInvalidOutput, so that a broken backend fails loudly instead of
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
			return fmt.Errorf("%w: empty vector", ErrInvalidOutput)
		}
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("%w: vector %d has %d components, want %d", ErrInvalidOutput, i, len(v), dim)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: vector %d component %d is %v", ErrInvalidOutput, i, j, x)
			}
		}
	}
	return nil
}
