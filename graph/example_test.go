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
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// Build a graph offline (no model) from the fixture collection.
func ExampleBuilder_Build() {
	docs, err := ingest.Path("ingest/testdata/collection")
	if err != nil {
		log.Fatal(err)
	}
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 64}}
	g, err := b.Build(context.Background(), docs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(g.Nodes), "nodes, dimension", g.Dim)
	n := g.Nodes[7] // report#2, a table
	fmt.Println(n.ID, n.Modality, "-", n.Summary)
	fmt.Println(n.Keywords[:3])
	// Output:
	// 14 nodes, dimension 64
	// report#2 table - Table 3: Mean meltwater flow per station (litres per second).
	// [Table 3 Camp North Camp Ridge]
}

// A cache makes a re-build free: no model or embedder calls, so that the
// rebuild succeeds even with an embedder that fails every call.
func ExampleBuilder_Build_cache() {
	docs, _ := ingest.Path("ingest/testdata/collection")
	dir, _ := os.MkdirTemp("", "cache")
	defer os.RemoveAll(dir)
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 32}, Cache: llm.DirStore(dir)}
	first, _ := b.Build(context.Background(), docs)
	b.Embedder = &fake.Embedder{Dim: 32, Err: errors.New("offline")}
	again, err := b.Build(context.Background(), docs)
	fmt.Println(len(first.Nodes) == len(again.Nodes), err)
	// Output:
	// true <nil>
}

func ExampleSave() {
	docs, _ := ingest.Path("ingest/testdata/collection")
	g, _ := (&graph.Builder{Embedder: &fake.Embedder{Dim: 16}}).Build(context.Background(), docs)
	dir, _ := os.MkdirTemp("", "graph")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "collection.flowgraph")
	if err := graph.Save(p, g); err != nil {
		log.Fatal(err)
	}
	h, err := graph.Load(p)
	if err != nil {
		log.Fatal(err)
	}
	// Queries must be embedded by an embedder of the graph's dimension.
	fmt.Println(len(h.Nodes), len(h.Edges) == len(g.Edges), h.Dim, h.Dim == 768)
	// Output:
	// 14 true 16 false
}

func ExampleRead() {
	var buf bytes.Buffer
	_, err := graph.Read(&buf) // empty input
	fmt.Println(err)
	// Output:
	// graph: invalid graph: graph file truncated: header
}

// Update a built graph after a document changed, one was added and one
// removed: only the changed and new documents are analysed and embedded, and
// the result is the graph a fresh build of the new collection gives.
func ExampleBuilder_Update() {
	ctx := context.Background()
	docs, err := ingest.Path("ingest/testdata/collection")
	if err != nil {
		log.Fatal(err)
	}
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 64}}
	g, err := b.Build(ctx, docs)
	if err != nil {
		log.Fatal(err)
	}

	// Replace the first document, remove the second, add one at the end.
	changed := []graph.Document{
		{ID: docs[0].ID, Items: []graph.Item{{Text: "Camp Ridge moved to the north shore in May.", Page: -1}}},
	}
	changed = append(changed, docs[2:]...)
	changed = append(changed, graph.Document{ID: "log.md", Items: []graph.Item{{Text: "Camp North logged 40 mm of rain.", Page: -1}}})

	ng, diff, err := b.Update(ctx, g, changed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("added", diff.Added, "replaced", diff.Replaced, "removed", diff.Removed)
	fresh, err := b.Build(ctx, changed)
	if err != nil {
		log.Fatal(err)
	}
	var x, y bytes.Buffer
	graph.Write(&x, ng)
	graph.Write(&y, fresh)
	fmt.Println(len(ng.Nodes), "nodes; same as a fresh build:", bytes.Equal(x.Bytes(), y.Bytes()))
	// Output:
	// added [log.md] replaced [notes/field-notes.md] removed [report]
	// 3 nodes; same as a fresh build: true
}

// Int8 embeddings take d + 4 bytes per node instead of 4d; scores and
// similarities read them directly.
func ExampleGraph_WithInt8Embeddings() {
	docs, _ := ingest.Path("ingest/testdata/collection")
	f, _ := (&graph.Builder{Embedder: &fake.Embedder{Dim: 256}}).Build(context.Background(), docs)
	q := f.WithInt8Embeddings() // or build with graph.Builder{Int8Embeddings: true}
	var fb, qb bytes.Buffer
	_ = graph.Write(&fb, f)
	_ = graph.Write(&qb, q)
	fmt.Println(q.Int8Embeddings(), q.Emb == nil, fb.Len()-qb.Len() == len(f.Nodes)*(3*256-4))
	fmt.Printf("cos %.2f vs %.2f\n", q.Cos(7, 8), f.Cos(7, 8))
	// Output:
	// true true true
	// cos 0.53 vs 0.53
}
