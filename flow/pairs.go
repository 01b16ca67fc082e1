package flow

// pairSet is the query-independent part of the aspects network: the
// undirected content pairs in (u, v) order, their bridge terms, each node's
// incident pairs (CSR: those of node v, by increasing pair index, are
// inc[start[v]:start[v+1]]), so that a query can price only the pairs
// around the nodes it routes through, and the node ids 0..n−1 (every node
// as a terminal; shared and read-only).
type pairSet struct {
	pairs  []pair
	bridge []float64
	start  []int32
	inc    []incidence
	nodes  []int
}

// incidence is one pair at a node: its index and the node at its other end.
type incidence struct {
	pair, other int32
}

// newPairSet indexes pairs over n nodes.
func newPairSet(n int, pairs []pair, bridge []float64) *pairSet {
	ps := &pairSet{pairs: pairs, bridge: bridge, start: make([]int32, n+1), inc: make([]incidence, 2*len(pairs)), nodes: make([]int, n)}
	for v := range ps.nodes {
		ps.nodes[v] = v
	}
	for _, p := range pairs {
		ps.start[p.u+1]++
		ps.start[p.v+1]++
	}
	for v := 0; v < n; v++ {
		ps.start[v+1] += ps.start[v]
	}
	next := append([]int32(nil), ps.start[:n]...)
	// Pairs in index order, so each node's list comes out increasing.
	for i, p := range pairs {
		ps.inc[next[p.u]] = incidence{int32(i), int32(p.v)}
		next[p.u]++
		ps.inc[next[p.v]] = incidence{int32(i), int32(p.u)}
		next[p.v]++
	}
	return ps
}

// incident returns the pairs node v is in, by increasing index.
func (ps *pairSet) incident(v int) []incidence {
	return ps.inc[ps.start[v]:ps.start[v+1]]
}
