package graph_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm/fake"
)

// New makes a graph of nodes, embeddings and edges you computed yourself (for
// example read from another store): rows are normalised, edges put in
// canonical order with duplicates merged, and every weight recomputed as
// max(cos, 0) of the rows it joins.
func ExampleNew() {
	nodes := []graph.Node{
		{ID: "a#0", Doc: "a", Content: "Camp North lies by the lake."},
		{ID: "a#1", Doc: "a", Order: 1, Content: "The lake froze in May."},
		{ID: "b#0", Doc: "b", Content: "Station budgets for 2024."},
	}
	emb := []float32{
		3, 4, 0, // normalised to (0.6, 0.8, 0)
		0, 1, 0,
		0, 0, 2,
	}
	edges := []graph.Edge{
		{U: 1, V: 0, Kind: graph.EdgeOrder},            // reversed: stored as 0–1
		{U: 0, V: 1, Kind: graph.EdgeKNN},              // same pair: kinds merged
		{U: 1, V: 2, Kind: graph.EdgeKNN, Weight: 0.9}, // weight recomputed
	}
	g, err := graph.New(nodes, 3, emb, edges)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Embedding(0))
	for _, e := range g.Edges {
		fmt.Printf("%s–%s %v %.1f\n", g.Nodes[e.U].ID, g.Nodes[e.V].ID, e.Kind, e.Weight)
	}

	_, err = graph.New(nodes, 3, emb[:6], nil) // one row short
	fmt.Println(errors.Is(err, graph.ErrDimension))
	// Output:
	// [0.6 0.8 0]
	// a#0–a#1 order|knn 0.8
	// a#1–b#0 knn 0.0
	// true
}

// MentionLinks links passages that name one another's title (the Section a
// passage stands under) and, with entities, passages that name one entity:
// the paths a multi-hop question follows from a film to its director. The
// edges need no model and make a graph with New.
func ExampleMentionLinks() {
	nodes := []graph.Node{
		{Section: "Blue Harbour", Content: "Blue Harbour is a 1961 film directed by Anna Berg."},
		{Section: "Anna Berg", Content: "Anna Berg studied at the Malmo Art School."},
		{Section: "Red Song", Content: "Red Song is a film made in 1961."},
		{Section: "Ola Lind", Content: "Ola Lind taught at the Malmo Art School."},
	}
	for _, e := range graph.MentionLinks(nodes, false) {
		fmt.Println("title: ", nodes[e.U].Section, "→", nodes[e.V].Section)
	}
	// Entities add the shared school (two capitalised words), not the
	// shared year.
	for _, e := range graph.MentionLinks(nodes, true) {
		fmt.Println("entity:", nodes[e.U].Section, "–", nodes[e.V].Section, e.Kind)
	}
	// Output:
	// title:  Blue Harbour → Anna Berg
	// entity: Blue Harbour – Anna Berg link
	// entity: Anna Berg – Ola Lind link
}

// Neighbors walks a node's adjacency without allocating: the neighbours in
// ascending order and, aligned with them, the edges (their kind and weight)
// that join them. A figure has no reading-order edges: here it is reached
// through its nearest neighbours by embedding (knn) alone.
func ExampleGraph_Neighbors() {
	docs, err := ingest.Path("ingest/testdata/collection")
	if err != nil {
		log.Fatal(err)
	}
	g, err := (&graph.Builder{Embedder: &fake.Embedder{Dim: 64}}).Build(context.Background(), docs)
	if err != nil {
		log.Fatal(err)
	}
	i := 11 // report#6, a figure
	nbrs, edges := g.Neighbors(i)
	for k, v := range nbrs {
		e := g.Edges[edges[k]]
		fmt.Printf("%s – %s (%v, %.2f)\n", g.Nodes[i].ID, g.Nodes[v].ID, e.Kind, e.Weight)
	}
	// Output:
	// report#6 – notes/field-notes.md#0 (knn, 0.33)
	// report#6 – notes/field-notes.md#3 (knn, 0.35)
	// report#6 – report#2 (knn, 0.21)
	// report#6 – summary.txt#0 (knn, 0.19)
}

