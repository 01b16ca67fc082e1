package flow

import (
	"sync"

	"github.com/flowreader/flowreader/graph"
)

// pairCache keeps the query-independent part of the aspects network for the
// last graph routed: the undirected content pairs and their bridge terms.
// Graphs are immutable, so the graph pointer and the options that shape the
// pairs identify an entry. Routers made by PaperAspects or DefaultAspects
// (and their clones) share one cache; an Aspects built by hand has none and
// recomputes every time. Reroutes with edits never use it.
type pairCache struct {
	mu     sync.Mutex
	g      *graph.Graph
	key    pairKey
	pairs  []pair
	bridge []float64
}

type pairKey struct {
	kinds  graph.EdgeKind
	window int
	mode   BridgeMode
	cutoff int
}

// get returns the cached pairs and bridge terms, computing and storing them
// on a miss. The returned slices are shared and must not be modified.
func (c *pairCache) get(g *graph.Graph, k pairKey, compute func() ([]pair, []float64)) ([]pair, []float64) {
	c.mu.Lock()
	if c.g == g && c.key == k {
		p, b := c.pairs, c.bridge
		c.mu.Unlock()
		return p, b
	}
	c.mu.Unlock()
	p, b := compute()
	c.mu.Lock()
	c.g, c.key, c.pairs, c.bridge = g, k, p, b
	c.mu.Unlock()
	return p, b
}
