package mcf

import (
	"fmt"
	"math"
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
// On a DAG this is one pass in reverse topological order. Otherwise a
// negative-cycle check runs first when any usable arc has a negative cost,
// then Bellman–Ford (queue-based) or, for non-negative costs, Dijkstra on the
// reversed residual graph.
func (r *residual) initPotentials(pi []float64, dead []bool, h *heap) error {
	dist := make([]float64, r.n)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	dist[r.t] = 0
	order, acyclic := r.topoOrder()
	switch {
	case acyclic:
		for i := len(order) - 1; i >= 0; i-- {
			u := order[i]
			d := dist[u]
			for a := r.start[u]; a < r.start[u+1]; a++ {
				if r.rcap[a] <= Eps {
					continue
				}
				if nd := r.cost[a] + dist[r.head[a]]; nd < d {
					d = nd
				}
			}
			dist[u] = d
		}
	default:
		negative := false
		for a := range r.rcap {
			if r.rcap[a] > Eps && r.cost[a] < 0 {
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

// topoOrder returns a topological order of the usable arcs (rcap > Eps) by
// Kahn's algorithm with a FIFO queue, and whether the graph is acyclic.
func (r *residual) topoOrder() ([]int32, bool) {
	indeg := make([]int32, r.n)
	for a := range r.rcap {
		if r.rcap[a] > Eps {
			indeg[r.head[a]]++
		}
	}
	order := make([]int32, 0, r.n)
	for v := 0; v < r.n; v++ {
		if indeg[v] == 0 {
			order = append(order, int32(v))
		}
	}
	for i := 0; i < len(order); i++ {
		u := order[i]
		for a := r.start[u]; a < r.start[u+1]; a++ {
			if r.rcap[a] <= Eps {
				continue
			}
			v := r.head[a]
			indeg[v]--
			if indeg[v] == 0 {
				order = append(order, v)
			}
		}
	}
	return order, len(order) == r.n
}

// checkNegativeCycle runs queue-based Bellman–Ford from a virtual root joined
// to every node by a zero-cost arc; a shortest-path tree path of n or more
// arcs proves a negative cycle.
func (r *residual) checkNegativeCycle() error {
	dist := make([]float64, r.n)
	length := make([]int32, r.n)
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
			if r.rcap[a] <= Eps {
				continue
			}
			v := r.head[a]
			if nd := dist[u] + r.cost[a]; nd < dist[v] {
				dist[v] = nd
				length[v] = length[u] + 1
				if int(length[v]) >= r.n {
					return fmt.Errorf("mcf: cycle through node %d: %w", v, ErrNegativeCycle)
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
			a := r.pair[b] // the arc u→w paired with w's arc b
			if r.rcap[a] <= Eps {
				continue
			}
			u := r.head[b]
			if nd := dist[w] + r.cost[a]; nd < dist[u] {
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
			a := r.pair[b]
			if r.rcap[a] <= Eps {
				continue
			}
			u := r.head[b]
			if done[u] {
				continue
			}
			if nd := dist[w] + r.cost[a]; nd < dist[u] {
				dist[u] = nd
				h.push(u)
			}
		}
	}
}
