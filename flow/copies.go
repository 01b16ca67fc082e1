package flow

import (
	"cmp"
	"slices"

	"github.com/flowreader/flowreader/flow/mcf"
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

// classCitation is one content class's name in one question's routing: the
// class is a node of the flow network at its lowest node canon, and the
// routing reports it as cited, the member the question scores highest.
type classCitation struct{ canon, cited int }

// citeMargin is how much higher than the class's lowest node a member's h
// must be for the question to prefer it (h is in [0, 1]). Copies that the
// question does not tell apart score apart by their own edits, not by the
// question: two revisions of one MuSiQue passage that differ in words no
// question uses ("a fuller version, articulated by" / "a fuller form,
// penned by") score 5.5e-7 and 2.6e-5 apart, one way for one question and
// the other way for its rephrasing, while a question word one copy lacks
// moves h by hundredths (BM25 and the cosine both see it). Below the margin
// the class keeps its lowest node, the name every question that cannot
// tell the copies apart gives it.
const citeMargin = 1e-3

// classCitations returns the content classes a question names by another
// member than their lowest node. A class routes as one node whose
// relevance is the highest of its members' (classScores): its entry arc
// costs 1 − max_{v∈C} h_v (paper v3 §3.1, §3.3), so the member attaining
// that maximum is the copy the flow's choice rests on, and the routing
// cites the content read once by it: the member of highest h (ties by the
// lowest index) when it is above the lowest node's h by more than
// citeMargin, else the lowest node (always for exact copies, which score
// alike). A revision of a page that matches the question better than its
// twin is the one the evidence names; the others stay citable through
// graph.Graph.Copies. The choice depends on the question's h alone, so the
// same scores give the same routing. nil when every class is named by its
// lowest node.
func classCitations(s *score.Scores, classes [][]int32) []classCitation {
	var out []classCitation
	for _, cs := range classes {
		best := int(cs[0])
		for _, v := range cs[1:] {
			if s.H[v] > s.H[best] {
				best = int(v)
			}
		}
		if best != int(cs[0]) && s.H[best]-s.H[cs[0]] > citeMargin {
			out = append(out, classCitation{canon: int(cs[0]), cited: best})
		}
	}
	return out
}

// cite renames, in everything r reports by content node (its chains, its
// scores' R and H, its sources and sinks, its network), each class's
// lowest node and its cited member into each other (a swap, so ids stay a
// permutation of the nodes): the routing, solved on the lowest nodes, then
// reads as if solved on the cited ones, and "content node v is network
// node v" still holds.
func (r *Routing) cite(cites []classCitation) {
	if len(cites) == 0 {
		return
	}
	to := make(map[int]int, 2*len(cites))
	for _, c := range cites {
		to[c.canon], to[c.cited] = c.cited, c.canon
	}
	rename := func(vs []int) {
		for i, v := range vs {
			if w, ok := to[v]; ok {
				vs[i] = w
			}
		}
	}
	for _, c := range r.Chains {
		rename(c.Nodes)
	}
	rename(r.Sources)
	rename(r.Sinks)
	if r.Scores != nil {
		// New slices: the routing's lazy network is priced from the
		// scores it was solved with.
		s := *r.Scores
		s.R, s.H = slices.Clone(s.R), slices.Clone(s.H)
		for _, c := range cites {
			s.R[c.canon], s.R[c.cited] = s.R[c.cited], s.R[c.canon]
			s.H[c.canon], s.H[c.cited] = s.H[c.cited], s.H[c.canon]
		}
		r.Scores = &s
	}
	if r.Network != nil {
		r.Network = renamedNetwork(r.Network, to)
	}
	if l := r.full; l != nil {
		build := l.build
		l.build = func() *mcf.Network { return renamedNetwork(build(), to) }
	}
}

// renamedNetwork is net with the nodes in to renamed (arcs in the same id
// order, supplies moved with their nodes).
func renamedNetwork(net *mcf.Network, to map[int]int) *mcf.Network {
	at := func(v int) int {
		if w, ok := to[v]; ok {
			return w
		}
		return v
	}
	out := mcf.NewNetwork(net.NumNodes())
	out.Grow(net.NumArcs())
	for id := range net.NumArcs() {
		u, v, c, w := net.Arc(id)
		out.AddArc(at(u), at(v), c, w)
	}
	for v := range net.NumNodes() {
		if b := net.Supply(v); b != 0 {
			out.SetSupply(at(v), b)
		}
	}
	return out
}
