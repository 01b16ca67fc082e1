package mcf

import (
	"context"
	"math"
)

// Solver computes a minimum-cost flow of a network.
type Solver interface {
	// Solve returns a minimum-cost flow meeting the supplies, or, when they
	// cannot all be routed, a minimum-cost maximum flow with Partial set.
	Solve(ctx context.Context, n *Network) (*Solution, error)
}

// SSP is the successive-shortest-path solver: Dijkstra on reduced costs over
// the CSR residual network, goal-directed initial potentials (one
// topological pass on a DAG, Bellman–Ford otherwise), a search that stops as
// soon as the super-sink is settled, and, per phase, augmentation along every
// further zero-reduced-cost path it can find among the settled nodes. With
// several demand nodes a phase searches on to up to 8 of them and feeds each
// along its shortest-path tree path (falling back to one sink per phase if
// the supplies turn out not to be routable in full).
//
// The zero value is ready to use and an SSP may be shared by goroutines.
type SSP struct {
	// SinglePath augments along one shortest path to the nearest sink per
	// Dijkstra phase, without the further tight paths and extra sinks.
	// The result is the same optimum (possibly a different optimal flow when
	// there are ties); it is the plain method, kept as the reference the
	// refinements are tested and timed against.
	SinglePath bool
}

// sspState is the per-solve workspace; everything is allocated once up
// front, so augmentations allocate nothing.
type sspState struct {
	*residual
	pi      []float64
	dead    []bool
	dist    []float64
	parent  []int32 // residual arc by which a node was reached
	state   []uint8 // unseen, labelled, settledNode, ... (constants below)
	touched []int32 // nodes labelled this phase, in labelling order
	settled []int32 // nodes settled this phase, in settling order
	cur     []int32 // current-arc pointers for the tight-path search
	onPath  []bool
	stack   []int32 // residual arcs of the tight-path search
	h       *heap
	augs    int
	// ties records that this phase's search met two equally short ways into
	// a node: only then can a second tight S–T path exist.
	ties bool
	// backoff and wait throttle tightPaths after fruitless calls (doubling
	// the number of phases skipped, up to maxBackoff), so that networks
	// whose ties rarely yield a second path do not pay for the search.
	backoff, wait int
	far           []int32 // parked nodes (stale entries allowed)
	actEnd        []int32 // end of each node's active arcs (see activate)
	path          []int32 // the tree path being augmented
	lastD         float64 // dist[T] of the previous phase: the first threshold
	// multi selects serving several sinks per phase: the search goes on
	// past the nearest sink, collecting settled sinks in targets until
	// their unmet demand covers the unrouted supply (or maxTargets).
	multi   bool
	targets []int32
	tArc    []int32 // tArc[v] is v's arc to T, or -1
}

// maxTargets bounds the sinks collected per phase in multi mode. Each extra
// sink saves a phase but makes the search settle more nodes before it; past
// a few sinks the search covers most of the graph every phase, and the
// saved phases no longer repay it.
const maxTargets = 8

const maxBackoff = 32

const (
	unseen uint8 = iota
	labelled
	settledNode
	deadEnd
	parked   // labelled, waiting in st.far above the heap's threshold
	deadNode // cannot reach T: never labelled
)

// Solve implements Solver.
func (o *SSP) Solve(ctx context.Context, n *Network) (*Solution, error) {
	if err := n.validate(); err != nil {
		return nil, err
	}
	sinks := 0
	for _, b := range n.supply {
		if b < 0 {
			sinks++
		}
	}
	multi := sinks > 1 && !o.SinglePath
	sol, err := o.solve(ctx, n, multi)
	if err == nil && multi && sol.Partial {
		// Serving several sinks per phase is exact only when every supply
		// is routed in the end; otherwise which sinks go short matters, and
		// the single-sink method decides that optimally.
		return o.solve(ctx, n, false)
	}
	return sol, err
}

