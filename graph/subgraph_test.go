package graph_test

import (
	"reflect"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// TestSubgraph compares Subgraph with graph.New over the same nodes and
// the edges between them.
func TestSubgraph(t *testing.T) {
	g := synth.Topics(t, 500, 8)
	pick := []int32{0, 3, 4, 5, 17, 100, 101, 102, 250, 499}
	s := g.Subgraph(pick)
	local := map[int32]int32{}
	var nodes []graph.Node
	var emb []float32
	for i, v := range pick {
		local[v] = int32(i)
		nodes = append(nodes, g.Nodes[v])
		emb = append(emb, g.Embedding(int(v))...)
	}
	var edges []graph.Edge
	for _, e := range g.Edges {
		u, okU := local[e.U]
		v, okV := local[e.V]
		if okU && okV {
			edges = append(edges, graph.Edge{U: u, V: v, Kind: e.Kind})
		}
	}
	want, err := graph.New(nodes, g.Dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Nodes, want.Nodes) || !reflect.DeepEqual(s.Emb, want.Emb) || !reflect.DeepEqual(s.Edges, want.Edges) {
		t.Fatal("subgraph differs from the graph made of its nodes and edges")
	}
	for i := range pick {
		a, ea := s.Neighbors(i)
		b, eb := want.Neighbors(i)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ea, eb) {
			t.Fatalf("node %d: neighbours %v %v, want %v %v", i, a, ea, b, eb)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("unsorted nodes did not panic")
		}
	}()
	g.Subgraph([]int32{5, 3})
}
