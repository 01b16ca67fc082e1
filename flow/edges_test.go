package flow

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// TestReadingOrder checks readingOrder (with its already-sorted shortcut)
// against a stable sort by (Doc, Order) on random node lists, half of them
// generated in reading order.
func TestReadingOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := 0; trial < 500; trial++ {
		n := rng.IntN(30)
		nodes := make([]graph.Node, n)
		for i := range nodes {
			nodes[i] = graph.Node{Doc: fmt.Sprintf("d%d", rng.IntN(3)), Order: rng.IntN(5)}
		}
		if trial%2 == 0 {
			slices.SortStableFunc(nodes, func(x, y graph.Node) int {
				if x.Doc != y.Doc {
					if x.Doc < y.Doc {
						return -1
					}
					return 1
				}
				return x.Order - y.Order
			})
		}
		g := &graph.Graph{Nodes: nodes}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool {
			x, y := &nodes[want[a]], &nodes[want[b]]
			if x.Doc != y.Doc {
				return x.Doc < y.Doc
			}
			return x.Order < y.Order
		})
		got := readingOrder(g)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %v, want %v", trial, got, want)
		}
	}
}

// TestContentPairs checks contentPairs against a plain rule: the graph
// edges that pass the kind filter (and keep, unless edited), reading-order
// pairs and added pairs, sorted by (u, v), a graph edge winning over an
// extra pair with the same ends, with edited affinities applied.
func TestContentPairs(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		g := synthGraph(t, 30+int(seed)*7, 8, seed)
		rng := rand.New(rand.NewPCG(seed, 21))
		var es []EdgeEdit
		for i := 0; i < 6; i++ {
			u, v := rng.IntN(len(g.Nodes)), rng.IntN(len(g.Nodes))
			if u != v {
				es = append(es, EdgeEdit{U: u, V: v, Affinity: rng.Float64(), Add: rng.IntN(2) == 0})
			}
		}
		if len(g.Edges) > 0 {
			e := g.Edges[rng.IntN(len(g.Edges))]
			es = append(es, EdgeEdit{U: int(e.U), V: int(e.V), Affinity: 0.01})
		}
		for _, window := range []int{0, 1, 3} {
			for _, kinds := range []graph.EdgeKind{graph.EdgeKNN | graph.EdgeLink, graph.EdgeKNN | graph.EdgeLink | graph.EdgeOrder, graph.EdgeLink} {
				for _, keep := range []func(float32) bool{nil, func(w float32) bool { return w >= 0.5 }} {
					edits := newEditTable(es)
					got := contentPairs(g, kinds, window, keep, edits)
					type cand struct {
						p    pair
						prio int
					}
					var cs []cand
					for _, e := range g.Edges {
						if e.Kind&kinds == 0 {
							continue
						}
						if _, ed := edits.last[[2]int{int(e.U), int(e.V)}]; keep != nil && !keep(e.Weight) && !ed {
							continue
						}
						cs = append(cs, cand{pair{u: int(e.U), v: int(e.V), cos: float64(e.Weight)}, 0})
					}
					if window > 0 {
						for _, k := range orderPairs(g, window) {
							cs = append(cs, cand{pair{u: k[0], v: k[1], cos: cosWeight(g, k[0], k[1])}, 1})
						}
					}
					for _, k := range edits.adds {
						cs = append(cs, cand{pair{u: k[0], v: k[1], cos: cosWeight(g, k[0], k[1])}, 1})
					}
					sort.SliceStable(cs, func(a, b int) bool {
						x, y := cs[a], cs[b]
						if x.p.u != y.p.u {
							return x.p.u < y.p.u
						}
						if x.p.v != y.p.v {
							return x.p.v < y.p.v
						}
						return x.prio < y.prio
					})
					var want []pair
					for _, c := range cs {
						if n := len(want); n > 0 && want[n-1].u == c.p.u && want[n-1].v == c.p.v {
							continue
						}
						p := c.p
						p.aff = p.cos
						if e, ok := edits.last[[2]int{p.u, p.v}]; ok {
							p.aff, p.edited = e.Affinity, true
						}
						want = append(want, p)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d window %d kinds %v keep %v: %d pairs, want %d", seed, window, kinds, keep != nil, len(got), len(want))
					}
				}
			}
		}
	}
}