// solve runs the method on a validated network; multi selects serving
// several sinks per Dijkstra phase (see multiTargets).
func (o *SSP) solve(ctx context.Context, n *Network, multi bool) (*Solution, error) {
	r, demand := newResidual(n, true)
	st := &sspState{
		multi:    multi,
		residual: r,
		pi:       make([]float64, r.n),
		dead:     make([]bool, r.n),
		dist:     make([]float64, r.n),
		parent:   make([]int32, r.n),
		state:    make([]uint8, r.n),
		cur:      make([]int32, r.n),
		onPath:   make([]bool, r.n),
		actEnd:   append([]int32(nil), r.fwdEnd...),
	}
	for i := range st.dist {
		st.dist[i] = math.Inf(1)
	}
	st.h = newHeap(r.n, st.dist)
	if err := r.initPotentials(st.pi, st.dead, st.h); err != nil {
		return nil, err
	}
	for v, d := range st.dead {
		if d {
			st.state[v] = deadNode
		}
	}
	if multi {
		// A sink's arc to T was added last among its forward arcs.
		st.tArc = make([]int32, r.n)
		for v := range st.tArc {
			st.tArc[v] = -1
			if e := r.fwdEnd[v] - 1; e >= r.start[v] && r.arcs[e].head == r.t {
				st.tArc[v] = e
			}
		}
	}
	for i := range st.dist {
		st.dist[i] = math.Inf(1)
	}
	if !st.dead[r.s] {
		for phase := 0; ; phase++ {
			// Every phase: a Dijkstra over a large network takes
			// milliseconds, and a server's call must stop soon after
			// its deadline (ctx.Err costs nanoseconds).
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if st.remaining() <= Eps {
				break
			}
			if !st.dijkstra() {
				st.reset()
				break
			}
			if st.multi {
				st.augmentTargets()
				st.reset()
				continue
			}
			st.augmentTree()
			if !o.SinglePath && st.ties {
				if st.wait > 0 {
					st.wait--
				} else if st.tightPaths() {
					st.backoff = 0
				} else {
					st.backoff = min(2*st.backoff+1, maxBackoff)
					st.wait = st.backoff
				}
			}
			st.reset()
		}
	}
	sol := &Solution{Flow: make([]float64, len(n.from)), Demand: demand, Augmentations: st.augs}
	for a := range sol.Flow {
		f := r.flow(a, n.capacity[a])
		sol.Flow[a] = f
		sol.Cost += f * n.cost[a]
	}
	for _, a := range r.sArcs {
		sol.Routed += r.arcs[r.arcs[a].pair].rcap
	}
	sol.Partial = st.remaining() > Eps // the loop's own stopping rule
	return sol, nil
}

// remaining is the supply not yet routed.
func (st *sspState) remaining() float64 {
	var s float64
	for _, a := range st.sArcs {
		s += st.arcs[a].rcap
	}
	return s
}

// dijkstra labels nodes from S with reduced-cost distances until T is
// settled, then moves the potentials of settled nodes v by dist[v]-dist[T].
// That equals the textbook update pi += min(dist, dist[T]) shifted by the
// constant -dist[T] (reduced costs ignore constants), so unsettled nodes keep
// their potentials and a phase costs only what it explored. It reports
// whether T was reached.
//
// The queue has two levels: labels up to a threshold theta live in the
// heap, larger ones are parked unsorted in st.far and enter the heap only
// if the heap runs dry first (theta then doubles). On FlowReader's networks
// the source reaches every node, but a phase settles only the nodes whose
// paths are nearly shortest, so most labels are never sorted. theta
// starts at the previous phase's dist[T]; the order of settling, and so the
// result, is that of a plain Dijkstra with the same tie-breaks.
func (st *sspState) dijkstra() bool {
	s, t := st.s, st.t
	// Local copies: the compiler cannot keep fields of st in registers
	// across the appends and calls in the loop.
	dist, pi, h, state, parent := st.dist, st.pi, st.h, st.state, st.parent
	start, actEnd, allArcs := st.start, st.actEnd, st.arcs
	touched, far := st.touched, st.far
	ties := false
	theta := st.lastD
	multi := st.multi
	var want float64
	if multi {
		want = st.remaining()
		st.targets = st.targets[:0]
	}
	dist[s] = 0
	state[s] = labelled
	touched = append(touched, s)
	h.push(s)
	for {
		if h.empty() {
			st.far = far
			ok := st.unpark(&theta)
			far = st.far
			if !ok {
				break
			}
		}
		u := h.pop()
		state[u] = settledNode
		st.settled = append(st.settled, u)
		if u == t {
			break
		}
		if multi {
			if a := st.tArc[u]; a >= 0 && allArcs[a].rcap > Eps {
				st.targets = append(st.targets, u)
				want -= allArcs[a].rcap
				if want <= Eps || len(st.targets) >= maxTargets {
					break
				}
			}
		}
		du := dist[u]
		base := du + pi[u]
		first := start[u]
		arcs := allArcs[first:actEnd[u]]
		for i := range arcs {
			e := &arcs[i]
			if e.rcap <= Eps {
				continue
			}
			v := e.head
			if multi && v == t {
				continue // sinks are found when settled; T is never expanded
			}
			sv := state[v]
			if sv == settledNode {
				if dist[v] == du && base+e.cost-pi[v] <= du {
					ties = true
				}
				continue
			}
			if sv == deadNode {
				continue
			}
			nd := base + e.cost - pi[v]
			if nd < du {
				nd = du // rounding noise on a zero reduced cost
			}
			if nd >= dist[v] {
				if nd == dist[v] {
					ties = true
				}
				continue
			}
			dist[v] = nd
			parent[v] = first + int32(i)
			if sv == unseen {
				touched = append(touched, v)
			}
			switch {
			case nd <= theta:
				state[v] = labelled
				h.push(v)
			case sv == unseen:
				state[v] = parked
				far = append(far, v)
			}
		}
	}
	st.touched, st.far, st.ties = touched, far, ties
	var D float64
	switch {
	case multi:
		if len(st.targets) == 0 {
			return false
		}
		// Potentials move by min(dist, D) with D the last settled label, so
		// every tree arc among settled nodes becomes tight.
		D = dist[st.settled[len(st.settled)-1]]
	case state[t] != settledNode:
		return false
	default:
		D = dist[t]
	}
	st.lastD = D
	for _, v := range st.settled {
		pi[v] += dist[v] - D
	}
	return true
}

