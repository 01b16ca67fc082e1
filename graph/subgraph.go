package graph

import "slices"

// Subgraph returns the graph induced by nodes (indexes of g, strictly
// ascending): node i of the result is g's node nodes[i] (the Node value is
// shared, its ID unchanged), its embedding a copy of that node's row (in
// g's format, float32 or int8), and
// its edges the edges of g between two of the nodes, with their kinds and
// weights, and its content classes (Copies) g's among the nodes. It costs
// time in the size of the nodes and their adjacency, not in g's size (but
// for g's content classes, found on first use), and panics when nodes is
// not strictly ascending or names a node g does not have (a programming
// error, as for a slice index).
func (g *Graph) Subgraph(nodes []int32) *Graph {
	if !slices.IsSorted(nodes) {
		panic("graph: Subgraph: nodes not ascending")
	}
	n := len(nodes)
	s := &Graph{Embedder: g.Embedder}
	src := graphRows(g)
	dst := src.withCap(n)
	for i, v := range nodes {
		if i > 0 && nodes[i-1] == v {
			panic("graph: Subgraph: repeated node")
		}
		dst.appendRows(&src, int(v), int(v)+1)
	}
	s.setRows(dst)
	g.induce(s, nodes)
	s.copies.Store(g.copyIndex().restrict(nodes))
	return s
}

// induce sets s's nodes and edges (with its CSR) to those of g induced by
// nodes (ascending, distinct): what Subgraph makes, but for the rows and
// the content classes.
func (g *Graph) induce(s *Graph, nodes []int32) {
	n := len(nodes)
	s.Nodes = make([]Node, n)
	local := make(map[int32]int32, n)
	for i, v := range nodes {
		local[v] = int32(i)
		s.Nodes[i] = g.Nodes[v]
	}
	// Walking the nodes in ascending order and each one's higher neighbours
	// in ascending order gives the edges sorted by (U, V), as New leaves
	// them.
	deg := make([]int32, n+1)
	for i, v := range nodes {
		nb, eid := g.Neighbors(int(v))
		for t, u := range nb {
			if u <= v {
				continue
			}
			j, ok := local[u]
			if !ok {
				continue
			}
			e := g.Edges[eid[t]]
			e.U, e.V = int32(i), j
			s.Edges = append(s.Edges, e)
			deg[i+1]++
			deg[j+1]++
		}
	}
	s.fillCSR(deg)
}
