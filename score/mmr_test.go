package score

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMMRColdList makes the heap start with very few nodes, so that the
// cold list is spilled in most rounds, and switches to plain passes after
// one evaluation, after m/8 or never, and checks the picks against MMR by
// definition, with many exact ties in h and in the embeddings.
func TestMMRColdList(t *testing.T) {
	defer func(h, l int) { mmrHot, mmrLinear = h, l }(mmrHot, mmrLinear)
	for _, hl := range [][2]int{{1, 1}, {2, 8}, {5, 1 << 30}, {40, 1}, {256, 1 << 30}} {
		hot := hl[0]
		mmrHot, mmrLinear = hl[0], hl[1]
		for seed := uint64(1); seed <= 15; seed++ {
			n := 60 + int(seed)*11
			g0 := randomGraph(t, seed, n, 8, n)
			emb := append([]float32(nil), g0.Emb...)
			rng := rand.New(rand.NewPCG(seed, 5))
			for i := 1; i < n; i++ {
				if rng.IntN(4) == 0 {
					j := rng.IntN(i)
					copy(emb[i*8:(i+1)*8], emb[j*8:(j+1)*8])
				}
			}
			g := mustGraph(t, g0.Nodes, 8, emb, nil)
			ix := NewIndex(g)
			q := randomQuery(seed, 8)
			sc, err := ix.Score(classicConfig(), Query{Text: "flow", Embedding: q})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range [][]float64{sc.H, quantised(rng, n)} {
				for _, k := range []int{1, 3, 8, 25} {
					got, _ := mmr(g, h, [][]float64{sc.Cos, ix.meanCos}, k, 0.7, nil)
					if want := naiveMMR(g, h, k, 0.7); !slices.Equal(got, want) {
						t.Fatalf("hot %d seed %d k %d: MMR %v, by definition %v", hot, seed, k, got, want)
					}
				}
			}
		}
	}
}

func quantised(rng *rand.Rand, n int) []float64 {
	h := make([]float64, n)
	for i := range h {
		h[i] = float64(rng.IntN(4)) / 3
	}
	return h
}

func TestKthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(200)
		x := make([]float64, n)
		levels := 1 + rng.IntN(n)
		for i := range x {
			x[i] = float64(rng.IntN(levels))
		}
		switch trial % 3 { // sorted inputs too
		case 1:
			slices.Sort(x)
		case 2:
			slices.SortFunc(x, func(a, b float64) int { return cmp.Compare(b, a) })
		}
		want := slices.Clone(x)
		slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
		k := 1 + rng.IntN(n)
		if got := kthLargest(slices.Clone(x), k); got != want[k-1] {
			t.Fatalf("trial %d: %d-th largest of %v = %v, want %v", trial, k, x, got, want[k-1])
		}
	}
}
