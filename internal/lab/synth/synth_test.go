package synth

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// TestNearestMatchesStableSort: Nearest equals the first k of a stable
// sort by descending cosine, on graphs with many ties.
func TestNearestMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for trial := 0; trial < 200; trial++ {
		n, dim := 1+rng.IntN(30), 1+rng.IntN(3)
		nodes := make([]graph.Node, n)
		flat := make([]float32, n*dim)
		for i := range nodes {
			nodes[i] = graph.Node{ID: string(rune('a'+i%26)) + string(rune('0'+i/26)), Doc: "d", Modality: graph.ModalityText}
			for d := 0; d < dim; d++ {
				flat[i*dim+d] = float32(rng.IntN(3) - 1)
			}
		}
		g, err := graph.New(nodes, dim, flat, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range nodes {
			idx := make([]int, 0, n)
			for j := range nodes {
				if j != i {
					idx = append(idx, j)
				}
			}
			sort.SliceStable(idx, func(a, b int) bool { return g.Cos(i, idx[a]) > g.Cos(i, idx[b]) })
			for _, k := range []int{0, 1, 3, n} {
				if got, want := Nearest(g, i, k), idx[:min(k, len(idx))]; !slices.Equal(got, want) {
					t.Fatalf("trial %d node %d k %d: got %v, want %v", trial, i, k, got, want)
				}
			}
		}
	}
}

// TestGraphDeterministic: one seed, one graph.
func TestGraphDeterministic(t *testing.T) {
	a, b := Graph(t, 300, 8, 4), Graph(t, 300, 8, 4)
	if !slices.Equal(a.Edges, b.Edges) || !slices.Equal(a.Emb, b.Emb) {
		t.Fatal("two graphs of one seed differ")
	}
}
