package eval

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// knnEdgesSorted is the oracle: every other node sorted by cosine
// (descending, ties to the lower index), the first k with a positive
// cosine kept.
func knnEdgesSorted(g *graph.Graph, k int) []graph.Edge {
	var out []graph.Edge
	for i := range g.Nodes {
		var js []int
		for j := range g.Nodes {
			if j != i {
				js = append(js, j)
			}
		}
		sort.SliceStable(js, func(a, b int) bool { return g.Cos(i, js[a]) > g.Cos(i, js[b]) })
		for _, j := range js[:min(max(k, 0), len(js))] {
			if g.Cos(i, j) <= 0 {
				break
			}
			out = append(out, graph.Edge{U: int32(i), V: int32(j), Kind: graph.EdgeKNN})
		}
	}
	return out
}

// TestKNNEdgesMatchesSort: on random graphs with many tied cosines (a few
// distinct vectors, some zero, some opposite), knnEdges equals the sort.
func TestKNNEdgesMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := 0; trial < 300; trial++ {
		n, dim := 1+rng.IntN(40), 1+rng.IntN(4)
		pool := make([][]float32, 1+rng.IntN(6))
		for p := range pool {
			pool[p] = make([]float32, dim)
			if rng.IntN(5) > 0 { // some zero vectors
				for d := range pool[p] {
					pool[p][d] = float32(rng.IntN(5) - 2)
				}
			}
		}
		nodes := make([]graph.Node, n)
		flat := make([]float32, 0, n*dim)
		for i := range nodes {
			nodes[i] = graph.Node{ID: string(rune('a'+i%26)) + string(rune('0'+i/26)), Doc: "d", Modality: graph.ModalityText}
			flat = append(flat, pool[rng.IntN(len(pool))]...)
		}
		g, err := graph.New(nodes, dim, flat, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{-1, 0, 1, 3, 5, n, n + 2} {
			if got, want := knnEdges(g, k), knnEdgesSorted(g, k); !slices.Equal(got, want) {
				t.Fatalf("trial %d, n %d, k %d:\ngot  %v\nwant %v", trial, n, k, got, want)
			}
		}
	}
}
