package baselines

import (
	"context"

	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

// synthGraph makes a graph of n nodes in dim dimensions around a few topic
// centres, spread over two documents, with a tenth visual nodes, keywords
// drawn from a small vocabulary, symmetric kNN edges (k = clip(ceil(log2 N),
// 3, 32)), reading-order edges within 3 and a few random links.
func synthGraph(t testing.TB, n, dim int, seed uint64) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	topics := 4
	centres := make([][]float64, topics)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = rng.NormFloat64()
		}
	}
	nodes := make([]graph.Node, n)
	emb := make([]float32, n*dim)
	vocab := []string{"bleu", "transformer", "Table 2", "lstm", "attention", "f1-score", "corpus", "baseline", "bert", "glove"}
	for i := range nodes {
		doc := "a"
		order := i
		if i >= n/2 {
			doc, order = "b", i-n/2
		}
		mod := graph.Text
		if rng.IntN(10) == 0 {
			mod = graph.Table
		}
		var kw []string
		for j := 0; j < 2; j++ {
			kw = append(kw, vocab[rng.IntN(len(vocab))])
		}
		nodes[i] = graph.Node{ID: doc + string(rune('0'+i%10)), Doc: doc, Order: order, Modality: mod, Keywords: kw,
			Summary: strings.Repeat("x", 10+rng.IntN(50))}
		c := centres[rng.IntN(topics)]
		for j := 0; j < dim; j++ {
			emb[i*dim+j] = float32(c[j] + 0.9*rng.NormFloat64())
		}
	}
	g0, err := graph.New(nodes, dim, emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := int(math.Ceil(math.Log2(float64(n))))
	k = min(max(k, 3), 32)
	var edges []graph.Edge
	for i := 0; i < n; i++ {
		idx := make([]int, 0, n-1)
		for j := 0; j < n; j++ {
			if j != i {
				idx = append(idx, j)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return g0.Cos(i, idx[a]) > g0.Cos(i, idx[b]) })
		for _, j := range idx[:min(k, len(idx))] {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(j), Kind: graph.KNN})
		}
		for d := 1; d <= 3; d++ {
			if j := i + d; j < n && nodes[j].Doc == nodes[i].Doc {
				edges = append(edges, graph.Edge{U: int32(i), V: int32(j), Kind: graph.Order})
			}
		}
		if rng.IntN(3) == 0 {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(rng.IntN(n)), Kind: graph.Link})
		}
	}
	g, err := graph.New(nodes, dim, g0.Emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// handScores builds scores by hand: q is a random mix of the first two nodes
// plus noise; r = clip(cos, 0, 1), h = r / max r, and ψ by PPR.
func handScores(t testing.TB, g *graph.Graph, seed uint64) *score.Scores {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	q := make([]float32, g.Dim)
	var ss float64
	for j := range q {
		q[j] = g.Embedding(0)[j] + g.Embedding(1)[j] + float32(0.3*rng.NormFloat64())
		ss += float64(q[j]) * float64(q[j])
	}
	for j := range q {
		q[j] = float32(float64(q[j]) / math.Sqrt(ss))
	}
	n := g.Len()
	sc := &score.Scores{Query: q, Cos: make([]float64, n), R: make([]float64, n), H: make([]float64, n)}
	mx := 0.0
	for v := 0; v < n; v++ {
		sc.Cos[v] = vec.Dot(g.Embedding(v), q)
		sc.R[v] = math.Min(math.Max(sc.Cos[v], 0), 1)
		mx = math.Max(mx, sc.R[v])
	}
	for v := range sc.H {
		if mx > 0 {
			sc.H[v] = sc.R[v] / mx
		}
		sc.HMean += sc.H[v] / float64(n)
	}
	sc.Psi = PPR(g, sc.R, 8, 0.85, 0.22)
	return sc
}

// routeOn opens r on g and routes s at the budget.
func routeOn(ctx context.Context, r flow.Router, g *graph.Graph, s *score.Scores, budget int) (*flow.Routing, error) {
	gr, err := r.Open(ctx, g)
	if err != nil {
		return nil, err
	}
	return gr.Route(ctx, s, budget)
}
