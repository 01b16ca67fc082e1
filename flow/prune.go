package flow

import (
	"github.com/flowreader/flowreader/flow/mcf"
)

// liveNetwork is the part of net that can carry flow out of src: every arc
// whose tail is src or a node reachable from src through arcs of capacity
// above mcf.Eps, in id order, and the id in net of each. It returns nil
// when that is every arc.
//
// Solving it instead of net gives the same flow, bit for bit: no s–t path,
// and so no augmenting path of the successive shortest path method, ever
// meets a node src cannot reach (the reversal of an arc only gains capacity
// once the arc carries flow), the DAG potentials of the nodes it does reach
// read only their own out-arcs, and every arc scan keeps id order among the
// kept arcs. Under DemandFloor most nodes get a zero entry capacity and
// since content arcs climb in h no chain reaches them, so this drops them
// with their content and terminal arcs (N·A of them); node ids are kept so
// that chains read the same ids.
func liveNetwork(net *mcf.Network, src int) (*mcf.Network, []int) {
	nn, m := net.NumNodes(), net.NumArcs()
	// Out-arcs in CSR form, by tail, in id order.
	start := make([]int32, nn+1)
	for id := 0; id < m; id++ {
		u, _, _, _ := net.Arc(id)
		start[u+1]++
	}
	for v := 0; v < nn; v++ {
		start[v+1] += start[v]
	}
	out := make([]int32, m)
	next := append([]int32(nil), start[:nn]...)
	for id := 0; id < m; id++ {
		u, _, _, _ := net.Arc(id)
		out[next[u]] = int32(id)
		next[u]++
	}
	reach := make([]bool, nn)
	reach[src] = true
	stack := []int{src}
	kept := start[src+1] - start[src]
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, id := range out[start[u]:start[u+1]] {
			_, v, c, _ := net.Arc(int(id))
			if c > mcf.Eps && !reach[v] {
				reach[v] = true
				kept += start[v+1] - start[v]
				stack = append(stack, v)
			}
		}
	}
	if int(kept) == m {
		return nil, nil
	}
	sub := mcf.NewNetwork(nn)
	for v := 0; v < nn; v++ {
		sub.SetSupply(v, net.Supply(v))
	}
	ids := make([]int, 0, kept)
	for id := 0; id < m; id++ {
		u, v, c, w := net.Arc(id)
		if reach[u] {
			sub.AddArc(u, v, c, w)
			ids = append(ids, id)
		}
	}
	return sub, ids
}
