package mcf

// residual is the residual network of a Network extended with a virtual
// super-source S (index n) and super-sink T (index n+1): an arc S→v of
// capacity b_v for every supply node and v→T of capacity -b_v for every
// demand node, all of cost 0. A minimum-cost maximum S–T flow in it is a
// minimum-cost flow of the original problem (or, when the supplies cannot
// all be routed, the Partial fallback).
//
// It is stored in compressed-sparse-row form: the residual arcs leaving node
// v are start[v]..start[v+1]-1, each original arc contributing a forward arc
// at its tail and the paired backward arc at its head. Forward arcs come
// first in each node's block (start[v]..fwdEnd[v]-1), so passes over the
// initial network skip the empty backward arcs.
type residual struct {
	n      int // nodes, including S and T
	s, t   int32
	start  []int32
	fwdEnd []int32
	arcs   []rarc
	fwd    []int32 // fwd[a] is the forward residual arc of original arc a
	sArcs  []int32 // forward residual arcs S→v
}

// newResidual builds the residual network; net must be valid. demand is the
// total positive supply. With terminals false, S and T are omitted (n is the
// network's node count and supplies are ignored), as MaxFlow needs.
func newResidual(net *Network, terminals bool) (r *residual, demand float64) {
	nn := len(net.supply)
	m := len(net.from)
	r = &residual{n: nn, s: -1, t: -1}
	if terminals {
		r.n, r.s, r.t = nn+2, int32(nn), int32(nn+1)
	}
	outDeg := make([]int32, r.n)
	inDeg := make([]int32, r.n)
	extra := 0
	for v, b := range net.supply {
		if !terminals {
			break
		}
		if b > 0 {
			outDeg[r.s]++
			inDeg[v]++
			extra++
			demand += b
		} else if b < 0 {
			outDeg[v]++
			inDeg[r.t]++
			extra++
		}
	}
	for i := 0; i < m; i++ {
		outDeg[net.from[i]]++
		inDeg[net.to[i]]++
	}
	r.start = make([]int32, r.n+1)
	r.fwdEnd = make([]int32, r.n)
	for v := 0; v < r.n; v++ {
		r.fwdEnd[v] = r.start[v] + outDeg[v]
		r.start[v+1] = r.fwdEnd[v] + inDeg[v]
	}
	nextF, nextB := outDeg, inDeg // reused as cursors
	copy(nextF, r.start[:r.n])
	copy(nextB, r.fwdEnd)
	total := 2 * (m + extra)
	r.arcs = make([]rarc, total)
	r.fwd = make([]int32, m)
	add := func(u, v int32, c, k float64) int32 {
		a, b := nextF[u], nextB[v]
		nextF[u]++
		nextB[v]++
		r.arcs[a] = rarc{rcap: c, cost: k, head: v, pair: b}
		r.arcs[b] = rarc{cost: -k, head: u, pair: a}
		return a
	}
	for v, b := range net.supply {
		if !terminals {
			break
		}
		if b > 0 {
			r.sArcs = append(r.sArcs, add(r.s, int32(v), b, 0))
		}
	}
	for i := 0; i < m; i++ {
		r.fwd[i] = add(net.from[i], net.to[i], net.capacity[i], net.cost[i])
	}
	for v, b := range net.supply {
		if !terminals {
			break
		}
		if b < 0 {
			add(int32(v), r.t, -b, 0)
		}
	}
	return r, demand
}

// rarc is one residual arc. The fields an arc scan reads sit together, so
// one arc costs one cache-line fetch rather than one per field.
type rarc struct {
	rcap float64 // residual capacity
	cost float64 // +cost forward, -cost backward
	head int32
	pair int32 // the opposite residual arc
}

// flow returns the flow on original arc a, clamped to [0, cap] and with
// values at or below Eps reported as 0.
//
// It reads the forward arc (capacity minus residual), which lies in tail
// order and so is read almost sequentially, rather than the scattered
// backward arc; the two differ only by rounding, and
// an untouched or saturated arc gives exactly 0 or the capacity.
func (r *residual) flow(a int, capacity float64) float64 {
	f := capacity - r.arcs[r.fwd[a]].rcap
	if f <= Eps {
		return 0
	}
	if f > capacity {
		return capacity
	}
	return f
}
