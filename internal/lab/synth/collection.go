package synth

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

// Collection is a topic-clustered synthetic collection: nodes with short
// texts, whose embeddings Embedding computes on demand (so that a
// collection of a million rows need not hold them twice), and a fixed set of
// questions about it.
type Collection struct {
	Nodes []graph.Node
	Dim   int
	// Questions and QueryEmb (one row of Dim values each) are the questions.
	Questions []string
	QueryEmb  []float32
	// TextBytes is the bytes of all node texts.
	TextBytes int

	seed    uint64
	per     int
	centres [][]float32 // per topic
	bases   [][]float32 // per topic, latentRank rows of Dim
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
// 200, topic by topic. A node's text starts with the word "row<i>", which
// is how an embedder finds its row (RowOf). A question is a perturbed copy
// of a random node's embedding with five of its words.
func NewCollection(n, dim, q int, seed uint64) *Collection {
	rng := rand.New(rand.NewPCG(seed, seed^0x243f6a8885a308d3))
	topics := max(8, n/500)
	c := &Collection{Dim: dim, Nodes: make([]graph.Node, n), seed: seed, per: (n + topics - 1) / topics}
	for t := 0; t*c.per < n; t++ {
		centre := make([]float32, dim)
		for j := range centre {
			centre[j] = float32(rng.NormFloat64())
		}
		basis := make([]float32, latentRank*dim)
		for j := range basis {
			basis[j] = float32(rng.NormFloat64() / math.Sqrt(latentRank))
		}
		c.centres, c.bases = append(c.centres, centre), append(c.bases, basis)
	}
	words := make([]string, wordsPerNode+1)
	for i := 0; i < n; i++ {
		t := i / c.per
		words[0] = "row" + strconv.Itoa(i)
		for w := 1; w < len(words); w++ {
			var id int
			if rng.IntN(4) == 0 {
				id = rng.IntN(vocabulary)
			} else {
				id = (t*topicWords + int(rng.ExpFloat64()*topicWords/6)%topicWords) % vocabulary
			}
			words[w] = "w" + strconv.Itoa(id)
		}
		text := strings.Join(words, " ")
		c.TextBytes += len(text)
		doc := i / docNodes
		c.Nodes[i] = graph.Node{ID: fmt.Sprintf("d%d#%d", doc, i%docNodes), Doc: fmt.Sprintf("d%d", doc), Order: i % docNodes, Content: text}
	}
	c.QueryEmb = make([]float32, q*dim)
	for k := 0; k < q; k++ {
		v := rng.IntN(n)
		row := c.QueryEmb[k*dim : (k+1)*dim]
		c.Embedding(v, row)
		for j := range row {
			row[j] += float32(0.5 * rng.NormFloat64())
		}
		ws := strings.Fields(c.Nodes[v].Content)[1:]
		rng.Shuffle(len(ws), func(a, b int) { ws[a], ws[b] = ws[b], ws[a] })
		c.Questions = append(c.Questions, "what about "+strings.Join(ws[:5], " ")+"?")
	}
	return c
}

// Embedding writes node i's embedding (not normalised) to dst, of length
// Dim; it depends only on the seed and i.
func (c *Collection) Embedding(i int, dst []float32) {
	t := i / c.per
	rng := rand.New(rand.NewPCG(c.seed^0x9e3779b97f4a7c15, uint64(i)))
	var z [latentRank]float64
	for r := range z {
		z[r] = rng.NormFloat64()
	}
	centre, basis := c.centres[t], c.bases[t]
	for j := range dst {
		x := float64(centre[j]) + 0.3*rng.NormFloat64()
		for r, zr := range z {
			x += zr * float64(basis[r*c.Dim+j])
		}
		dst[j] = float32(x)
	}
}

// RowOf returns the row a text of the collection names with its first
// "row<i>" word, or -1.
func RowOf(text string) int {
	k := strings.Index(text, "row")
	if k < 0 {
		return -1
	}
	e := k + 3
	for e < len(text) && text[e] >= '0' && text[e] <= '9' {
		e++
	}
	i, err := strconv.Atoi(text[k+3 : e])
	if err != nil {
		return -1
	}
	return i
}

// Documents returns the collection's nodes as documents of 200 items, in
// order, each with metadata: "part" ("even" or "odd" by the document's
// number) and "topic" (the topic of its first node), for filters.
func (c *Collection) Documents() []graph.Document {
	n := len(c.Nodes)
	docs := make([]graph.Document, 0, n/docNodes+1)
	for i := 0; i < n; {
		d := c.Nodes[i].Doc
		m := 0
		for i+m < n && c.Nodes[i+m].Doc == d {
			m++
		}
		part := "even"
		if (i/docNodes)%2 == 1 {
			part = "odd"
		}
		doc := graph.Document{ID: d, Items: make([]graph.Item, 0, m), // exact size: no append slack
			Metadata: map[string]string{"part": part, "topic": "t" + strconv.Itoa(i/c.per)}}
		for ; i < n && c.Nodes[i].Doc == d; i++ {
			doc.Items = append(doc.Items, graph.Item{Modality: graph.ModalityText, Text: c.Nodes[i].Content})
		}
		docs = append(docs, doc)
	}
	return docs
}

// SecondEdition returns docs with its first document replaced by a new
// edition of at most 100 items (its first 100, each text with
// " edition2" added): the one-document update bench store times. docs is
// not changed.
func SecondEdition(docs []graph.Document) []graph.Document {
	out := slices.Clone(docs)
	d0 := out[0]
	d0.Items = slices.Clone(d0.Items[:min(100, len(d0.Items))])
	for i := range d0.Items {
		d0.Items[i].Text += " edition2"
	}
	out[0] = d0
	return out
}

// Embedder embeds the collection's texts by the row they name (RowOf) and
// its questions by their position; other questions are an error.
func (c *Collection) Embedder() llm.Embedder {
	e := rowEmbedder{c: c, n: len(c.Nodes), questions: map[string]int{}}
	for i, q := range c.Questions {
		e.questions[q] = i
	}
	return e
}

// rowEmbedder is Collection.Embedder.
type rowEmbedder struct {
	c         *Collection
	n         int
	questions map[string]int
}

func (e rowEmbedder) Dimension() int { return e.c.Dim }

func (e rowEmbedder) Embed(_ context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.c.Dim)
		if kind == llm.KindQuery {
			q, ok := e.questions[t]
			if !ok {
				return nil, fmt.Errorf("synth: unknown question %q", t)
			}
			copy(v, e.c.QueryEmb[q*e.c.Dim:])
		} else {
			r := RowOf(t)
			if r < 0 || r >= e.n {
				return nil, fmt.Errorf("synth: text names no row: %q", t)
			}
			e.c.Embedding(r, v)
		}
		out[i] = v
	}
	return out, nil
}
