package graph_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/local"
)

// TestBuildInt8: a build with Int8Embeddings holds the same nodes and
// content edges as a float32 build, nearly the same kNN edges, is
// deterministic for any worker count and kNN path, and saves and loads as
// int8 in a smaller file.
func TestBuildInt8(t *testing.T) {
	docs := fixtureDocs(t)
	e := local.Embedder()
	f := build(t, &graph.Builder{Embedder: e}, docs)
	var files [][]byte
	for _, b := range []*graph.Builder{
		{Embedder: e, Int8Embeddings: true, Concurrency: 1},
		{Embedder: e, Int8Embeddings: true, Concurrency: 3},
	} {
		files = append(files, encoded(t, build(t, b, docs)))
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("int8 builds with 1 and 3 workers differ")
	}
	a1 := encoded(t, build(t, &graph.Builder{Embedder: e, Int8Embeddings: true, ApproxKNN: 1, Concurrency: 1}, docs))
	a3 := encoded(t, build(t, &graph.Builder{Embedder: e, Int8Embeddings: true, ApproxKNN: 1, Concurrency: 3}, docs))
	if !bytes.Equal(a1, a3) {
		t.Fatal("int8 HNSW builds with 1 and 3 workers differ")
	}

	q := build(t, &graph.Builder{Embedder: e, Int8Embeddings: true}, docs)
	if !q.Int8Embeddings() || q.Emb != nil || f.Int8Embeddings() {
		t.Fatal("embedding formats not as built")
	}
	if len(q.Nodes) != len(f.Nodes) || q.Dim != f.Dim {
		t.Fatalf("int8 build: %d nodes of dimension %d, float32 %d of %d", len(q.Nodes), q.Dim, len(f.Nodes), f.Dim)
	}
	type pair struct{ u, v int32 }
	kinds := func(g *graph.Graph, knn bool) map[pair]graph.EdgeKind {
		m := map[pair]graph.EdgeKind{}
		for _, ed := range g.Edges {
			k := ed.Kind &^ graph.EdgeKNN
			if knn {
				k = ed.Kind & graph.EdgeKNN
			}
			if k != 0 {
				m[pair{ed.U, ed.V}] = k
			}
		}
		return m
	}
	fc, qc := kinds(f, false), kinds(q, false)
	if len(fc) != len(qc) {
		t.Fatalf("content edges: %d int8, %d float32", len(qc), len(fc))
	}
	for p, k := range fc {
		if qc[p] != k {
			t.Fatalf("content edge %v: %v int8, %v float32", p, qc[p], k)
		}
	}
	fk, qk := kinds(f, true), kinds(q, true)
	same := 0
	for p := range qk {
		if fk[p] != 0 {
			same++
		}
	}
	if share := float64(same) / float64(len(fk)); share < 0.9 {
		t.Errorf("int8 build keeps %.3f of the float32 build's kNN edges, want ≥ 0.9", share)
	}

	p := filepath.Join(t.TempDir(), "g.flwg")
	if err := graph.Save(p, q); err != nil {
		t.Fatal(err)
	}
	l, err := graph.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Int8Embeddings() || !bytes.Equal(encoded(t, l), encoded(t, q)) {
		t.Fatal("Load changed an int8 graph")
	}
	if fb, qb := len(encoded(t, f)), len(encoded(t, q)); qb >= fb {
		t.Fatalf("int8 file %d bytes, float32 %d", qb, fb)
	}
}
