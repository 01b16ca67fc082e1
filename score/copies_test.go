package score

import (
	"slices"
	"testing"
)

// The hop step's seeds are one per content: a passage held twice does not
// take two of the seeds places.
func TestSeedNodesOnePerContent(t *testing.T) {
	r := []float64{0.1, 0.9, 0.9, 0.8, 0.8, 0.7, 0.6, 0.5}
	class := []int{0, 1, 1, 3, 3, 3, 6, 7} // 1 and 2 are copies; 3, 4, 5 too
	copyOf := func(u int) int { return class[u] }
	if got := seedNodes(r, 3, copyOf); !slices.Equal(got, []int{1, 3, 6}) {
		t.Errorf("seeds %v, want [1 3 6]", got)
	}
	if got := seedNodes(r, 3, nil); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("without classes: seeds %v, want [1 2 3]", got)
	}
	// Fewer contents than seeds: every content once.
	if got := seedNodes(r[1:6], 4, func(u int) int { return class[u+1] }); !slices.Equal(got, []int{0, 2}) {
		t.Errorf("seeds %v, want [0 2]", got)
	}
}
