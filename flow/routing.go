package flow

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Chain is one evidence chain from the flow decomposition: content nodes in
// routed order (supporting context first, most relevant last for aspects),
// with the flow it carries.
type Chain struct {
	Nodes []int
	// Flow is the amount of flow on the chain (the decomposition bottleneck).
	// Ranked baselines, which route no flow, put a rank weight here that
	// decreases with rank, so that ordering chains by Flow keeps their order.
	Flow float64
	// Cost is the chain's cost per unit of flow, terminal arcs included.
	Cost float64
	// Aspect is the aspect terminal the chain ends in (aspects), or -1.
	Aspect int
}

// Aspect is one spectral aspect of the aspects formulation.
type Aspect struct {
	// Sigma is the singular value σ_a.
	Sigma float64
	// Capacity is d_a = F0 σ_a² / Σ σ_j².
	Capacity float64
	// Flow is the flow that reached the aspect's terminal.
	Flow float64
	// Direction is the unit aspect direction φ_a (sign fixed toward the query).
	Direction []float64
	// Fed is the number of distinct content nodes that send flow to the aspect.
	Fed int
}

// Routing is the result of routing one query: chains and the quantities that
// explain them.
type Routing struct {
	// Router names the formulation that produced the routing: "classic",
	// "aspects" ("aspects-paper" under the paper's demand rule,
	// Aspects.DemandRatio), an ablation's "shortest-path", "doc-order",
	// "single-sink" or "no-agreement", or a baseline's own name.
	Router string
	// Chains in decomposition order.
	Chains []Chain
	// Demand is the requested flow (F0 or F); Routed the flow actually sent.
	Demand, Routed float64
	// MaxFlow is f_max, and Saturation σ = min(f_max/F, 1).
	MaxFlow, Saturation float64
	// Aspects are the aspect terminals (aspects formulation only).
	Aspects []Aspect
	// Kappa is the termination scale κ (aspects formulation only).
	Kappa float64
	// Cost is the total cost of the routed flow.
	Cost float64
	// Distinct is the number of distinct content nodes on the chains.
	Distinct int
	// Scores are the scores the routing used; selectors read h from here.
	Scores *score.Scores
	// Stages is the wall time of each stage done: "network" (building
	// it), "svd" (the aspects), "solve" and "decompose".
	Stages map[string]time.Duration

	// Network is the solved flow network, nil for ranked baselines. Content
	// node v is network node v; Source and Sink are s and t; the aspect
	// terminals (aspects only) are the nodes from AspectBase on.
	Network *mcf.Network
	// Source, Sink and AspectBase are network node ids (see Network).
	Source, Sink, AspectBase int
	// Flow is the optimal flow per arc of Network (nil with Network when
	// built lazily; see fullNetwork).
	Flow []float64
	// Sources and Sinks are the content nodes joined to s and t (classic);
	// nil in the aspects formulation, where every node is both.
	Sources, Sinks []int
	// Relevant is |C|, the size of the relevant set (aspects).
	Relevant int
	// ContentArcs is the number of arcs between content nodes in Network.
	ContentArcs int
	// Edits are the System-2 edits applied so far (cumulative over reroutes).
	Edits Edits

	// cut caches the min-cut side; a pointer so that Routing stays copyable.
	cut *lazyCut
	// full builds Network and Flow on demand (nil when they are set).
	full *lazyNet
}

// lazyNet holds what a routing solved on its live part needs to build the
// full network: the arcs in full-network id order (build), the supply at s
// (−supply at t), and the live solve's flow with each arc's full id.
//
// The full network is kept (rather than the live part alone) because the
// System-2 functions read its dead arcs: a content edge between a live node
// and one below the demand floor crosses the min cut and links the pair, so
// CutEdges ranks it and CutPairs does not propose it as a new bridge, and
// ExpandSources walks it.
type lazyNet struct {
	nodes, arcs int
	build       func() *mcf.Network
	supply      float64
	flow        []float64
	ids         []int

	once sync.Once
	net  *mcf.Network
	fl   []float64
}

// fullNetwork returns the solved flow network and the optimal flow per arc
// (Network and Flow), building them on first use when the routing was
// solved on its live part only. It is safe for concurrent use; both are nil
// for routings without a network.
func (r *Routing) fullNetwork() (*mcf.Network, []float64) {
	l := r.full
	if l == nil {
		return r.Network, r.Flow
	}
	l.once.Do(func() {
		net := l.build()
		if l.supply != 0 {
			net.SetSupply(r.Source, l.supply)
			net.SetSupply(r.Sink, -l.supply)
		}
		fl := make([]float64, net.NumArcs())
		for i, id := range l.ids {
			fl[id] = l.flow[i]
		}
		l.net, l.fl = net, fl
	})
	return l.net, l.fl
}

// eachArcFlow calls do with the full-network id and flow of every arc that
// may carry flow, in id order, without building a lazy full network.
func (r *Routing) eachArcFlow(do func(id int, f float64)) {
	if l := r.full; l != nil {
		for i, id := range l.ids {
			do(id, l.flow[i])
		}
		return
	}
	for id, f := range r.Flow {
		do(id, f)
	}
}

