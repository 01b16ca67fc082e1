package graph

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/flowreader/flowreader/llm"
)

// EdgeKind is the origin of a content edge.
type EdgeKind uint8

const (
	// EdgeOrder links text nodes that are close in reading order.
	EdgeOrder EdgeKind = 1 << iota
	// EdgeKNN links semantic nearest neighbours.
	EdgeKNN
	// EdgeLink joins passages that name one another (MentionLinks: a title or
	// a shared entity) or that a model linked in the evolution rounds.
	EdgeLink
)

// String names the kinds set in k, joined by "|".
func (k EdgeKind) String() string {
	s := ""
	add := func(n string) {
		if s != "" {
			s += "|"
		}
		s += n
	}
	if k&EdgeOrder != 0 {
		add("order")
	}
	if k&EdgeKNN != 0 {
		add("knn")
	}
	if k&EdgeLink != 0 {
		add("link")
	}
	if s == "" {
		return "none"
	}
	return s
}

// Edge is an undirected content edge between nodes U < V. Kind is a bit set:
// one pair of nodes has one edge, whatever the number of reasons for it.
// Weight is max(cos(e_U, e_V), 0) (paper v1 Eq. 13).
type Edge struct {
	U, V   int32
	Kind   EdgeKind
	Weight float32
}

// ErrDimension is returned when embeddings do not have the dimension they
// must have: New given len(emb) != len(nodes)·dim, Build given vectors of
// different lengths; callers that load a file of another dimension than
// their query embedder's wrap it too.
var ErrDimension = errors.New("graph: embedding dimension mismatch")

// ErrFormat is returned for data that makes no valid graph: a file that is
// not a graph file, has another format version, fails its checksum or is
// truncated (Read, Load), and nodes, embeddings or edges that New cannot
// make a graph of (a NaN or infinite embedding value, an edge naming a
// missing node), and a graph that Write refuses because Read would (see the
// package doc's limits). The wrapped message says which.
var ErrFormat = errors.New("graph: invalid graph")

var (
	errNaN       = fmt.Errorf("%w: NaN or Inf in embedding", ErrFormat)
	errEdge      = fmt.Errorf("%w: edge out of range", ErrFormat)
	errVersion   = fmt.Errorf("%w: unsupported graph file version", ErrFormat)
	errChecksum  = fmt.Errorf("%w: graph file checksum mismatch", ErrFormat)
	errTruncated = fmt.Errorf("%w: graph file truncated", ErrFormat)
)

// Graph is a content graph: nodes, their embeddings in one contiguous slice
// (row i is node i; float32, or int8 with a scale per row, see
// Int8Embeddings), and an undirected adjacency in CSR form. A Graph is
// immutable once made and safe for concurrent readers.
type Graph struct {
	Nodes []Node
	// Dim is the embedding dimension.
	Dim int
	// Emb holds len(Nodes)*Dim float32s; row i is node i's embedding,
	// L2-normalised (or all zero). It is nil in a graph that stores its
	// embeddings as int8 (Int8Embeddings): use Embedding, AppendEmbedding,
	// Dot and Cos, which serve both.
	Emb []float32
	// Edges are the undirected edges, sorted by (U, V), U < V.
	Edges []Edge
	// Embedder names the embedder that made Emb.
	Embedder string
	// ImageRoot is the folder nodes' image paths are relative to ("" when
	// unknown: the reader's own setting decides). The Builder sets it to
	// its Root; Save records it relative to the graph file's folder and
	// Load resolves it against that folder again.
	ImageRoot string
	// Metadata is each document's metadata (Document.Metadata) by
	// document ID, for the documents that have any; nil when none has.
	// Per-call filters select documents by it. Build and Update set it
	// from the documents they are given; Write saves it.
	Metadata map[string]map[string]string
	// Usage is what Builder.Build spent: model calls (analysis, evolution)
	// and embedding calls, with their tokens; calls answered from the cache
	// are not counted. It is not saved: zero for a graph read from a file.
	Usage llm.Totals

	// int8 marks a graph whose embeddings are q8 (len(Nodes)*Dim int8s)
	// with one scale per row in qscale (Builder.Int8Embeddings), Emb nil.
	int8   bool
	q8     []int8
	qscale []float32

	// build records how a Builder made the graph (settings and documents),
	// nil for graphs made by New; Builder.Update needs it.
	build *buildRecord

	// CSR adjacency over both directions of every edge: the neighbours of
	// node i are adj[off[i]:off[i+1]], with edge index eid[...] into Edges.
	off []int32
	adj []int32
	eid []int32

	// copies holds the content classes (Copies), computed on first use.
	copies atomic.Pointer[copyIndex]
}

// New makes a graph. Embeddings are L2-normalised in place (zero rows stay
// zero). Edges are canonicalised (U < V), duplicates merged (kinds OR-ed),
// self-loops dropped, and their weights recomputed from the embeddings.
func New(nodes []Node, dim int, emb []float32, edges []Edge) (*Graph, error) {
	n := len(nodes)
	if dim < 0 || len(emb) != n*dim {
		return nil, fmt.Errorf("%w: %d values for %d nodes of dimension %d", ErrDimension, len(emb), n, dim)
	}
	for i, x := range emb {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("%w: node %d", errNaN, i/max(dim, 1))
		}
	}
	for i := 0; i < n; i++ {
		normalize(emb[i*dim : (i+1)*dim])
	}
	return assemble(nodes, rows{dim: dim, f: emb}, edges)
}

// assemble is New without the checks and normalisation of the embeddings,
// for the Builder, whose embeddings are unit (or zero) rows already: the
// stored rows are then bit for bit the ones the kNN lists were computed
// from, which Builder.Update relies on to recompute lists exactly. It
// copies edges (the caller keeps them); assembleOwned does not.
func assemble(nodes []Node, r rows, edges []Edge) (*Graph, error) {
	return assembleOwned(nodes, r, append(make([]Edge, 0, len(edges)), edges...))
}

