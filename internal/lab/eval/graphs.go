package eval

import (
	"context"
	"fmt"
	"sync"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/llm"
)

// GraphOptions configure how evaluation graphs are built from documents
// without a language model (the offline analysis of METHOD §0 without
// summaries or evolution rounds).
type GraphOptions struct {
	// Window links text nodes of one document at most Window positions
	// apart in reading order (0 = 3, v1's w; < 0 = no reading-order edges).
	Window int
	// KNN links every node to its KNN nearest neighbours by cosine
	// (0 = 5, G2's top-5; < 0 = none). Ties go to the lower node index.
	KNN int
	// BatchSize is the number of texts per embedder call (0 = 64).
	BatchSize int
	// Build, when set, replaces BuildGraph (for example with a
	// graph.Builder's offline analysis, which embeds lead summaries and
	// keywords instead of content). Its nodes must keep Doc = document ID
	// and Order = item index, which metrics map gold items through.
	Build func(ctx context.Context, docs []graph.Document) (*graph.Graph, error)
	// Links, when set, adds edges computed from the nodes to BuildGraph's
	// (for example graph.MentionLinks' title and entity links).
	Links func(nodes []graph.Node) []graph.Edge
}

func (o GraphOptions) window() int { return defInt(o.Window, 3) }
func (o GraphOptions) knn() int    { return defInt(o.KNN, 5) }

func defInt(v, d int) int {
	if v == 0 {
		return d
	}
	return max(v, 0)
}

// EmbeddingText is the text an evaluation node is embedded from: its
// content, with the caption prepended for visual items whose text does not
// already hold it. No LLM summary exists offline (METHOD B.13's prototype
// embedded content the same way).
func EmbeddingText(it graph.Item) string {
	t := it.Text
	if it.Modality != graph.ModalityText && it.Caption != "" && it.Caption != t {
		t = it.Caption + "\n" + t
	}
	return t
}

// itemNode is the node the graph Builder makes of item i of d before
// analysis (ID "doc#i", Order i, the item's fields), so that gold ItemRefs
// map to nodes of both: graph's own, through internal/graphhook.
func itemNode(d *graph.Document, i int) graph.Node {
	return graphhook.ItemNode(d, i).(graph.Node)
}

// BuildGraph builds the evaluation graph of docs: one node per item (ID
// "doc#i", Order = item index i, so gold ItemRefs map to nodes), embedded with
// emb from EmbeddingText (Summary stays empty: there is no analysis model),
// with reading-order edges between text nodes and kNN edges. cache, when
// non-nil, memoises embeddings by text across graphs.
func BuildGraph(ctx context.Context, emb llm.Embedder, docs []graph.Document, opt GraphOptions, cache *EmbedCache) (*graph.Graph, error) {
	var nodes []graph.Node
	var texts []string
	for _, d := range docs {
		for i, it := range d.Items {
			nodes = append(nodes, itemNode(&d, i))
			texts = append(texts, EmbeddingText(it))
		}
	}
	vecs, err := cache.embed(ctx, emb, texts, defInt(opt.BatchSize, 64))
	if err != nil {
		return nil, err
	}
	dim := 0
	if len(vecs) > 0 {
		dim = len(vecs[0])
	}
	flat := make([]float32, 0, len(vecs)*dim)
	for i, v := range vecs {
		if len(v) != dim {
			return nil, fmt.Errorf("%w: vector %d has %d values, want %d", graph.ErrDimension, i, len(v), dim)
		}
		flat = append(flat, v...)
	}
	// graph.New normalises rows in place; unit vectors are needed for kNN
	// first, so build once without edges, then again with them.
	g0, err := graph.New(nodes, dim, flat, nil)
	if err != nil {
		return nil, err
	}
	var edges []graph.Edge
	if w := opt.window(); w > 0 {
		for i := range nodes {
			for j := i + 1; j < len(nodes) && j <= i+w; j++ {
				a, b := &nodes[i], &nodes[j]
				if a.Doc != b.Doc || a.Modality != graph.ModalityText || b.Modality != graph.ModalityText {
					continue
				}
				edges = append(edges, graph.Edge{U: int32(i), V: int32(j), Kind: graph.EdgeOrder})
			}
		}
	}
	if k := opt.knn(); k > 0 && dim > 0 {
		edges = append(edges, knnEdges(g0, k)...)
	}
	if opt.Links != nil {
		edges = append(edges, opt.Links(g0.Nodes)...)
	}
	return graph.New(g0.Nodes, dim, g0.Emb, edges)
}

// knnEdges links each node to its k most similar other nodes (cosine,
// ties to the lower index; synth.Nearest). Zero-vector nodes get no
// neighbours: a node's list stops at its first cosine ≤ 0.
// knnEdgesSorted is the oracle the tests compare it with.
func knnEdges(g *graph.Graph, k int) []graph.Edge {
	var out []graph.Edge
	for i := range g.Nodes {
		for _, j := range synth.Nearest(g, i, k) {
			if g.Cos(i, j) <= 0 {
				break
			}
			out = append(out, graph.Edge{U: int32(i), V: int32(j), Kind: graph.EdgeKNN})
		}
	}
	return out
}

// EmbedCache memoises document embeddings by text; safe for concurrent use.
// A nil *EmbedCache embeds without caching.
type EmbedCache struct {
	mu sync.Mutex
	m  map[string][]float32
}

// NewEmbedCache returns an empty cache.
func NewEmbedCache() *EmbedCache { return &EmbedCache{m: map[string][]float32{}} }

func (c *EmbedCache) embed(ctx context.Context, emb llm.Embedder, texts []string, batch int) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var todo []int
	seen := map[string]int{}
	if c != nil {
		c.mu.Lock()
	}
	for i, t := range texts {
		if c != nil {
			if v, ok := c.m[t]; ok {
				out[i] = v
				continue
			}
		}
		if _, ok := seen[t]; !ok {
			seen[t] = len(todo)
			todo = append(todo, i)
		}
	}
	if c != nil {
		c.mu.Unlock()
	}
	uniq := make([][]float32, len(todo))
	for a := 0; a < len(todo); a += batch {
		b := min(a+batch, len(todo))
		in := make([]string, 0, b-a)
		for _, i := range todo[a:b] {
			in = append(in, texts[i])
		}
		vs, err := emb.Embed(ctx, in, llm.KindDocument)
		if err != nil {
			return nil, fmt.Errorf("eval: embedding %d texts: %w", len(in), err)
		}
		if len(vs) != len(in) {
			return nil, fmt.Errorf("eval: embedder returned %d vectors for %d texts", len(vs), len(in))
		}
		copy(uniq[a:b], vs)
	}
	if c != nil {
		c.mu.Lock()
	}
	for i, t := range texts {
		if out[i] == nil {
			out[i] = uniq[seen[t]]
			if c != nil {
				c.m[t] = out[i]
			}
		}
	}
	if c != nil {
		c.mu.Unlock()
	}
	// graph.New normalises in place: hand it copies so cached vectors stay
	// intact.
	for i, v := range out {
		out[i] = append([]float32(nil), v...)
	}
	return out, nil
}
