package heapx

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHeapSorts: pushing random values and popping them all gives them in
// sorted order (the oracle), with Down after replacing the top as well.
func TestHeapSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	less := func(a, b int) bool { return a < b }
	for n := range 60 {
		var h, all []int
		for range n {
			x := r.IntN(20)
			h, all = Push(h, x, less), append(all, x)
		}
		if n > 0 { // replace the top and restore the order
			x := r.IntN(20)
			all[slices.Index(all, h[0])] = x
			h[0] = x
			Down(h, 0, less)
		}
		slices.Sort(all)
		var got []int
		for len(h) > 0 {
			var x int
			h, x = Pop(h, less)
			got = append(got, x)
		}
		if !slices.Equal(got, all) {
			t.Fatalf("n=%d: popped %v, want %v", n, got, all)
		}
	}
}