// unpark raises theta until some parked label qualifies, moves the labels
// at or below it into the heap and compacts the parking list. It reports
// false when nothing is parked.
func (st *sspState) unpark(theta *float64) bool {
	far := st.far[:0]
	lo := math.Inf(1)
	for _, v := range st.far {
		if st.state[v] == parked {
			far = append(far, v)
			if d := st.dist[v]; d < lo {
				lo = d
			}
		}
	}
	st.far = far
	if len(far) == 0 {
		return false
	}
	th := 2 * *theta
	if 2*lo > th {
		th = 2 * lo
	}
	if lo <= 0 || th < lo {
		th = lo
	}
	*theta = th
	far = st.far[:0]
	for _, v := range st.far {
		if st.dist[v] <= th {
			st.state[v] = labelled
			st.h.push(v)
		} else {
			far = append(far, v)
		}
	}
	st.far = far
	return true
}

// augmentTree sends the bottleneck along the shortest-path tree's S–T path.
func (st *sspState) augmentTree() {
	path := st.path[:0]
	for v := st.t; v != st.s; {
		a := st.parent[v]
		path = append(path, a)
		v = st.arcs[st.arcs[a].pair].head
	}
	st.augment(path)
	st.path = path
}

// augment pushes the bottleneck of path (residual arcs) along it and keeps
// the active backward sections up to date; path entries follow any arc
// that moves.
func (st *sspState) augment(path []int32) bool {
	delta := math.Inf(1)
	for _, a := range path {
		if c := st.arcs[a].rcap; c < delta {
			delta = c
		}
	}
	if delta <= Eps {
		return false // an earlier path of this phase used it up
	}
	for _, a := range path {
		st.arcs[a].rcap -= delta
		st.arcs[st.arcs[a].pair].rcap += delta
	}
	for i := range path {
		st.activate(st.arcs[path[i]].pair, path)
		if a := path[i]; st.arcs[a].rcap <= Eps {
			st.deactivate(a, path)
		}
	}
	st.augs++
	return true
}

// augmentTargets sends flow to each sink collected by the search, in the
// order settled, along its tree path and its arc to T. Every tree arc is
// tight after the potential update, so each is a shortest path for the
// original arcs; only the arcs into T are not tight, which is harmless
// when all supply is routed in the end (Solve re-solves otherwise).
func (st *sspState) augmentTargets() {
	for _, v := range st.targets {
		path := append(st.path[:0], st.tArc[v])
		for u := v; u != st.s; {
			a := st.parent[u]
			path = append(path, a)
			u = st.arcs[st.arcs[a].pair].head
		}
		st.augment(path)
		st.path = path
	}
}

