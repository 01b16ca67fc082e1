package score

import (
	"math"
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

// A seed names what any copy of its content names: the copy with the
// higher relevance lost the bridge's title to an edit, the other kept it.
func TestHopSeedNamesThroughCopies(t *testing.T) {
	names := map[int][]int{1: {3}} // node 1 (the seed's copy) names node 3
	in := hopInputs{
		names: func(u int) []int { return names[u] },
		links: func(int) []int { return nil },
	}
	st := hopSettings{seeds: 1, alpha: 0.9}
	r := []float64{1, 0.95, 0.2, 0.1}
	h := slices.Clone(r)
	if raised := hop(slices.Clone(r), h, in, st); len(raised) != 0 {
		t.Fatalf("without copies the seed (0) names nothing; raised %v", raised)
	}
	in.copies = func(u int) []int {
		if u < 2 {
			return []int{0, 1}
		}
		return nil
	}
	rr, hh := slices.Clone(r), slices.Clone(r)
	raised := hop(rr, hh, in, st)
	if !slices.Equal(raised, []int{3}) || math.Abs(rr[3]-(0.9*1+0.1*0.1)) > 1e-12 || math.Abs(hh[3]-rr[3]) > 1e-12 {
		t.Errorf("with copies: raised %v, r[3] %v h[3] %v; want [3] and 0.91", raised, rr[3], hh[3])
	}
}
