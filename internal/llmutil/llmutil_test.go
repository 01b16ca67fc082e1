package llmutil

import (
	"errors"
	"fmt"
	"testing"
)

func TestCheckVectors(t *testing.T) {
	nan := float32(0)
	nan = nan / nan
	for _, tc := range []struct {
		vecs   [][]float32
		n, dim int
		ok     bool
	}{
		{[][]float32{{1, 2}}, 1, 2, true},
		{[][]float32{{1, 2}, {3, 4}}, 2, 0, true},
		{nil, 0, 3, true},
		{[][]float32{{1, 2}}, 2, 2, false},
		{[][]float32{{1, 2}}, 1, 3, false},
		{[][]float32{{1, 2}, {3}}, 2, 0, false},
		{[][]float32{{}}, 1, 0, false},
		{[][]float32{{1, nan}}, 1, 2, false},
	} {
		err := CheckVectors(tc.vecs, tc.n, tc.dim)
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, ErrInvalidOutput) {
			t.Errorf("CheckVectors(%v, %d, %d) = %v", tc.vecs, tc.n, tc.dim, err)
		}
	}
}

func ExampleCheckVectors() {
	err := CheckVectors([][]float32{{1, 0}, {0, 1, 0}}, 2, 2)
	fmt.Println(errors.Is(err, ErrInvalidOutput), err)
	// Output: true llm: invalid output: vector 1 has 3 components, want 2
}
