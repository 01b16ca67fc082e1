package mcf

import (
	"fmt"
	"math"
)

// MaxFlow returns the value of a maximum s–t flow (Dinic's algorithm; costs
// and supplies are ignored) and the source side of a minimum cut:
// sourceSide[v] reports that v is reachable from s in the final residual
// network, arcs with residual capacity at or below Eps counting as
// saturated. Every arc from the source side to the rest is saturated, and
// their capacities sum to value.
func MaxFlow(n *Network, s, t int) (value float64, sourceSide []bool, err error) {
	if err := n.validateArcs(); err != nil {
		return 0, nil, err
	}
	nn := n.NumNodes()
	if s < 0 || s >= nn || t < 0 || t >= nn {
		return 0, nil, fmt.Errorf("mcf: max flow %d→%d: node outside 0..%d: %w", s, t, nn-1, ErrInvalid)
	}
	if s == t {
		return 0, nil, fmt.Errorf("mcf: max flow %d→%d: source equals sink: %w", s, t, ErrInvalid)
	}
	r, _ := newResidual(n, false)
	level := make([]int32, nn)
	queue := make([]int32, 0, nn)
	cur := make([]int32, nn)
	stack := make([]int32, 0, 64)
	src, snk := int32(s), int32(t)
	bfs := func() bool {
		for i := range level {
			level[i] = -1
		}
		level[src] = 0
		queue = append(queue[:0], src)
		for i := 0; i < len(queue); i++ {
			u := queue[i]
			for a := r.start[u]; a < r.start[u+1]; a++ {
				if v := r.arcs[a].head; r.arcs[a].rcap > Eps && level[v] < 0 {
					level[v] = level[u] + 1
					queue = append(queue, v)
				}
			}
		}
		return level[snk] >= 0
	}
	for bfs() {
		copy(cur, r.start[:nn])
		stack = stack[:0]
		u := src
		for {
			if u == snk {
				delta := math.Inf(1)
				for _, a := range stack {
					delta = math.Min(delta, r.arcs[a].rcap)
				}
				cut := -1
				for i, a := range stack {
					r.arcs[a].rcap -= delta
					r.arcs[r.arcs[a].pair].rcap += delta
					if cut < 0 && r.arcs[a].rcap <= Eps {
						cut = i
					}
				}
				value += delta
				stack = stack[:cut]
				u = r.top(stack, src)
				continue
			}
			advanced := false
			for a, end := cur[u], r.start[u+1]; a < end; a++ {
				v := r.arcs[a].head
				if r.arcs[a].rcap > Eps && level[v] == level[u]+1 {
					cur[u] = a
					stack = append(stack, a)
					u = v
					advanced = true
					break
				}
			}
			if advanced {
				continue
			}
			cur[u] = r.start[u+1]
			level[u] = -1 // dead end for this phase
			if u == src {
				break
			}
			stack = stack[:len(stack)-1]
			u = r.top(stack, src)
		}
	}
	sourceSide = make([]bool, nn)
	for v := range sourceSide {
		sourceSide[v] = level[v] >= 0
	}
	return value, sourceSide, nil
}

// top returns the node at the end of a search path of residual arcs.
func (r *residual) top(stack []int32, src int32) int32 {
	if len(stack) == 0 {
		return src
	}
	return r.arcs[stack[len(stack)-1]].head
}