// Subgraph cuts the graph induced by some nodes (strictly ascending indexes):
// node i of the result is the original's nodes[i], with its embedding, and
// only the edges between two picked nodes stay, renumbered.
func ExampleGraph_Subgraph() {
	nodes := []graph.Node{{ID: "a#0"}, {ID: "a#1"}, {ID: "a#2"}, {ID: "b#0"}}
	emb := []float32{1, 0, 1, 1, 0, 1, 1, 1}
	g, err := graph.New(nodes, 2, emb, []graph.Edge{
		{U: 0, V: 1, Kind: graph.EdgeOrder},
		{U: 1, V: 2, Kind: graph.EdgeOrder},
		{U: 0, V: 2, Kind: graph.EdgeOrder},
		{U: 2, V: 3, Kind: graph.EdgeKNN},
	})
	if err != nil {
		log.Fatal(err)
	}
	s := g.Subgraph([]int32{0, 2, 3})
	for _, e := range s.Edges {
		fmt.Println(e.U, e.V, s.Nodes[e.U].ID, s.Nodes[e.V].ID, e.Kind)
	}
	fmt.Println(len(s.Nodes), s.Embedding(2))
	// Output:
	// 0 1 a#0 a#2 order
	// 1 2 a#2 b#0 knn
	// 3 [0.70710677 0.70710677]
}

// Copies finds the nodes that hold one content: here a paragraph that a
// second document repeats word for word, and another it repeats with a word
// added (a near copy: same heading, same numbers, most words shared).
// A paragraph whose figure changed is no copy.
func ExampleGraph_Copies() {
	texts := [][]string{
		{
			"The harbour was founded by fishermen from the north coast who built the first stone mole.",
			"Ships from the islands brought timber, salt and wool to the market by the customs house.",
			"The ferry crosses the strait 2 times a day in summer and once in winter.",
		},
		{
			"The harbour was founded by fishermen from the north coast who built the first stone mole.",
			"Ships from the islands brought timber, salt and fine wool to the market by the customs house.",
			"The ferry crosses the strait 3 times a day in summer and once in winter.",
		},
	}
	var nodes []graph.Node
	for d, items := range texts {
		for i, text := range items {
			doc := fmt.Sprintf("d%d", d)
			nodes = append(nodes, graph.Node{ID: fmt.Sprintf("%s#%d", doc, i), Doc: doc, Order: i, Section: "Harbour", Content: text})
		}
	}
	// One embedding for all: near copies are looked for along edges, so
	// join every pair.
	const dim = 2
	emb := make([]float32, len(nodes)*dim)
	var edges []graph.Edge
	for u := range nodes {
		emb[u*dim] = 1
		for v := u + 1; v < len(nodes); v++ {
			edges = append(edges, graph.Edge{U: int32(u), V: int32(v), Kind: graph.EdgeKNN})
		}
	}
	g, err := graph.New(nodes, dim, emb, edges)
	if err != nil {
		log.Fatal(err)
	}
	for i := range 3 {
		var ids []string
		for _, c := range g.Copies(i) {
			ids = append(ids, g.Nodes[c].ID)
		}
		fmt.Println(g.Nodes[i].ID, "copies:", ids)
	}
	// Output:
	// d0#0 copies: [d0#0 d1#0]
	// d0#1 copies: [d0#1 d1#1]
	// d0#2 copies: []
}

