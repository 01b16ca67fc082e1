package score

import (
	"math"
	"testing"
)

// A graph whose embeddings are scaled far from unit length (×1e37: the dot
// products overflow to ±Inf and the scores turn NaN) must not reach a panic
// in MMR, which indexed −1 when no score beat −Inf; and MMR over NaN scores
// still picks k distinct nodes.
func TestMMRNaNScoresDoNotPanic(t *testing.T) {
	g := randomGraph(t, 3, 40, 8, 40)
	h := make([]float64, len(g.Nodes))
	for i := range h {
		h[i] = math.NaN()
	}
	for _, k := range []int{1, 2, 5, 40} {
		got := graphMMR(g, h, k, 0.7)
		if len(got) != k {
			t.Fatalf("k %d: %d picks", k, len(got))
		}
		seen := map[int]bool{}
		for _, v := range got {
			if seen[v] {
				t.Fatalf("k %d: %v picks %d twice", k, got, v)
			}
			seen[v] = true
		}
	}
	for i := range g.Emb {
		g.Emb[i] *= 1e37
	}
	ix := NewIndex(g)
	for _, cfg := range []Config{classicConfig(), Config{}} {
		if _, err := ix.Score(cfg, Query{Text: "flow", Embedding: randomQuery(3, 8)}); err != nil {
			t.Logf("score refused: %v", err)
		}
	}
}
