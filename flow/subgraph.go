package flow

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/flowhook"
)

// wholeGraph holds the statistics of an opened graph that a router on one
// of its candidate subgraphs needs to price arcs as the whole graph's
// router would: the keywords' document frequencies and the bridge cutoff
// ⌈√N⌉ of paper v3 App. A.2 (over a subgraph both are smaller, and pairs
// that bridge in the whole graph would not, or the reverse), and each
// node's reading-order position (§3.1: reading-order arcs join nodes at
// most the window apart in the whole document, not in what is left of it
// among the candidates). They are computed once, on the first subgraph.
type wholeGraph struct {
	once   sync.Once
	df     map[string]int32 // normalised keyword → nodes having it, for the keywords that bridge
	cutoff int
	pos    []int32 // node → position in reading order
}

func (w *wholeGraph) init(g *graph.Graph, rep []int32) {
	w.once.Do(func() {
		w.cutoff = int(math.Ceil(math.Sqrt(float64(countReps(len(g.Nodes), rep)))))
		df := map[string]int32{}
		var seen []string
		for v := range g.Nodes {
			if rep != nil && int(rep[v]) != v {
				continue // a content class counts once (MergeCopies)
			}
			seen = seen[:0]
			for _, k := range g.Nodes[v].Keywords {
				if k = normKeyword(k); k != "" && !slices.Contains(seen, k) {
					seen = append(seen, k)
					df[k]++
				}
			}
		}
		// Only the keywords that bridge matter (df in [2, cutoff]); the
		// others, most of a large collection's, would only hold memory (a
		// new map: deleting does not shrink one).
		keep := map[string]int32{}
		for k, d := range df {
			if d >= 2 && int(d) <= w.cutoff {
				keep[k] = d
			}
		}
		w.df = keep
		w.pos = make([]int32, len(g.Nodes))
		for i, v := range readingOrder(g) {
			w.pos[v] = int32(i)
		}
	})
}

// PrepareSubgraphs computes the whole-graph statistics OpenSubgraph needs
// now (O(N), once) instead of on its first call, so that a large graph's
// first candidate question does not pay for them.
func (ag *aspectsGraph) PrepareSubgraphs() { ag.whole.init(ag.g, ag.rep) }

// OpenSubgraph opens a router on sub, the subgraph of the opened graph
// induced by nodes (ascending indexes of it: node i of sub is nodes[i], as
// graph.Graph.Subgraph makes it), that prices every content pair as the
// whole graph's router does: bridge terms from the whole graph's keyword
// frequencies and cutoff, reading-order pairs from the whole graph's
// reading order. Its cost is in sub's size (the whole-graph statistics are
// computed once, on the first call).
func (ag *aspectsGraph) OpenSubgraph(ctx context.Context, sub *graph.Graph, nodes []int) (GraphRouter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sub == nil || len(sub.Nodes) != len(nodes) {
		return nil, fmt.Errorf("%w: subgraph does not match its %d nodes", ErrScores, len(nodes))
	}
	for i, v := range nodes {
		if v < 0 || v >= len(ag.g.Nodes) || (i > 0 && nodes[i-1] >= v) {
			return nil, fmt.Errorf("%w: subgraph node %d: %d not an ascending node of the graph", ErrScores, i, v)
		}
	}
	ag.whole.init(ag.g, ag.rep)
	w := &ag.whole
	order := subOrderPairs(sub, nodes, w.pos, ag.cfg.orderWindow())
	sg := &aspectsGraph{cfg: ag.cfg, g: sub, sub: &subStats{df: w.df, cutoff: w.cutoff, order: order}}
	sg.openCopies()
	sg.pairs = sg.pairSet(Edits{})
	return sg, nil
}

// subStats is what a subgraph's router takes from the whole graph.
type subStats struct {
	df     map[string]int32
	cutoff int
	order  [][2]int // reading-order pairs, canonical, in sub's indexes
}

// subOrderPairs is the reading-order pairs of the whole graph (positions
// pos, window) between two nodes of sub, in sub's indexes.
func subOrderPairs(sub *graph.Graph, nodes []int, pos []int32, window int) [][2]int {
	if window <= 0 {
		return nil
	}
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(pos[nodes[a]]) - int(pos[nodes[b]]) })
	var out [][2]int
	for i := range idx {
		for j := i + 1; j < len(idx); j++ {
			a, b := idx[i], idx[j]
			if int(pos[nodes[b]]-pos[nodes[a]]) > window {
				break
			}
			if sub.Nodes[a].Doc != sub.Nodes[b].Doc {
				continue
			}
			out = append(out, canon(a, b))
		}
	}
	return out
}

func init() {
	flowhook.NormKeyword = normKeyword
	flowhook.OpenSubgraph = func(ctx context.Context, r any, sub *graph.Graph, n int, df map[string]int32, rank []int32) (any, error) {
		a, ok := r.(*Aspects)
		if !ok || a == nil {
			return nil, nil
		}
		gr, err := a.openRanked(ctx, sub, n, df, rank)
		if err != nil {
			return nil, err
		}
		return gr, nil
	}
}

// openRanked opens a router on sub, a candidate subgraph of a collection of
// n nodes held elsewhere (a store), that prices every content pair as
// OpenSubgraph does from a whole graph: bridge terms from the collection's
// keyword frequencies df and cutoff ⌈√n⌉, reading-order pairs from each
// node's rank in its document's reading order (two nodes of one document
// are as far apart in the whole graph's reading order as their ranks), and
// sub's content classes routed one node a content. n and df count
// contents, as OpenSubgraph's whole-graph statistics do (a class once).
func (a *Aspects) openRanked(ctx context.Context, sub *graph.Graph, n int, df map[string]int32, rank []int32) (GraphRouter, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sub == nil || len(rank) != len(sub.Nodes) {
		return nil, fmt.Errorf("%w: subgraph does not match its ranks", ErrScores)
	}
	cfg := a.settings()
	order := rankOrderPairs(sub, rank, cfg.orderWindow())
	sg := &aspectsGraph{cfg: cfg, g: sub, sub: &subStats{df: df, cutoff: int(math.Ceil(math.Sqrt(float64(n)))), order: order}}
	// The subgraph's content classes (the store's, among the candidates)
	// are routed one node a content, as OpenSubgraph routes them.
	sg.openCopies()
	if n < countReps(len(sub.Nodes), sg.rep) {
		return nil, fmt.Errorf("%w: a collection of %d contents, %d among the candidates", ErrScores, n, countReps(len(sub.Nodes), sg.rep))
	}
	sg.pairs = sg.pairSet(Edits{})
	return sg, nil
}

// rankOrderPairs is subOrderPairs from ranks within documents: the pairs
// of sub's nodes of one document at most window apart in its reading
// order.
func rankOrderPairs(sub *graph.Graph, rank []int32, window int) [][2]int {
	if window <= 0 {
		return nil
	}
	idx := make([]int, len(sub.Nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := strings.Compare(sub.Nodes[a].Doc, sub.Nodes[b].Doc); c != 0 {
			return c
		}
		return cmp.Compare(rank[a], rank[b])
	})
	var out [][2]int
	for i := range idx {
		for j := i + 1; j < len(idx); j++ {
			a, b := idx[i], idx[j]
			if sub.Nodes[a].Doc != sub.Nodes[b].Doc || int(rank[b]-rank[a]) > window {
				break
			}
			out = append(out, canon(a, b))
		}
	}
	return out
}
