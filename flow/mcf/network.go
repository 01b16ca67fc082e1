package mcf

import (
	"fmt"
	"math"
	"sync"
)

// Eps is the flow tolerance: residual capacities and flows at or below Eps
// are treated as zero, and conservation and capacity bounds hold within it.
const Eps = 1e-9

// Network is a directed network with float64 node supplies and arcs carrying
// a capacity and a cost of any sign. Node ids are 0..NumNodes()-1 and arc ids
// 0..NumArcs()-1 in insertion order. [NewNetwork] makes one; the zero value
// is a network without nodes.
//
// A Network is safe for concurrent reads (several solvers may run on it at
// once) but not for concurrent modification.
type Network struct {
	supply   []float64
	from, to []int32
	capacity []float64
	cost     []float64

	mu  sync.Mutex
	adj *adjacency // forward/backward stars, built lazily once per topology
}

// adjacency is the compressed-sparse-row form of a network's topology:
// outArcs[outStart[v]:outStart[v+1]] are the arcs leaving v in id order, and
// likewise inArcs for arcs entering v.
type adjacency struct {
	outStart, outArcs []int32
	inStart, inArcs   []int32
}

// NewNetwork returns a network with the given number of nodes, all with zero
// supply, and no arcs.
func NewNetwork(nodes int) *Network {
	if nodes < 0 {
		nodes = 0
	}
	return &Network{supply: make([]float64, nodes)}
}

// SetSupply sets the supply of node v: b > 0 is a supply (flow leaves v),
// b < 0 a demand. It panics if v is out of range, like a slice index.
func (n *Network) SetSupply(v int, b float64) { n.supply[v] = b }

// Supply returns the supply of node v.
func (n *Network) Supply(v int) float64 { return n.supply[v] }

// AddArc appends an arc from→to and returns its id. Endpoints and values are
// checked by every solver and by [MaxFlow] and [Decompose], not here, so
// that building a network stays a plain append.
func (n *Network) AddArc(from, to int, capacity, cost float64) int {
	n.from = append(n.from, int32(from))
	n.to = append(n.to, int32(to))
	n.capacity = append(n.capacity, capacity)
	n.cost = append(n.cost, cost)
	n.invalidate()
	return len(n.from) - 1
}

// Grow reserves room for arcs more arcs, so that a builder that knows its
// arc count does not pay for repeated slice growth. It changes nothing else.
func (n *Network) Grow(arcs int) {
	if arcs <= 0 {
		return
	}
	grow := func(x []int32) []int32 { return append(make([]int32, 0, len(x)+arcs), x...) }
	growF := func(x []float64) []float64 { return append(make([]float64, 0, len(x)+arcs), x...) }
	n.from, n.to = grow(n.from), grow(n.to)
	n.capacity, n.cost = growF(n.capacity), growF(n.cost)
}

// NumNodes returns the number of nodes.
func (n *Network) NumNodes() int { return len(n.supply) }

// NumArcs returns the number of arcs.
func (n *Network) NumArcs() int { return len(n.from) }

// Arc returns arc id's endpoints, capacity and cost.
func (n *Network) Arc(id int) (from, to int, capacity, cost float64) {
	return int(n.from[id]), int(n.to[id]), n.capacity[id], n.cost[id]
}

func (n *Network) invalidate() {
	// Builders call this per arc; modification is single-goroutine by
	// contract, so the lock is only taken when there is a cache to drop.
	if n.adj != nil {
		n.mu.Lock()
		n.adj = nil
		n.mu.Unlock()
	}
}

// adjacency returns the cached stars, building them on first use. Callers
// must have validated the arc endpoints.
func (n *Network) adjacency() *adjacency {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.adj != nil {
		return n.adj
	}
	nn, m := len(n.supply), len(n.from)
	a := &adjacency{
		outStart: make([]int32, nn+1), outArcs: make([]int32, m),
		inStart: make([]int32, nn+1), inArcs: make([]int32, m),
	}
	for i := 0; i < m; i++ {
		a.outStart[n.from[i]+1]++
		a.inStart[n.to[i]+1]++
	}
	for v := 0; v < nn; v++ {
		a.outStart[v+1] += a.outStart[v]
		a.inStart[v+1] += a.inStart[v]
	}
	op := append([]int32(nil), a.outStart[:nn]...)
	ip := append([]int32(nil), a.inStart[:nn]...)
	for i := 0; i < m; i++ {
		u, v := n.from[i], n.to[i]
		a.outArcs[op[u]] = int32(i)
		op[u]++
		a.inArcs[ip[v]] = int32(i)
		ip[v]++
	}
	n.adj = a
	return a
}

// validate checks that every arc joins existing nodes and has a finite,
// non-negative capacity and a finite cost, and that the finite supplies sum
// to zero within Eps·max(1, Σ|b|/2). The errors wrap [ErrInvalid].
func (n *Network) validate() error {
	if err := n.validateArcs(); err != nil {
		return err
	}
	var sum, abs float64
	for v, b := range n.supply {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return fmt.Errorf("mcf: node %d supply %v is not finite: %w", v, b, ErrInvalid)
		}
		sum += b
		abs += math.Abs(b)
	}
	if math.Abs(sum) > Eps*math.Max(1, abs/2) {
		return fmt.Errorf("mcf: supplies sum to %g, not zero: %w", sum, ErrInvalid)
	}
	return nil
}

// validateArcs is validate without the supplies (MaxFlow ignores them).
func (n *Network) validateArcs() error {
	nn := int32(len(n.supply))
	if len(n.supply) > math.MaxInt32-2 || len(n.from) > math.MaxInt32/2-len(n.supply) {
		return fmt.Errorf("mcf: network too large (%d nodes, %d arcs): %w", len(n.supply), len(n.from), ErrInvalid)
	}
	for i := range n.from {
		u, v := n.from[i], n.to[i]
		if u < 0 || u >= nn || v < 0 || v >= nn {
			return fmt.Errorf("mcf: arc %d (%d→%d) joins a node outside 0..%d: %w", i, u, v, nn-1, ErrInvalid)
		}
		c, k := n.capacity[i], n.cost[i]
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("mcf: arc %d capacity %v is not finite: %w", i, c, ErrInvalid)
		}
		if math.IsNaN(k) || math.IsInf(k, 0) {
			return fmt.Errorf("mcf: arc %d cost %v is not finite: %w", i, k, ErrInvalid)
		}
		if c < 0 {
			return fmt.Errorf("mcf: arc %d capacity %v is negative: %w", i, c, ErrInvalid)
		}
	}
	return nil
}

// Solution is the result of a minimum-cost flow solve.
type Solution struct {
	// Flow is the flow on each arc, indexed by arc id; values at or below
	// Eps are reported as exactly 0.
	Flow []float64
	// Cost is Σ Flow[a]·cost(a).
	Cost float64
	// Demand is the total positive supply requested.
	Demand float64
	// Routed is the total flow actually routed from supply to demand nodes
	// (equal to Demand within Eps unless Partial).
	Routed float64
	// Partial reports that the demand exceeded the maximum flow from the
	// supply nodes to the demand nodes: the maximum flow was routed, at
	// minimum cost among maximum flows.
	Partial bool
	// Augmentations counts augmenting paths (for SSP; other solvers count
	// their own steps).
	Augmentations int
}
