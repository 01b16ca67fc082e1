// Package synth makes synthetic graphs for tests and benchmarks.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// Topics makes n nodes in dim dimensions around 64 topic centres, with
// short texts for BM25, and the degree structure of a built graph: every
// node linked to k = clip(ceil(log2 n), 3, 32) random nodes of its own topic
// (a stand-in for exact kNN, which would cost n² at 100k) and to its
// reading-order neighbours within 3.
func Topics(tb testing.TB, n, dim int) *graph.Graph {
	tb.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
	const topics = 64
	centres := make([][]float64, topics)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = rng.NormFloat64()
		}
	}
	words := make([]string, 2000)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	topicOf := make([]int, n)
	members := make([][]int, topics)
	nodes := make([]graph.Node, n)
	emb := make([]float32, n*dim)
	for i := range nodes {
		tp := rng.IntN(topics)
		topicOf[i] = tp
		members[tp] = append(members[tp], i)
		var sb strings.Builder
		for j := 0; j < 30; j++ {
			sb.WriteString(words[(tp*31+int(rng.ExpFloat64()*40))%len(words)])
			sb.WriteByte(' ')
		}
		nodes[i] = graph.Node{Doc: fmt.Sprintf("doc%d", i/500), Order: i % 500, Summary: sb.String(),
			Keywords: []string{words[tp*7%len(words)], words[rng.IntN(len(words))]}}
		for j := 0; j < dim; j++ {
			emb[i*dim+j] = float32(centres[tp][j] + 1.2*rng.NormFloat64())
		}
	}
	k := min(max(int(math.Ceil(math.Log2(float64(n)))), 3), 32)
	edges := make([]graph.Edge, 0, n*(k+3))
	for i := 0; i < n; i++ {
		m := members[topicOf[i]]
		for j := 0; j < k; j++ {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(m[rng.IntN(len(m))]), Kind: graph.EdgeKNN})
		}
		for d := 1; d <= 3 && i+d < n && nodes[i+d].Doc == nodes[i].Doc; d++ {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(i + d), Kind: graph.EdgeOrder})
		}
	}
	g, err := graph.New(nodes, dim, emb, edges)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// Graph makes a graph of n nodes in dim dimensions around a few topic
// centres, spread over two documents, with a tenth visual nodes, keywords
// drawn from a small vocabulary, symmetric kNN edges (k = clip(ceil(log2 N),
// 3, 32)), reading-order edges within 3 and a few random links.
func Graph(t testing.TB, n, dim int, seed uint64) *graph.Graph {
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
		mod := graph.ModalityText
		if rng.IntN(10) == 0 {
			mod = graph.ModalityTable
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
		for _, j := range Nearest(g0, i, k) {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(j), Kind: graph.EdgeKNN})
		}
		for d := 1; d <= 3; d++ {
			if j := i + d; j < n && nodes[j].Doc == nodes[i].Doc {
				edges = append(edges, graph.Edge{U: int32(i), V: int32(j), Kind: graph.EdgeOrder})
			}
		}
		if rng.IntN(3) == 0 {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(rng.IntN(n)), Kind: graph.EdgeLink})
		}
	}
	g, err := graph.New(nodes, dim, g0.Emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Nearest is node i's k most similar other nodes by Graph.Cos, most
// similar first, ties to the lower index: what a stable sort of all of
// them by descending cosine would start with, kept in a k-slice while the
// others stream by (a sort of all n for every node was most of the CPU
// time of the tests and evaluations that build exact kNN over a few
// thousand nodes). O(n·k) a node at worst.
func Nearest(g *graph.Graph, i, k int) []int {
	type cand struct {
		j   int
		cos float64
	}
	top := make([]cand, 0, k+1)
	for j := range g.Nodes {
		if j == i || k <= 0 {
			continue
		}
		c := g.Cos(i, j)
		if len(top) == k && !(c > top[k-1].cos) {
			continue
		}
		pos := len(top)
		for pos > 0 && top[pos-1].cos < c {
			pos--
		}
		top = slices.Insert(top, pos, cand{j, c})
		if len(top) > k {
			top = top[:k]
		}
	}
	out := make([]int, len(top))
	for x, c := range top {
		out[x] = c.j
	}
	return out
}
