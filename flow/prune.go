package flow

import (
	"github.com/flowreader/flowreader/flow/mcf"
)

// liveNodes marks the content nodes the source can reach: those with an
// entry capacity above mcf.Eps and those content arcs (capacity unit) lead
// to from them. It returns nil when every node is live or unit cannot carry
// flow.
//
// Only arcs whose tail is live can ever carry flow, and solving just those
// gives the same flow bit for bit: no augmenting path of the successive
// shortest path method meets a node the source cannot reach (the reversal
// of an arc only gains capacity once the arc carries flow), the DAG
// potentials of the nodes it does reach read only their own out-arcs, and
// every arc scan keeps id order among the kept arcs. Under DemandFloor most
// nodes get no entry capacity and since content arcs climb in h no chain
// reaches them, so this drops them with their content and terminal arcs.
func liveNodes(entry []float64, arcs []arc, unit float64) []bool {
	n := len(entry)
	live := make([]bool, n)
	var stack []int
	for v, c := range entry {
		if c > mcf.Eps {
			live[v] = true
			stack = append(stack, v)
		}
	}
	if len(stack) == n {
		return nil
	}
	closed := true
	for _, e := range arcs {
		if live[e.from] && !live[e.to] {
			closed = false
			break
		}
	}
	if !closed && unit > mcf.Eps {
		// Content arcs by tail, in CSR form.
		start := make([]int32, n+1)
		for _, e := range arcs {
			start[e.from+1]++
		}
		for v := 0; v < n; v++ {
			start[v+1] += start[v]
		}
		heads := make([]int32, len(arcs))
		next := append([]int32(nil), start[:n]...)
		for _, e := range arcs {
			heads[next[e.from]] = int32(e.to)
			next[e.from]++
		}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range heads[start[u]:start[u+1]] {
				if !live[v] {
					live[v] = true
					stack = append(stack, int(v))
				}
			}
		}
	}
	for _, l := range live {
		if !l {
			return live
		}
	}
	return nil
}

// netBuilder adds arcs to the full network and, when live is set, also to
// the live sub-network (the arcs whose tail is a live content node or a
// node past the content nodes), recording each kept arc's id in full.
type netBuilder struct {
	full, sub *mcf.Network
	ids       []int
	live      []bool
}

func newNetBuilder(nodes, arcs int, live []bool) *netBuilder {
	b := &netBuilder{full: mcf.NewNetwork(nodes), live: live}
	b.full.Grow(arcs)
	if live != nil {
		b.sub = mcf.NewNetwork(nodes)
	}
	return b
}

func (b *netBuilder) add(u, v int, c, w float64) {
	id := b.full.AddArc(u, v, c, w)
	if b.sub != nil && (u >= len(b.live) || b.live[u]) {
		b.sub.AddArc(u, v, c, w)
		b.ids = append(b.ids, id)
	}
}
