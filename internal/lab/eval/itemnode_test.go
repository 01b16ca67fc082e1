package eval

import (
	"context"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
)

// TestItemNodeMatchesBuilder checks that itemNode makes the nodes the graph
// Builder makes of the same items (before analysis), so that gold ItemRefs
// name the same node in an evaluation graph and in a built one.
func TestItemNodeMatchesBuilder(t *testing.T) {
	docs := []graph.Document{
		{ID: "a", Title: "a", Items: []graph.Item{
			{Modality: graph.ModalityText, Text: "The harbour held 310 nests.", Section: "Survey", Page: 0},
			{Modality: graph.ModalityTable, Text: "year | nests\n2024 | 310", Caption: "Table 1: Nests.", Footnote: "Counted in May.", Context: "The survey counted nests.", Page: 1, LastPage: 2},
		}},
		{ID: "b", Title: "b", Items: []graph.Item{{Modality: graph.ModalityText, Text: "Storm Elin flooded the East Arm.", Page: -1}}},
	}
	g, err := (&graph.Builder{Embedder: &fake.Embedder{Dim: 16}}).Build(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	var want []graph.Node
	for d := range docs {
		for i := range docs[d].Items {
			want = append(want, itemNode(&docs[d], i))
		}
	}
	if len(g.Nodes) != len(want) {
		t.Fatalf("builder made %d nodes, itemNode %d", len(g.Nodes), len(want))
	}
	for i, w := range want {
		n := g.Nodes[i]
		if n.ID != w.ID || n.Doc != w.Doc || n.Page != w.Page || n.LastPage != w.LastPage || n.Order != w.Order ||
			n.Modality != w.Modality || n.Section != w.Section || n.Content != w.Content || n.Caption != w.Caption ||
			n.Footnote != w.Footnote || n.Context != w.Context {
			t.Errorf("node %d: builder %+v, itemNode %+v", i, n, w)
		}
	}
}
