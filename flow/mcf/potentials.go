package mcf

import (
	"math"
	"slices"
)

// initPotentials sets pi[v] = -dist(v, T), the negated cost of a cheapest
// residual path from v to the super-sink, so that every residual arc has a
// non-negative reduced cost c(u,v) + pi[u] - pi[v]. Using distances to T
// (rather than from S) makes the first Dijkstra goal-directed: its distance
// labels are the excess cost of the best S–v–T path over the optimum, so the
// search stops after settling little more than the optimal path.
//
// Nodes that cannot reach T are marked dead: no augmenting path ever uses
// them (reaching T is never created by augmentation, which only reverses
// arcs between nodes that already reach T).
//
// On a DAG this is one pass in reverse topological order (dagDistToT).
// Otherwise a
// negative-cycle check runs first when any usable arc has a negative cost,
// then Bellman–Ford (queue-based) or, for non-negative costs, Dijkstra on the
// reversed residual graph.
func (r *residual) initPotentials(pi []float64, dead []bool, h *heap) error {
	dist := pi // computed in place, then negated
	if !r.dagDistToT(dist) {
		for i := range dist {
			dist[i] = math.Inf(1)
		}
		dist[r.t] = 0
		negative := false
		for a := range r.arcs {
			if r.arcs[a].rcap > Eps && r.arcs[a].cost < 0 {
				negative = true
				break
			}
		}
		if negative {
			if err := r.checkNegativeCycle(); err != nil {
				return err
			}
			r.bellmanFordToT(dist)
		} else {
			r.dijkstraToT(dist, h)
		}
	}
	for v := range pi {
		if math.IsInf(dist[v], 1) {
			dead[v] = true
			pi[v] = 0
		} else {
			pi[v] = -dist[v]
		}
	}
	return nil
}

// dagDistToT sets dist[v] to the cost of a cheapest usable path v→T (+Inf
// if none) when the usable arcs (rcap > Eps) form a DAG, and reports whether
// they do. It is one iterative depth-first search over the forward arcs:
// a node's distance is final when it finishes (post-order is a reverse
// topological order), and meeting a node still on the stack proves a cycle.
// Each arc is read once.
func (r *residual) dagDistToT(dist []float64) bool {
	const (
		white uint8 = iota
		grey
		black
	)
	color := make([]uint8, r.n)
	next := make([]int32, r.n)
	stack := make([]int32, 0, 64)
	arcs, fwdEnd := r.arcs, r.fwdEnd
	inf := math.Inf(1)
	enter := func(v int32) {
		color[v] = grey
		next[v] = r.start[v]
		dist[v] = inf
		if v == r.t {
			dist[v] = 0
		}
		stack = append(stack, v)
	}
	visit := func(root int32) bool {
		stack = stack[:0]
		enter(root)
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			// Scan u's arcs in one go until a white head needs a visit.
			du := dist[u]
			a, end := next[u], fwdEnd[u]
			descend := int32(-1)
			for ; a < end; a++ {
				e := &arcs[a]
				if e.rcap <= Eps {
					continue
				}
				v := e.head
				c := color[v]
				if c == white {
					descend = v
					a++
					break
				}
				if c == grey {
					return false
				}
				if d := e.cost + dist[v]; d < du {
					du = d
				}
			}
			next[u] = a
			dist[u] = du
			if descend >= 0 {
				enter(descend)
				continue
			}
			color[u] = black
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				if d := arcs[next[p]-1].cost + du; d < dist[p] {
					dist[p] = d
				}
			}
		}
		return true
	}
	if r.s >= 0 && !visit(r.s) {
		return false
	}
	for v := int32(0); v < int32(r.n); v++ {
		if color[v] == white && !visit(v) {
			return false
		}
	}
	return true
}

