package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// Collection is a topic-clustered synthetic collection: nodes with short
// texts and their embeddings, not yet a graph (see graph.Builder), and a
// fixed set of questions about it.
type Collection struct {
	Nodes []graph.Node
	Dim   int
	// Emb holds len(Nodes)·Dim values, row i node i's embedding (not
	// normalised).
	Emb []float32
	// Questions and QueryEmb (one row of Dim values each) are the questions.
	Questions []string
	QueryEmb  []float32
	// TextBytes is the bytes of all node texts.
	TextBytes int
}

// Texts of the collection: each topic owns a band of a shared vocabulary,
// each node 24 words drawn mostly from its topic's band.
const (
	vocabulary   = 20000
	topicWords   = 400
	wordsPerNode = 24
	latentRank   = 12
	docNodes     = 200
)

// NewCollection makes n nodes of dimension dim in n/500 topics (at least
// 8), deterministic in seed, and q questions. A node's embedding is its
// topic's centre, plus a point of a rank-12 subspace of the topic (so that
// near neighbours are meaningful, as in real embeddings, rather than all
// equidistant), plus a little isotropic noise. Nodes come in documents of
// 200 in topic order runs. A question is a perturbed copy of a random
// node's embedding with five of its words.
func NewCollection(n, dim, q int, seed uint64) *Collection {
	rng := rand.New(rand.NewPCG(seed, seed^0x243f6a8885a308d3))
	topics := max(8, n/500)
	c := &Collection{Dim: dim, Nodes: make([]graph.Node, n), Emb: make([]float32, n*dim)}
	centre := make([]float32, dim)
	basis := make([]float32, latentRank*dim)
	z := make([]float64, latentRank)
	words := make([]string, wordsPerNode)
	// Nodes are generated topic by topic (documents are about one topic),
	// each topic's centre and subspace drawn when it starts.
	per := (n + topics - 1) / topics
	for i := 0; i < n; i++ {
		t := i / per
		if i%per == 0 {
			for j := range centre {
				centre[j] = float32(rng.NormFloat64())
			}
			for j := range basis {
				basis[j] = float32(rng.NormFloat64() / math.Sqrt(latentRank))
			}
		}
		for r := range z {
			z[r] = rng.NormFloat64()
		}
		row := c.Emb[i*dim : (i+1)*dim]
		for j := range row {
			x := float64(centre[j]) + 0.3*rng.NormFloat64()
			for r, zr := range z {
				x += zr * float64(basis[r*dim+j])
			}
			row[j] = float32(x)
		}
		for w := range words {
			var id int
			if rng.IntN(4) == 0 {
				id = rng.IntN(vocabulary)
			} else {
				id = (t*topicWords + int(rng.ExpFloat64()*topicWords/6)%topicWords) % vocabulary
			}
			words[w] = "w" + fmt.Sprint(id)
		}
		text := strings.Join(words, " ")
		c.TextBytes += len(text)
		doc := i / docNodes
		c.Nodes[i] = graph.Node{ID: fmt.Sprintf("d%d#%d", doc, i%docNodes), Doc: fmt.Sprintf("d%d", doc), Order: i % docNodes, Content: text}
	}
	c.QueryEmb = make([]float32, q*dim)
	for k := 0; k < q; k++ {
		v := rng.IntN(n)
		src := c.Emb[v*dim : (v+1)*dim]
		for j := range src {
			c.QueryEmb[k*dim+j] = src[j] + float32(0.5*rng.NormFloat64())
		}
		ws := strings.Fields(c.Nodes[v].Content)
		rng.Shuffle(len(ws), func(a, b int) { ws[a], ws[b] = ws[b], ws[a] })
		c.Questions = append(c.Questions, "what about "+strings.Join(ws[:5], " ")+"?")
	}
	return c
}