// Each node's backward arcs (the reversals of arcs entering it) are kept
// partitioned: those with residual capacity first, up to actEnd[v]. Searches
// scan start[v]..actEnd[v]-1 only, which on FlowReader's networks skips the
// thousands of empty reversals at each aspect node. Forward arcs never
// move, so fwd and sArcs stay valid.

// activate moves backward arc b into its node's active section if it has
// residual capacity and is not there yet.
func (st *sspState) activate(b int32, path []int32) {
	v := st.arcs[st.arcs[b].pair].head
	if b < st.fwdEnd[v] || b < st.actEnd[v] || st.arcs[b].rcap <= Eps {
		return
	}
	st.swapArcs(b, st.actEnd[v], path)
	st.actEnd[v]++
}

// deactivate moves backward arc b out of its node's active section.
func (st *sspState) deactivate(b int32, path []int32) {
	v := st.arcs[st.arcs[b].pair].head
	if b < st.fwdEnd[v] || b >= st.actEnd[v] {
		return
	}
	st.actEnd[v]--
	st.swapArcs(b, st.actEnd[v], path)
}

// swapArcs exchanges residual arcs at positions x and y of one node's
// block, repairing their partners' pair links and any references in path.
func (st *sspState) swapArcs(x, y int32, path []int32) {
	if x == y {
		return
	}
	arcs := st.arcs
	arcs[x], arcs[y] = arcs[y], arcs[x]
	arcs[arcs[x].pair].pair = x
	arcs[arcs[y].pair].pair = y
	// Tree paths of this phase still to be augmented follow parent links.
	hx, hy := arcs[x].head, arcs[y].head
	px, py := st.parent[hx] == y, st.parent[hy] == x
	if px {
		st.parent[hx] = x
	}
	if py {
		st.parent[hy] = y
	}
	for j, a := range path {
		if a == x {
			path[j] = y
		} else if a == y {
			path[j] = x
		}
	}
}

// tightPaths saturates further S–T paths made only of settled nodes and
// arcs of zero reduced cost (after the potential update): all are shortest
// paths, so augmenting along them keeps the flow optimal, and doing it now
// saves one Dijkstra each. It is a depth-first search with current-arc
// pointers and dead-end marking, so it costs O(arcs of settled nodes) plus
// the path lengths; arcs into nodes on the current path are skipped, which
// keeps zero-cost cycles harmless. It reports whether it found a path.
func (st *sspState) tightPaths() bool {
	before := st.augs
	for _, v := range st.settled {
		st.cur[v] = st.start[v]
	}
	s, t := st.s, st.t
	pi := st.pi
	stack := st.stack[:0]
	u := s
	st.onPath[s] = true
	for {
		if u == t {
			st.augment(stack)
			cut := 0
			for cut < len(stack) && st.arcs[stack[cut]].rcap > Eps {
				cut++
			}
			// Retreat to the tail of the first saturated arc.
			for i := len(stack) - 1; i >= cut; i-- {
				st.onPath[st.arcs[stack[i]].head] = false
			}
			stack = stack[:cut]
			if len(stack) == 0 {
				u = s
			} else {
				u = st.arcs[stack[len(stack)-1]].head
			}
			continue
		}
		advanced := false
		for a, end := st.cur[u], st.actEnd[u]; a < end; a++ {
			if st.arcs[a].rcap <= Eps {
				continue
			}
			v := st.arcs[a].head
			if st.state[v] != settledNode || st.onPath[v] {
				continue
			}
			if st.arcs[a].cost+pi[u]-pi[v] > 0 {
				continue
			}
			st.cur[u] = a
			stack = append(stack, a)
			st.onPath[v] = true
			u = v
			advanced = true
			break
		}
		if advanced {
			continue
		}
		// Dead end: u leaves the search for this phase.
		st.cur[u] = st.actEnd[u]
		st.state[u] = deadEnd
		st.onPath[u] = false
		if u == s {
			break
		}
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			u = s
		} else {
			u = st.arcs[stack[len(stack)-1]].head
		}
	}
	st.onPath[s] = false
	st.stack = stack
	return st.augs > before
}

// reset clears the labels of this phase's touched nodes only.
func (st *sspState) reset() {
	for _, v := range st.touched {
		st.dist[v] = math.Inf(1)
		st.state[v] = unseen
	}
	st.touched = st.touched[:0]
	st.settled = st.settled[:0]
	st.far = st.far[:0]
	st.h.clear()
}
