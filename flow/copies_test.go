package flow

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// withCopies returns g with text contents and, when copy is set, a copy
// of document "b" (its nodes appended as document "b~copy", same content,
// embeddings and keywords, each copy joined to its original and to every
// neighbour of it, and copies of neighbours to each other).
func withCopies(t *testing.T, g *graph.Graph, copy bool) *graph.Graph {
	t.Helper()
	nodes := append([]graph.Node(nil), g.Nodes...)
	words := strings.Fields("harbour mole timber salt market customs lighthouse cape ferry strait")
	for i := range nodes {
		nodes[i].Content = fmt.Sprintf("passage %d on the %s and the %s", i, words[i%len(words)], words[(i/len(words))%len(words)])
	}
	var emb []float32
	for i := range nodes {
		emb = append(emb, g.Embedding(i)...)
	}
	edges := append([]graph.Edge(nil), g.Edges...)
	if copy {
		of := map[int]int{}
		for i := range g.Nodes {
			if g.Nodes[i].Doc != "b" {
				continue
			}
			c := nodes[i]
			c.Doc, c.ID = "b~copy", "b~copy"+c.ID
			of[i] = len(nodes)
			nodes = append(nodes, c)
			emb = append(emb, g.Embedding(i)...)
			edges = append(edges, graph.Edge{U: int32(i), V: int32(of[i]), Kind: graph.EdgeKNN})
		}
		for _, e := range g.Edges {
			cu, okU := of[int(e.U)]
			cv, okV := of[int(e.V)]
			if okU {
				edges = append(edges, graph.Edge{U: int32(cu), V: e.V, Kind: e.Kind})
			}
			if okV {
				edges = append(edges, graph.Edge{U: e.U, V: int32(cv), Kind: e.Kind})
			}
			if okU && okV {
				edges = append(edges, graph.Edge{U: int32(cu), V: int32(cv), Kind: e.Kind})
			}
		}
	}
	out, err := graph.New(nodes, g.Dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A collection that holds a document twice routes as the collection that
// holds it once: the default (not KeepCopies) makes each copied node and its copy one node
// of the network (the original, the lower index) with the union of their
// pairs, and a keyword's document frequency counts it once.
func TestCopiesRouteAsOnce(t *testing.T) {
	ctx := context.Background()
	base := synthGraph(t, 120, 16, 5)
	once, twice := withCopies(t, base, false), withCopies(t, base, true)
	for i := range once.Nodes {
		if once.Copies(i) != nil {
			t.Fatalf("node %d has copies in the graph without copies", i)
		}
	}
	for i := range len(once.Nodes) {
		if cs := twice.Copies(i); (twice.Nodes[i].Doc == "b") != (len(cs) == 2) {
			t.Fatalf("node %d (%s): copies %v", i, twice.Nodes[i].Doc, cs)
		}
	}
	for seed := range uint64(4) {
		s1 := handScores(t, once, seed)
		s2 := scoresFor(twice, s1.Query)
		for _, budget := range []int{2, 5, 16} {
			want, err := routeAt(ctx, &Aspects{}, once, s1, budget)
			if err != nil {
				t.Fatal(err)
			}
			got, err := routeAt(ctx, &Aspects{}, twice, s2, budget)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Chains) != len(want.Chains) {
				t.Fatalf("seed %d budget %d: %d chains, want %d", seed, budget, len(got.Chains), len(want.Chains))
			}
			for k := range want.Chains {
				a, b := got.Chains[k], want.Chains[k]
				if fmt.Sprint(a.Nodes) != fmt.Sprint(b.Nodes) || math.Abs(a.Flow-b.Flow) > 1e-9 {
					t.Fatalf("seed %d budget %d chain %d: %v (%.6f), want %v (%.6f)", seed, budget, k, a.Nodes, a.Flow, b.Nodes, b.Flow)
				}
			}
			// The routing reports the scores it used: a copy's relevance
			// is its original's.
			for v := len(once.Nodes); v < len(twice.Nodes); v++ {
				if got.Scores.H[v] != 0 {
					t.Fatalf("copy %d keeps h %v", v, got.Scores.H[v])
				}
			}
			// With KeepCopies the copies are read.
			plain := &Aspects{KeepCopies: true}
			r, err := routeAt(ctx, plain, twice, s2, budget)
			if err != nil {
				t.Fatal(err)
			}
			if budget == 16 && r.Distinct > 0 && !readsCopy(r, len(once.Nodes)) {
				t.Errorf("seed %d: without MergeCopies no copy is read", seed)
			}
		}
	}
}

func readsCopy(r *Routing, n int) bool {
	for _, c := range r.Chains {
		for _, v := range c.Nodes {
			if v >= n {
				return true
			}
		}
	}
	return false
}

// A content class is read once and reported by the member the question
// scores highest: with each copy scored as its original was and the
// original lower (by more than citeMargin), the class relevance (the
// highest) is unchanged,
// so the routing is the same flow, with every such original renamed to its
// copy in the chains, the scores and the network (built on demand, or
// whole and solved as it is); the same scores give the same routing, and a
// re-route keeps the names.
func TestCopiesCitedByBestMember(t *testing.T) {
	for _, a := range []*Aspects{{}, {noPrune: true}} {
		t.Run(fmt.Sprintf("noPrune=%v", a.noPrune), func(t *testing.T) { testCopiesCited(t, a) })
	}
}

func testCopiesCited(t *testing.T, a *Aspects) {
	ctx := context.Background()
	base := synthGraph(t, 120, 16, 5)
	twice := withCopies(t, base, true)
	n := len(base.Nodes)
	copyOf := map[int]int{} // original → its copy
	for v := n; v < len(twice.Nodes); v++ {
		cs := twice.Copies(v)
		if len(cs) != 2 || int(cs[1]) != v {
			t.Fatalf("copy %d: class %v", v, cs)
		}
		copyOf[int(cs[0])] = v
	}
	for seed := range uint64(4) {
		s := scoresFor(twice, handScores(t, base, seed).Query)
		// Every other copied original scores 0.01 below its copy, the
		// others less than citeMargin below theirs: a tie, which keeps the
		// lowest node.
		better := slices.Clone(s.H)
		moved := map[int]int{}
		for x, c := range copyOf {
			switch {
			case x%2 == 0 && s.H[x] > 0.01:
				better[x] = s.H[x] - 0.01
				moved[x], moved[c] = c, x
			case s.H[x] > citeMargin:
				better[x] = s.H[x] - citeMargin/2
			}
		}
		s2 := *s
		s2.H = better
		for _, budget := range []int{2, 5, 16} {
			want, err := routeAt(ctx, a, twice, s, budget)
			if err != nil {
				t.Fatal(err)
			}
			gr, err := a.Open(ctx, twice)
			if err != nil {
				t.Fatal(err)
			}
			got, err := gr.Route(ctx, &s2, budget)
			if err != nil {
				t.Fatal(err)
			}
			name := func(v int) int {
				if w, ok := moved[v]; ok {
					return w
				}
				return v
			}
			if len(got.Chains) != len(want.Chains) {
				t.Fatalf("seed %d budget %d: %d chains, want %d", seed, budget, len(got.Chains), len(want.Chains))
			}
			renamed := 0
			for k, wc := range want.Chains {
				gc := got.Chains[k]
				if len(gc.Nodes) != len(wc.Nodes) || gc.Flow != wc.Flow || gc.Cost != wc.Cost || gc.Aspect != wc.Aspect {
					t.Fatalf("seed %d budget %d chain %d: %+v, want %+v renamed", seed, budget, k, gc, wc)
				}
				for i, v := range wc.Nodes {
					if gc.Nodes[i] != name(v) {
						t.Fatalf("seed %d budget %d chain %d: nodes %v, want %v renamed by %v", seed, budget, k, gc.Nodes, wc.Nodes, moved)
					}
					if name(v) != v {
						renamed++
					}
				}
			}
			for v := range twice.Nodes {
				if got.Scores.H[name(v)] != want.Scores.H[v] || got.Scores.R[name(v)] != want.Scores.R[v] {
					t.Fatalf("seed %d budget %d: node %d scored %v/%v, want %v/%v (node %d's)", seed, budget, name(v),
						got.Scores.R[name(v)], got.Scores.H[name(v)], want.Scores.R[v], want.Scores.H[v], v)
				}
			}
			// The network names the cited member where the class's lowest
			// node was: content node v is still network node v.
			gn, wn := fullNet(got), fullNet(want)
			if gn.NumArcs() != wn.NumArcs() || gn.NumNodes() != wn.NumNodes() {
				t.Fatalf("seed %d budget %d: network %d/%d, want %d/%d", seed, budget, gn.NumNodes(), gn.NumArcs(), wn.NumNodes(), wn.NumArcs())
			}
			at := func(v int) int {
				if v < len(twice.Nodes) {
					return name(v)
				}
				return v
			}
			for id := range wn.NumArcs() {
				u, v, c, w := wn.Arc(id)
				gu, gv, gc, gw := gn.Arc(id)
				if gu != at(u) || gv != at(v) || gc != c || gw != w {
					t.Fatalf("seed %d budget %d arc %d: %d→%d (%v, %v), want %d→%d (%v, %v)", seed, budget, id, gu, gv, gc, gw, at(u), at(v), c, w)
				}
			}
			checkFlow(t, got)
			if budget == 16 && renamed == 0 && seed == 0 {
				t.Errorf("seed %d: no class read by its better copy", seed)
			}
			// Same scores, same routing; a re-route without edits keeps
			// the names.
			again, err := gr.Route(ctx, &s2, budget)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(again.Chains) != fmt.Sprint(got.Chains) {
				t.Fatalf("seed %d budget %d: routed twice: %v, then %v", seed, budget, got.Chains, again.Chains)
			}
			re, err := gr.(Rerouter).Reroute(ctx, &s2, budget, got, Edits{})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(re.Chains) != fmt.Sprint(got.Chains) {
				t.Fatalf("seed %d budget %d: rerouted %v, routed %v", seed, budget, re.Chains, got.Chains)
			}
		}
	}
}
