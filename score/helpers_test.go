package score

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// mustGraph builds a graph or fails the test.
func mustGraph(t testing.TB, nodes []graph.Node, dim int, emb []float32, edges []graph.Edge) *graph.Graph {
	t.Helper()
	g, err := graph.New(nodes, dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomGraph makes a graph of n nodes in dimension d whose embeddings share a
// common direction (so cosines are spread like real ones), with reading-order
// and random edges, and short texts drawn from a small vocabulary.
func randomGraph(t testing.TB, seed uint64, n, d, extra int) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"flow", "graph", "table", "figure", "model", "accuracy", "result", "method",
		"baseline", "dataset", "score", "node", "edge", "cost", "query", "answer", "paper", "evidence",
		"recall", "chain", "aspect", "relevance", "embedding", "token", "layer"}
	nodes := make([]graph.Node, n)
	emb := make([]float32, n*d)
	common := make([]float64, d)
	for k := range common {
		common[k] = rng.NormFloat64()
	}
	for i := range nodes {
		m := graph.ModalityText
		if rng.IntN(4) == 0 {
			m = graph.ModalityFigure
		}
		text := ""
		for w := rng.IntN(12); w >= 0; w-- {
			text += words[rng.IntN(len(words))] + " "
		}
		nodes[i] = graph.Node{ID: string(rune('a' + i%26)), Modality: m, Content: text, Summary: text[:len(text)/2]}
		for k := 0; k < d; k++ {
			emb[i*d+k] = float32(common[k] + 1.2*rng.NormFloat64())
		}
	}
	var edges []graph.Edge
	for i := 0; i+1 < n; i++ {
		edges = append(edges, graph.Edge{U: int32(i), V: int32(i + 1), Kind: graph.EdgeOrder})
	}
	for e := 0; e < extra; e++ {
		edges = append(edges, graph.Edge{U: int32(rng.IntN(n)), V: int32(rng.IntN(n)), Kind: graph.EdgeKNN})
	}
	return mustGraph(t, nodes, d, emb, edges)
}

func randomQuery(seed uint64, d int) []float32 {
	rng := rand.New(rand.NewPCG(seed, 11))
	q := make([]float32, d)
	for k := range q {
		q[k] = float32(rng.NormFloat64())
	}
	return q
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// scoreVec scores one question with a fresh index of g.
func scoreVec(g *graph.Graph, c Config, text string, q []float32) (*Scores, error) {
	return NewIndex(g).Score(c, Query{Text: text, Embedding: q})
}

// propagate runs φ's iteration alone (sweeps without PageRank).
func propagate(a *adjacency, r []float64, alpha, tol float64, maxIter int) ([]float64, int) {
	phi, it, _, _ := sweeps(a, sweepSpec{r: r, alpha: alpha, phiTol: tol, phiMax: maxIter}, nil)
	return phi, it
}

// pagerank runs PageRank alone (sweeps without φ) with a personalisation
// p summing to 1.
func pagerank(a *adjacency, p []float64, d, tol float64, maxIter int) ([]float64, int) {
	_, _, x, it := sweeps(a, sweepSpec{p: p, d: d, pprTol: tol, pprMax: maxIter}, nil)
	return x, it
}

// diffusion computes ψ alone.
func diffusion(a *adjacency, r []float64, d float64) ([]float64, int) {
	_, _, psi, it := classicSignals(a, r, 0, d, false, true, nil)
	return psi, it
}