// checkNegativeCycle runs queue-based Bellman–Ford from a virtual root joined
// to every node by a zero-cost arc; a shortest-path tree path of n or more
// arcs proves a negative cycle.
func (r *residual) checkNegativeCycle() error {
	dist := make([]float64, r.n)
	length := make([]int32, r.n)
	parent := make([]int32, r.n)
	inQueue := make([]bool, r.n)
	queue := make([]int32, 0, r.n)
	for v := 0; v < r.n; v++ {
		queue = append(queue, int32(v))
		inQueue[v] = true
	}
	for head := 0; head < len(queue); head++ {
		u := queue[head]
		inQueue[u] = false
		for a := r.start[u]; a < r.start[u+1]; a++ {
			if r.arcs[a].rcap <= Eps {
				continue
			}
			v := r.arcs[a].head
			if nd := dist[u] + r.arcs[a].cost; nd < dist[v] {
				dist[v] = nd
				length[v] = length[u] + 1
				parent[v] = a
				if int(length[v]) >= r.n {
					return r.cycleError(v, parent)
				}
				if !inQueue[v] {
					inQueue[v] = true
					queue = append(queue, v)
				}
			}
		}
		if head > 1<<20 && head > len(queue)/2 {
			// Compact the queue so that it does not grow without bound.
			queue = append(queue[:0], queue[head+1:]...)
			head = -1
		}
	}
	return nil
}

// cycleError extracts the cycle that Bellman–Ford's parent links from v
// lead into (a cycle of parent links always has negative cost).
func (r *residual) cycleError(v int32, parent []int32) error {
	for i := 0; i < r.n; i++ {
		v = r.arcs[r.arcs[parent[v]].pair].head
	}
	orig := make(map[int32]int, r.n)
	for a, ra := range r.fwd {
		orig[ra] = a
	}
	e := &NegativeCycleError{}
	for u := v; ; {
		a := parent[u]
		e.Arcs = append(e.Arcs, orig[a])
		e.Cost += r.arcs[a].cost
		u = r.arcs[r.arcs[a].pair].head
		if u == v {
			break
		}
	}
	// Report the cycle in forward order, starting from its lowest arc id.
	slices.Reverse(e.Arcs)
	k := 0
	for i, a := range e.Arcs {
		if a < e.Arcs[k] {
			k = i
		}
	}
	e.Arcs = append(e.Arcs[k:], e.Arcs[:k]...)
	return e
}

// bellmanFordToT computes dist[v] = cost of a cheapest usable path v→T by
// queue-based Bellman–Ford on the reversed graph; there must be no negative
// cycle.
func (r *residual) bellmanFordToT(dist []float64) {
	inQueue := make([]bool, r.n)
	queue := []int32{r.t}
	inQueue[r.t] = true
	for head := 0; head < len(queue); head++ {
		w := queue[head]
		inQueue[w] = false
		for b := r.start[w]; b < r.start[w+1]; b++ {
			a := r.arcs[b].pair // the arc u→w paired with w's arc b
			if r.arcs[a].rcap <= Eps {
				continue
			}
			u := r.arcs[b].head
			if nd := dist[w] + r.arcs[a].cost; nd < dist[u] {
				dist[u] = nd
				if !inQueue[u] {
					inQueue[u] = true
					queue = append(queue, u)
				}
			}
		}
		if head > 1<<20 && head > len(queue)/2 {
			queue = append(queue[:0], queue[head+1:]...)
			head = -1
		}
	}
}

// dijkstraToT computes dist[v] = cost of a cheapest usable path v→T by
// Dijkstra on the reversed graph; all usable costs must be non-negative.
func (r *residual) dijkstraToT(dist []float64, h *heap) {
	saved := h.key
	h.key = dist
	defer func() { h.key = saved }()
	done := make([]bool, r.n)
	h.push(r.t)
	for !h.empty() {
		w := h.pop()
		done[w] = true
		for b := r.start[w]; b < r.start[w+1]; b++ {
			a := r.arcs[b].pair
			if r.arcs[a].rcap <= Eps {
				continue
			}
			u := r.arcs[b].head
			if done[u] {
				continue
			}
			if nd := dist[w] + r.arcs[a].cost; nd < dist[u] {
				dist[u] = nd
				h.push(u)
			}
		}
	}
}