// Write and Read move a graph through any stream (a blob store, an embedded
// file); Save and Load are the file versions. The bytes depend only on the
// graph, so two builds of one collection can be compared byte for byte.
func ExampleWrite() {
	docs, err := ingest.Path("ingest/testdata/collection")
	if err != nil {
		log.Fatal(err)
	}
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 32}}
	g1, _ := b.Build(context.Background(), docs)
	g2, _ := b.Build(context.Background(), docs)
	var w1, w2 bytes.Buffer
	if err := graph.Write(&w1, g1); err != nil {
		log.Fatal(err)
	}
	if err := graph.Write(&w2, g2); err != nil {
		log.Fatal(err)
	}
	fmt.Println("same bytes:", bytes.Equal(w1.Bytes(), w2.Bytes()))
	h, err := graph.Read(&w1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(h.Nodes), "nodes,", len(h.Edges) == len(g1.Edges), h.Nodes[7].ID)
	// Output:
	// same bytes: true
	// 14 nodes, true report#2
}

// Load opens a saved graph. Questions must be embedded by an embedder of the
// graph's dimension: compare it once, at start-up, and wrap ErrDimension.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "graph")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.flowgraph")
	g, _ := graph.New([]graph.Node{{ID: "a#0", Content: "Camp North lies by the lake."}}, 4, []float32{1, 0, 0, 0}, nil)
	if err := graph.Save(path, g); err != nil {
		log.Fatal(err)
	}

	embedder := &fake.Embedder{Dim: 8} // the query embedder
	h, err := graph.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	if h.Dim != embedder.Dimension() {
		err = fmt.Errorf("%s: %w: graph %d, embedder %d", filepath.Base(path), graph.ErrDimension, h.Dim, embedder.Dimension())
	}
	fmt.Println(errors.Is(err, graph.ErrDimension), err)

	_, err = graph.Load(filepath.Join(dir, "missing.flowgraph"))
	fmt.Println(errors.Is(err, os.ErrNotExist))
	// Output:
	// true notes.flowgraph: graph: embedding dimension mismatch: graph 4, embedder 8
	// true
}

// Dot scores a query against a node's row (float32 or int8, without decoding
// it); scoring ranks every node by it. Cos compares two nodes.
func ExampleGraph_Dot() {
	nodes := []graph.Node{{ID: "lake"}, {ID: "budget"}, {ID: "ice"}}
	g, _ := graph.New(nodes, 3, []float32{
		1, 0, 0,
		0, 1, 0,
		1, 0, 1,
	}, nil)
	q := []float32{0.8, 0, 0.6} // a unit query embedding
	for i, n := range g.Nodes {
		fmt.Printf("%s %.2f\n", n.ID, g.Dot(i, q))
	}
	fmt.Printf("cos(lake, ice) %.2f\n", g.Cos(0, 2))
	// Output:
	// lake 0.80
	// budget 0.00
	// ice 0.99
	// cos(lake, ice) 0.71
}

// An edge's Kind is a set of reasons: a pair of nodes close in reading order
// that are also nearest neighbours has one edge of both kinds.
func ExampleEdgeKind_String() {
	k := graph.EdgeOrder | graph.EdgeKNN
	fmt.Println(k, k&graph.EdgeLink != 0)
	// Output: order|knn false
}

// Embedding returns a row that aliases the graph's storage (do not modify
// it); in a graph of int8 embeddings it decodes a copy each call, so a loop
// over many rows decodes into one buffer with AppendEmbedding instead.
func ExampleGraph_AppendEmbedding() {
	g, _ := graph.New([]graph.Node{{ID: "a"}, {ID: "b"}}, 2, []float32{3, 4, 1, 0}, nil)
	q := g.WithInt8Embeddings()
	var sum [2]float32
	buf := make([]float32, 0, q.Dim)
	for i := range q.Nodes {
		buf = q.AppendEmbedding(buf[:0], i) // no allocation per row
		sum[0] += buf[0]
		sum[1] += buf[1]
	}
	fmt.Printf("%.2f %.2f\n", g.Embedding(0), sum)
	// Output: [0.60 0.80] [1.60 0.80]
}
