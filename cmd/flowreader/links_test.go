package main

import (
	"errors"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

func TestLinks(t *testing.T) {
	nodes := []graph.Node{
		{ID: "a", Doc: "a", Section: "Blue Harbour", Content: "Blue Harbour is a film by Anna Berg."},
		{ID: "b", Doc: "b", Section: "Anna Berg", Content: "Anna Berg is a director."},
	}
	g, err := graph.New(nodes, 1, []float32{1, 1}, []graph.Edge{{U: 0, V: 1, Kind: graph.EdgeKNN}})
	if err != nil {
		t.Fatal(err)
	}
	g.Embedder = "e"
	for _, mode := range []string{"none", "titles", "entities"} {
		f, err := linkEdges(mode)
		if err != nil {
			t.Fatal(err)
		}
		g2, err := addLinks(g, f)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.EdgeKNN
		if mode != "none" {
			want |= graph.EdgeLink
		}
		if len(g2.Edges) != 1 || g2.Edges[0].Kind != want || g2.Embedder != "e" {
			t.Errorf("%s: edges %v, embedder %q", mode, g2.Edges, g2.Embedder)
		}
	}
	if _, err := linkEdges("all"); !errors.Is(err, errUsage) {
		t.Errorf("unknown mode: %v", err)
	}
}
