package score_test

import (
	"fmt"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// ScoreCandidates scores the best dense and BM25 nodes and their
// neighbours only; the Scores index that subgraph, and Candidates maps it
// back.
func ExampleIndex_ScoreCandidates() {
	nodes := []graph.Node{
		{ID: "a#0", Content: "solar panels on roofs"},
		{ID: "a#1", Content: "wind turbines offshore"},
		{ID: "b#0", Content: "bread and butter"},
		{ID: "b#1", Content: "cheese and wine"},
		{ID: "c#0", Content: "battery storage for solar power"},
	}
	emb := []float32{1, 0, 0.9, 0.1, 0, 1, 0.1, 0.9, 0.95, 0.05}
	edges := []graph.Edge{{U: 0, V: 4, Kind: graph.EdgeKNN}, {U: 2, V: 3, Kind: graph.EdgeKNN}, {U: 0, V: 1, Kind: graph.EdgeOrder}}
	g, err := graph.New(nodes, 2, emb, edges)
	if err != nil {
		panic(err)
	}
	ix := score.NewIndex(g)
	s, err := ix.ScoreCandidates(score.Config{}, score.Query{Text: "solar power", Embedding: []float32{1, 0}}, 1)
	if err != nil {
		panic(err)
	}
	for i, v := range s.Candidates {
		fmt.Printf("%s r=%.2f\n", g.Nodes[v].ID, s.R[i])
	}
	// Output:
	// a#0 r=0.64
	// a#1 r=0.50
	// c#0 r=1.00
}
