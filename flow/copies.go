package flow

import (
	"cmp"
	"slices"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// copyClasses lists g's content classes with more than one node
// (graph.Graph.Copies), each ascending, in the order of their lowest node;
// nil when g has none.
func copyClasses(g *graph.Graph) [][]int32 {
	var out [][]int32
	for i := range len(g.Nodes) {
		if cs := g.Copies(i); len(cs) > 1 && int(cs[0]) == i {
			out = append(out, cs)
		}
	}
	return out
}

// copyRep is each node's representative: the lowest node of its content
// class (itself for a node without copies).
func copyRep(n int, classes [][]int32) []int32 {
	rep := make([]int32, n)
	for i := range rep {
		rep[i] = int32(i)
	}
	for _, cs := range classes {
		for _, v := range cs[1:] {
			rep[v] = cs[0]
		}
	}
	return rep
}

// mergeCopyPairs moves every content pair onto the representatives of its
// ends: a class routes as one node holding the union of its members'
// pairs. Pairs inside a class are dropped; a pair that several members
// give keeps the representatives' own cosine, and an edited affinity when
// any of them was edited (the last in pair order).
func mergeCopyPairs(g *graph.Graph, pairs []pair, rep []int32) []pair {
	out := make([]pair, 0, len(pairs))
	for _, p := range pairs {
		u, v := int(rep[p.u]), int(rep[p.v])
		if u == v {
			continue
		}
		if u > v {
			u, v = v, u
		}
		if u != p.u || v != p.v {
			p.u, p.v = u, v
			p.cos = cosWeight(g, u, v)
			if !p.edited {
				p.aff = p.cos
			}
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b pair) int {
		if c := cmp.Compare(a.u, b.u); c != 0 {
			return c
		}
		return cmp.Compare(a.v, b.v)
	})
	merged := out[:0]
	for _, p := range out {
		if k := len(merged); k > 0 && merged[k-1].u == p.u && merged[k-1].v == p.v {
			if p.edited {
				merged[k-1] = p
			}
			continue
		}
		merged = append(merged, p)
	}
	return merged
}

// classScores returns s with each content class's relevance on its
// representative, the highest of its members' (R and H alike), and 0 on
// the other members: the network routes a class as one node, and the
// routing reports the scores it used.
func classScores(s *score.Scores, classes [][]int32) *score.Scores {
	if len(classes) == 0 {
		return s
	}
	r := append([]float64(nil), s.R...)
	h := append([]float64(nil), s.H...)
	for _, cs := range classes {
		rep := cs[0]
		for _, v := range cs[1:] {
			r[rep] = max(r[rep], r[v])
			h[rep] = max(h[rep], h[v])
			r[v], h[v] = 0, 0
		}
	}
	s2 := *s
	s2.R, s2.H = r, h
	return &s2
}
