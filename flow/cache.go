package flow

import (
	"sync"

	"github.com/flowreader/flowreader/graph"
)

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

// pairCache keeps the query-independent part of the aspects network for the
// last graph routed (a pairSet). Graphs are immutable, so the graph pointer
// and the options that shape the pairs identify an entry. Routers made by
// PaperAspects or DefaultAspects (and their clones) share one cache; an
// Aspects built by hand has none and recomputes every time. Reroutes with
// edits never use it.
type pairCache struct {
	mu  sync.Mutex
	g   *graph.Graph
	key pairKey
	set *pairSet
}

type pairKey struct {
	kinds  graph.EdgeKind
	window int
	mode   BridgeMode
	cutoff int
}

// get returns the cached pair set, computing and storing it on a miss. The
// returned set is shared and must not be modified.
func (c *pairCache) get(g *graph.Graph, k pairKey, compute func() *pairSet) *pairSet {
	c.mu.Lock()
	if c.g == g && c.key == k {
		s := c.set
		c.mu.Unlock()
		return s
	}
	c.mu.Unlock()
	s := compute()
	c.mu.Lock()
	c.g, c.key, c.set = g, k, s
	c.mu.Unlock()
	return s
}
