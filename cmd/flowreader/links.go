package main

import (
	"fmt"

	"github.com/flowreader/flowreader/graph"
)

// linksUsage documents the --links flag of build and eval.
const linksUsage = "extra graph edges between titled passages (node Section = title): none, titles (a passage names another's title) or entities (titles and shared capitalised names)"

// linkEdges returns the function that computes the --links mode's edges
// (nil for none).
func linkEdges(mode string) (func(nodes []graph.Node) []graph.Edge, error) {
	switch mode {
	case "none":
		return nil, nil
	case "titles", "entities":
		entities := mode == "entities"
		return func(nodes []graph.Node) []graph.Edge { return graph.MentionLinks(nodes, entities) }, nil
	}
	return nil, fmt.Errorf("unknown --links %q (none, titles or entities): %w", mode, errUsage)
}

// addLinks returns g with links' edges added (g itself when links is nil).
func addLinks(g *graph.Graph, links func(nodes []graph.Node) []graph.Edge) (*graph.Graph, error) {
	if links == nil {
		return g, nil
	}
	edges := append(append([]graph.Edge(nil), g.Edges...), links(g.Nodes)...)
	g2, err := graph.New(g.Nodes, g.Dim, g.Emb, edges)
	if err != nil {
		return nil, err
	}
	g2.Embedder = g.Embedder
	return g2, nil
}
