package flow

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/flowreader/flowreader/graph"
)

// pair is an undirected content edge u < v as a router sees it.
type pair struct {
	u, v int
	// cos is max(cos(e_u, e_v), 0), the graph weight (agreement ω).
	cos float64
	// aff is the affinity: cos unless a System-2 edit set it.
	aff float64
	// edited marks pairs whose affinity a System-2 edit set.
	edited bool
}

// editTable resolves cumulative edits: the last edit of a pair wins.
type editTable struct {
	last map[[2]int]EdgeEdit
	adds [][2]int // pairs with Add, in canonical order, deduplicated
}

func newEditTable(es []EdgeEdit) editTable {
	t := editTable{last: map[[2]int]EdgeEdit{}}
	for _, e := range es {
		k := canon(e.U, e.V)
		t.last[k] = e
	}
	for _, e := range es {
		k := canon(e.U, e.V)
		if t.last[k].Add {
			t.adds = append(t.adds, k)
		}
	}
	sort.Slice(t.adds, func(i, j int) bool {
		if t.adds[i][0] != t.adds[j][0] {
			return t.adds[i][0] < t.adds[j][0]
		}
		return t.adds[i][1] < t.adds[j][1]
	})
	out := t.adds[:0]
	for _, k := range t.adds {
		if n := len(out); n > 0 && out[n-1] == k {
			continue
		}
		out = append(out, k)
	}
	t.adds = out
	return t
}

func canon(u, v int) [2]int {
	if u > v {
		u, v = v, u
	}
	return [2]int{u, v}
}

// contentPairs returns the undirected content edges: graph edges whose kind
// intersects kinds (and pass keep, when set), reading-order pairs within
// window positions of the same document, and pairs added by edits; sorted by
// (u, v), without duplicates. Edited pairs carry the edited affinity and are
// kept whatever keep says (a scorer judged them).
func contentPairs(g *graph.Graph, kinds graph.EdgeKind, window int, keep func(w float32) bool, edits editTable) []pair {
	var order [][2]int
	if window > 0 {
		order = orderPairs(g, window)
	}
	return contentPairsOrder(g, kinds, order, keep, edits)
}

// contentPairsOrder is contentPairs with the reading-order pairs given
// (canonical, as orderPairs returns them).
func contentPairsOrder(g *graph.Graph, kinds graph.EdgeKind, order [][2]int, keep func(w float32) bool, edits editTable) []pair {
	// use reports whether graph edge e is a content pair.
	use := func(e *graph.Edge) bool {
		if e.Kind&kinds == 0 {
			return false
		}
		if keep != nil && !keep(e.Weight) {
			if _, edited := edits.last[[2]int{int(e.U), int(e.V)}]; !edited {
				return false
			}
		}
		return true
	}
	var extra []pair
	for _, k := range order {
		extra = append(extra, pair{u: k[0], v: k[1], cos: cosWeight(g, k[0], k[1])})
	}
	for _, k := range edits.adds {
		extra = append(extra, pair{u: k[0], v: k[1], cos: cosWeight(g, k[0], k[1])})
	}
	// Graph edges come sorted by (U, V); sort the few extra pairs on a packed
	// key (unless they already are, as reading-order pairs usually come) and
	// merge them in without copying the edges out first. Equal keys carry
	// equal values (the same rounded cosine), so which duplicate survives
	// does not matter.
	key := func(p pair) uint64 { return uint64(p.u)<<32 | uint64(p.v) }
	cmpKey := func(a, b pair) int { return cmp.Compare(key(a), key(b)) }
	if !slices.IsSortedFunc(extra, cmpKey) {
		slices.SortFunc(extra, cmpKey)
	}
	out := make([]pair, 0, len(g.Edges)+len(extra))
	push := func(p pair) {
		if n := len(out); n > 0 && out[n-1].u == p.u && out[n-1].v == p.v {
			return
		}
		out = append(out, p)
	}
	j := 0
	for i := range g.Edges {
		e := &g.Edges[i]
		if !use(e) {
			continue
		}
		p := pair{u: int(e.U), v: int(e.V), cos: float64(e.Weight)}
		for j < len(extra) && key(extra[j]) < key(p) {
			push(extra[j])
			j++
		}
		push(p)
	}
	for ; j < len(extra); j++ {
		push(extra[j])
	}
	for i := range out {
		out[i].aff = out[i].cos
		if len(edits.last) == 0 {
			continue
		}
		if e, ok := edits.last[[2]int{out[i].u, out[i].v}]; ok {
			out[i].aff = e.Affinity
			out[i].edited = true
		}
	}
	return out
}

// cosWeight is max(cos, 0) rounded through float32 like graph edge weights.
func cosWeight(g *graph.Graph, u, v int) float64 {
	return float64(float32(math.Max(g.Cos(u, v), 0)))
}

// orderPairs links nodes of the same document at most window positions
// apart in reading order (ranks after sorting by (Doc, Order, index), so that
// gaps in Order do not matter), canonical u < v.
func orderPairs(g *graph.Graph, window int) [][2]int {
	idx := readingOrder(g)
	var out [][2]int
	for i := range idx {
		for j := i + 1; j <= i+window && j < len(idx); j++ {
			a, b := idx[i], idx[j]
			if g.Nodes[a].Doc != g.Nodes[b].Doc {
				break
			}
			out = append(out, canon(a, b))
		}
	}
	return out
}

// readingOrder returns node indexes sorted by (Doc, Order, index).
func readingOrder(g *graph.Graph) []int {
	idx := make([]int, len(g.Nodes))
	for i := range idx {
		idx[i] = i
	}
	// Builders emit nodes in reading order; then the identity is the
	// stable sort's result and one pass shows it.
	sorted := true
	for i := 1; i < len(idx) && sorted; i++ {
		x, y := &g.Nodes[i-1], &g.Nodes[i]
		sorted = x.Doc < y.Doc || (x.Doc == y.Doc && x.Order <= y.Order)
	}
	if sorted {
		return idx
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &g.Nodes[idx[a]], &g.Nodes[idx[b]]
		if x.Doc != y.Doc {
			return x.Doc < y.Doc
		}
		return x.Order < y.Order
	})
	return idx
}
