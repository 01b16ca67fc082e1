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
	fmt.Println(g.Len(), "nodes, dimension", g.Dim)
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
	fmt.Println(first.Len() == again.Len(), err)
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
	h, err := graph.LoadDim(p, 16)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Len(), len(h.Edges) == len(g.Edges), h.Dim)
	_, err = graph.LoadDim(p, 768)
	fmt.Println(err != nil)
	// Output:
	// 14 true 16
	// true
}

func ExampleRead() {
	var buf bytes.Buffer
	_, err := graph.Read(&buf) // empty input
	fmt.Println(err)
	// Output:
	// graph: invalid graph: graph file truncated: header
}