// networkSize is the full network's node and arc counts (0, 0 without one),
// without building a lazy full network.
func (r *Routing) networkSize() (nodes, arcs int, ok bool) {
	if l := r.full; l != nil {
		return l.nodes, l.arcs, true
	}
	if r.Network == nil {
		return 0, 0, false
	}
	return r.Network.NumNodes(), r.Network.NumArcs(), true
}

type lazyCut struct {
	once sync.Once
	side []bool
	err  error
}

// nodes returns the distinct content nodes on the chains in first-seen order.
func (r *Routing) nodes() []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range r.Chains {
		for _, v := range c.Nodes {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// cutSide returns the source side of a minimum s–t cut of Network (true for
// nodes reachable from s in the residual graph of a maximum flow), computing
// it once. It is nil for routings without a network.
func (r *Routing) cutSide() ([]bool, error) {
	net, _ := r.fullNetwork()
	if net == nil {
		return nil, nil
	}
	c := r.cut
	if c == nil {
		// A Routing made by hand has no cache: compute without storing.
		c = &lazyCut{}
	}
	c.once.Do(func() {
		_, side, err := mcf.MaxFlow(net, r.Source, r.Sink)
		if err != nil {
			c.err = fmt.Errorf("flow: min cut: %w", err)
			return
		}
		c.side = side
	})
	return c.side, c.err
}

// affinity returns the current affinity of the content pair {u, v}: the last
// System-2 edit of the pair if any, else the graph edge's weight max(cos, 0),
// else 0 (no edge). It is the value that replaces max(cos, 0) in the classic
// cost (Eq. 5) and in the aspects gain.
func (r *Routing) affinity(g *graph.Graph, u, v int) float64 {
	if a, ok := lastEdit(r.Edits.Edges, u, v); ok {
		return a.Affinity
	}
	if w, ok := edgeWeight(g, u, v); ok {
		return w
	}
	return 0
}

func lastEdit(es []EdgeEdit, u, v int) (EdgeEdit, bool) {
	if u > v {
		u, v = v, u
	}
	for i := len(es) - 1; i >= 0; i-- {
		a, b := es[i].U, es[i].V
		if a > b {
			a, b = b, a
		}
		if a == u && b == v {
			return es[i], true
		}
	}
	return EdgeEdit{}, false
}

// edgeWeight finds the graph edge {u,v} by binary search in u's sorted
// neighbour list.
func edgeWeight(g *graph.Graph, u, v int) (float64, bool) {
	if u < 0 || v < 0 || u >= len(g.Nodes) || v >= len(g.Nodes) {
		return 0, false
	}
	nb, eid := g.Neighbors(u)
	i := sort.Search(len(nb), func(i int) bool { return int(nb[i]) >= v })
	if i < len(nb) && int(nb[i]) == v {
		return float64(g.Edges[eid[i]].Weight), true
	}
	return 0, false
}

// String explains the routing: demand, routed flow, saturation, κ, aspects
// with their capacities, total cost, distinct nodes and every chain.
func (r *Routing) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "router %s: demand %.3f routed %.3f max-flow %.3f saturation %.3f cost %.4f\n",
		r.Router, r.Demand, r.Routed, r.MaxFlow, r.Saturation, r.Cost)
	fmt.Fprintf(&b, "chains %d over %d distinct nodes", len(r.Chains), r.Distinct)
	if nodes, arcs, ok := r.networkSize(); ok {
		fmt.Fprintf(&b, "; network %d nodes, %d arcs (%d content)", nodes, arcs, r.ContentArcs)
	}
	b.WriteString("\n")
	if len(r.Aspects) > 0 {
		fmt.Fprintf(&b, "relevant set %d, kappa %.4f, %d aspects:\n", r.Relevant, r.Kappa, len(r.Aspects))
		for i, a := range r.Aspects {
			fmt.Fprintf(&b, "  aspect %d: sigma %.4f capacity %.3f flow %.3f fed by %d nodes\n", i, a.Sigma, a.Capacity, a.Flow, a.Fed)
		}
	}
	if len(r.Sources) > 0 {
		fmt.Fprintf(&b, "sources %v sinks %v\n", r.Sources, r.Sinks)
	}
	for i, c := range r.Chains {
		fmt.Fprintf(&b, "  chain %d: nodes %v flow %.3f cost %.4f", i, c.Nodes, c.Flow, c.Cost)
		if c.Aspect >= 0 {
			fmt.Fprintf(&b, " aspect %d", c.Aspect)
		}
		b.WriteString("\n")
	}
	t := r.Stages
	fmt.Fprintf(&b, "timings: network %v svd %v solve %v decompose %v\n", t["network"], t["svd"], t["solve"], t["decompose"])
	return b.String()
}

// stage adds d to the wall time of stage.
func (r *Routing) stage(name string, d time.Duration) {
	if r.Stages == nil {
		r.Stages = map[string]time.Duration{}
	}
	r.Stages[name] += d
}

// distinct counts the distinct nodes over chains.
func distinct(chains []Chain) int {
	seen := map[int]bool{}
	for _, c := range chains {
		for _, v := range c.Nodes {
			seen[v] = true
		}
	}
	return len(seen)
}