// assembleOwned is assemble on edges it may reorder and keep: the edges
// are canonicalised, sorted and merged in place, and the result's Edges is
// a prefix of them. A large build then holds one edge list, not three (the
// input, a sorted copy and a copy without the merged duplicates' slack).
// When the merge leaves slack, the copy without it is made before the CSR,
// whose two arrays take 16 B per edge as the copy does: it does not raise
// the peak, and the result holds no slack.
// The order of equal (U, V) pairs does not matter (their kinds are OR-ed),
// so an unstable sort gives the same result.
func assembleOwned(nodes []Node, r rows, edges []Edge) (*Graph, error) {
	return assembleEdges(nodes, r, edges, false)
}

// assembleEdges is assembleOwned, with the edges' weights kept as given
// when keep is set (of a merged duplicate, the first's) instead of
// recomputed from the rows: for a subgraph whose weights were computed
// from the same rows before (a store's stored weights), so that it costs
// no cosine an edge and is still bit for bit the graph's.
func assembleEdges(nodes []Node, r rows, edges []Edge, keep bool) (*Graph, error) {
	n := len(nodes)
	g := &Graph{Nodes: nodes}
	g.setRows(r)
	es := edges[:0]
	for _, e := range edges {
		if e.U < 0 || e.V < 0 || int(e.U) >= n || int(e.V) >= n {
			return nil, fmt.Errorf("%w: (%d,%d) with %d nodes", errEdge, e.U, e.V, n)
		}
		if e.U == e.V {
			continue
		}
		if e.U > e.V {
			e.U, e.V = e.V, e.U
		}
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b Edge) int {
		if a.U != b.U {
			return cmp.Compare(a.U, b.U)
		}
		return cmp.Compare(a.V, b.V)
	})
	out := es[:0]
	for _, e := range es {
		if k := len(out); k > 0 && out[k-1].U == e.U && out[k-1].V == e.V {
			out[k-1].Kind |= e.Kind
			continue
		}
		out = append(out, e)
	}
	for i := range out {
		if !keep {
			out[i].Weight = float32(math.Max(g.Cos(int(out[i].U), int(out[i].V)), 0))
		}
	}
	if cap(out)-len(out) > len(out)/8 { // duplicates merged: do not keep the slack
		out = append([]Edge(nil), out...)
	}
	g.Edges = out
	g.buildCSR()
	return g, nil
}

func (g *Graph) buildCSR() {
	deg := make([]int32, len(g.Nodes)+1)
	for _, e := range g.Edges {
		deg[e.U+1]++
		deg[e.V+1]++
	}
	g.fillCSR(deg)
}

// fillCSR builds the CSR adjacency from deg, which holds the number of
// edges of node i at deg[i+1] (deg[0] = 0) and becomes g.off.
func (g *Graph) fillCSR(deg []int32) {
	n := len(g.Nodes)
	off := deg[:n+1]
	for i := 0; i < n; i++ {
		off[i+1] += off[i]
	}
	adj := make([]int32, 2*len(g.Edges))
	eid := make([]int32, 2*len(g.Edges))
	pos := make([]int32, n)
	copy(pos, off[:n])
	// Edges are sorted by (U,V). Filling the lower neighbours first (node x
	// as V: its U < x, ascending) and then the higher ones (x as U: its
	// V > x, ascending) leaves every neighbour list sorted without a sort.
	for i, e := range g.Edges {
		k := pos[e.V]
		adj[k], eid[k] = e.U, int32(i)
		pos[e.V] = k + 1
	}
	for i, e := range g.Edges {
		k := pos[e.U]
		adj[k], eid[k] = e.V, int32(i)
		pos[e.U] = k + 1
	}
	g.off, g.adj, g.eid = off, adj, eid
}

// Embedding returns node i's (unit or zero) embedding; do not modify it. It
// aliases the graph's storage, except in a graph of int8 embeddings, where it
// is a decoded copy (AppendEmbedding reuses a buffer instead).
func (g *Graph) Embedding(i int) []float32 {
	if g.int8 {
		return g.AppendEmbedding(make([]float32, 0, g.Dim), i)
	}
	return g.Emb[i*g.Dim : (i+1)*g.Dim]
}

// AppendEmbedding appends node i's embedding to dst and returns the
// extended slice; for int8 embeddings the row decoded, scale times values.
func (g *Graph) AppendEmbedding(dst []float32, i int) []float32 {
	r := graphRows(g)
	return r.appendRow(dst, i)
}

// Dot returns q · node i's embedding (len(q) = Dim), reading int8 rows
// without decoding them. Scoring ranks every node by it.
func (g *Graph) Dot(i int, q []float32) float64 {
	r := graphRows(g)
	return r.dotVec(q, i)
}

// Int8Embeddings reports whether the graph stores its embeddings as int8
// with a scale per row (Builder.Int8Embeddings), a quarter of float32's
// memory; Emb is then nil.
func (g *Graph) Int8Embeddings() bool { return g.int8 }

// Neighbors returns node i's neighbours (sorted ascending) and, aligned with
// them, the indexes of the connecting edges in g.Edges. The slices alias the
// graph's storage: do not modify them. It does not allocate.
func (g *Graph) Neighbors(i int) (nbrs, edges []int32) {
	a, b := g.off[i], g.off[i+1]
	return g.adj[a:b], g.eid[a:b]
}

// Cos returns the cosine of nodes i and j (embeddings are unit or zero).
func (g *Graph) Cos(i, j int) float64 {
	r := graphRows(g)
	return r.cos(i, j)
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}
