package flow

import (
	"slices"

	"github.com/flowreader/flowreader/flow/mcf"
)

// liveFromPairs marks the content nodes the source can reach: the nodes
// in marks (those with an entry capacity above mcf.Eps; entered of them)
// and those content arcs (capacity unit, pair i oriented by orient) lead to
// from them. It returns the marks and their count, or nil and n when every
// node is live. It walks only the pairs of live nodes, and none when the
// caller knows the entered nodes to be closed under the arcs (upward, as
// under ByRelevance with entry by an h floor: arcs climb in h); it then
// returns in itself, which the caller must not modify.
//
// Only arcs whose tail is live can ever carry flow, and solving just those
// gives the same flow bit for bit: no augmenting path of the successive
// shortest path method meets a node the source cannot reach (the reversal
// of an arc only gains capacity once the arc carries flow), the DAG
// potentials of the nodes it does reach read only their own out-arcs, and
// every arc scan keeps id order among the kept arcs. Under DemandFloor most
// nodes get no entry capacity and since content arcs climb in h no chain
// reaches them, so this drops them with their content and terminal arcs.
func liveFromPairs(in []bool, entered int, ps *pairSet, orient func(int) (int, int), unit float64, closed bool) ([]bool, int) {
	n := len(in)
	if entered == n {
		return nil, n
	}
	if closed || unit <= mcf.Eps {
		return in, entered
	}
	live := slices.Clone(in)
	count := entered
	stack := make([]int, 0, entered)
	for v, ok := range in {
		if ok {
			stack = append(stack, v)
		}
	}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range ps.incident(u) {
			if from, to := orient(int(e.pair)); from == u && !live[to] {
				live[to] = true
				count++
				stack = append(stack, to)
			}
		}
	}
	if count == n {
		return nil, n
	}
	return live, count
}

// livePairs returns the indexes, increasing, of the pairs whose tail (by
// orient) is live. With closed set (live is closed under the arcs, as
// liveFromPairs makes it when unit > mcf.Eps) a pair has a live tail
// exactly when both its ends are live, and since pairs are sorted by
// (u, v) the pairs whose lower end is u form one block of indexes: walking
// the live nodes in order and keeping the pairs each is the lower end of
// gives the indexes sorted without orienting or sorting anything.
func livePairs(live []bool, ps *pairSet, orient func(int) (int, int), closed bool) []int {
	var out []int
	for u, ok := range live {
		if !ok {
			continue
		}
		for _, e := range ps.incident(u) {
			if closed {
				// u is the pair's lower end when the other end is above it.
				if int(e.other) > u && live[e.other] {
					out = append(out, int(e.pair))
				}
			} else if from, _ := orient(int(e.pair)); from == u {
				out = append(out, int(e.pair))
			}
		}
	}
	if !closed {
		slices.Sort(out)
	}
	return out
}

// liveNet is the live sub-network: the live content nodes renumbered
// 0..len(back)-1 in id order, the nodes past the content nodes (source,
// sink, aspects) after them in the same order, and only the arcs between
// kept nodes whose tail is live. The arcs it drops have a dead tail or a
// capacity at or below mcf.Eps (a live tail and a dead head), so none can
// carry flow or is ever scanned; renumbering keeps every id order, so the
// solve and the decomposition are those of the full network.
type liveNet struct {
	net  *mcf.Network
	arcs []int   // id in the full network of each arc
	node []int32 // content node → its id here, -1 if dead
	back []int   // content id here → the node's id in the full network
}

// id maps a node of the full network to its id here (-1 if dead).
func (l *liveNet) id(v int) int {
	if v < len(l.node) {
		return int(l.node[v])
	}
	return v - len(l.node) + len(l.back)
}

// netBuilder adds arcs to the full network and, when live is set, the
// arcs between kept nodes to the live sub-network. With full nil (a lazy
// routing) it only numbers the arcs of the full network, so that live.arcs
// still holds full-network ids.
type netBuilder struct {
	full *mcf.Network
	live *liveNet
	next int // id of the next arc of the full network
}

func newNetBuilder(nodes, arcs int, live []bool, lazy bool) *netBuilder {
	b := &netBuilder{}
	if !lazy || live == nil {
		b.full = mcf.NewNetwork(nodes)
		b.full.Grow(arcs)
	}
	if live != nil {
		b.live = newLiveNet(live, nodes-len(live))
	}
	return b
}

// newLiveNet numbers the live content nodes and makes an empty network of
// them and the extra nodes past them (source, sink, aspects).
func newLiveNet(live []bool, extra int) *liveNet {
	l := &liveNet{node: make([]int32, len(live))}
	for v, ok := range live {
		l.node[v] = -1
		if ok {
			l.node[v] = int32(len(l.back))
			l.back = append(l.back, v)
		}
	}
	l.net = mcf.NewNetwork(len(l.back) + extra)
	return l
}

// add adds arc id of the full network, u→v, when both ends are kept.
func (l *liveNet) add(id, u, v int, c, w float64) {
	if x, y := l.id(u), l.id(v); x >= 0 && y >= 0 {
		l.net.AddArc(x, y, c, w)
		l.arcs = append(l.arcs, id)
	}
}

// skip numbers n arcs of the full network with tail u and reports true
// when only the live network is built and u is a dead content node: none
// of those arcs is kept, so the caller need not add them one by one.
func (b *netBuilder) skip(u, n int) bool {
	if b.full != nil || b.live == nil || u >= len(b.live.node) || b.live.node[u] >= 0 {
		return false
	}
	b.next += n
	return true
}

func (b *netBuilder) add(u, v int, c, w float64) {
	id := b.next
	b.next++
	if b.full != nil {
		b.full.AddArc(u, v, c, w)
	}
	if b.live != nil {
		b.live.add(id, u, v, c, w)
	}
}
