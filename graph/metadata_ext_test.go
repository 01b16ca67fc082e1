package graph_test

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
)

// Build and Update take the documents' metadata, an update the new
// versions' (metadata alone does not change a document's nodes), and the
// int8 copy keeps it.
func TestBuilderMetadata(t *testing.T) {
	ctx := context.Background()
	docs := []graph.Document{
		{ID: "a", Items: []graph.Item{{Text: "The harbour wall was repaired after the storm."}}, Metadata: map[string]string{"kind": "report"}},
		{ID: "b", Items: []graph.Item{{Text: "Rainfall in November was twice the mean."}}},
	}
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 8}}
	g, err := b.Build(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Metadata, map[string]map[string]string{"a": {"kind": "report"}}) {
		t.Fatalf("built metadata %v", g.Metadata)
	}
	docs[0].Metadata["kind"] = "changed after the build"
	if g.Metadata["a"]["kind"] != "report" {
		t.Fatal("the graph shares the document's map")
	}
	docs[0].Metadata = map[string]string{"kind": "memo"}
	docs[1].Metadata = map[string]string{"year": "2024"}
	u, diff, err := b.Update(ctx, g, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(diff.Added)+len(diff.Replaced)+len(diff.Removed) != 0 {
		t.Fatalf("metadata changed nodes: %+v", diff)
	}
	want := map[string]map[string]string{"a": {"kind": "memo"}, "b": {"year": "2024"}}
	if !reflect.DeepEqual(u.Metadata, want) {
		t.Fatalf("updated metadata %v", u.Metadata)
	}
	if !reflect.DeepEqual(u.WithInt8Embeddings().Metadata, want) {
		t.Fatal("the int8 copy lost the metadata")
	}
	var buf bytes.Buffer
	if err := graph.Write(&buf, u); err != nil {
		t.Fatal(err)
	}
	r, err := graph.Read(&buf)
	if err != nil || !reflect.DeepEqual(r.Metadata, want) {
		t.Fatalf("read back %v, %v", r.Metadata, err)
	}
	if _, err := graph.Read(bytes.NewReader(buf.Bytes()[:0])); err == nil {
		t.Fatal("an empty file read")
	}
}
