package flow

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// timingsRE strips the wall-time line from Routing.String.
var timingsRE = regexp.MustCompile(`(?m)^timings:.*$`)

// sameLazyRouting fails unless a routing solved on its live part only (got,
// its full network built lazily) equals the one solved on the full network
// (want) field by field: everything sameRouting checks, the remaining
// scalar fields, the aspects, the full network arc by arc with its supplies,
// the min-cut side, the explanation and every System-2 function.
func sameLazyRouting(t *testing.T, name string, g *graph.Graph, s *score.Scores, got, want *Routing) {
	t.Helper()
	// Explain before anything builds the full network: String must not need it.
	gs, ws := timingsRE.ReplaceAllString(got.String(), ""), timingsRE.ReplaceAllString(want.String(), "")
	if gs != ws {
		t.Fatalf("%s: String\n%s\nwant\n%s", name, gs, ws)
	}
	sameRouting(t, name, got, want)
	bits := math.Float64bits
	if bits(got.Demand) != bits(want.Demand) || bits(got.MaxFlow) != bits(want.MaxFlow) ||
		bits(got.Saturation) != bits(want.Saturation) || got.Distinct != want.Distinct ||
		got.Relevant != want.Relevant || got.ContentArcs != want.ContentArcs ||
		got.Source != want.Source || got.Sink != want.Sink || got.AspectBase != want.AspectBase ||
		len(got.Aspects) != len(want.Aspects) {
		t.Fatalf("%s: scalars differ:\n%+v\nwant\n%+v", name, got, want)
	}
	for j, x := range want.Aspects {
		y := got.Aspects[j]
		if bits(y.Sigma) != bits(x.Sigma) || bits(y.Capacity) != bits(x.Capacity) ||
			fmt.Sprint(y.Direction) != fmt.Sprint(x.Direction) {
			t.Fatalf("%s: aspect %d is %+v, want %+v", name, j, y, x)
		}
	}
	gn, _ := got.fullNetwork()
	wn, _ := want.fullNetwork()
	if gn.NumNodes() != wn.NumNodes() || gn.NumArcs() != wn.NumArcs() {
		t.Fatalf("%s: network %d nodes %d arcs, want %d %d", name, gn.NumNodes(), gn.NumArcs(), wn.NumNodes(), wn.NumArcs())
	}
	for v := 0; v < wn.NumNodes(); v++ {
		if bits(gn.Supply(v)) != bits(wn.Supply(v)) {
			t.Fatalf("%s: supply of %d is %v, want %v", name, v, gn.Supply(v), wn.Supply(v))
		}
	}
	for id := 0; id < wn.NumArcs(); id++ {
		u, v, c, w := gn.Arc(id)
		x, y, d, z := wn.Arc(id)
		if u != x || v != y || bits(c) != bits(d) || bits(w) != bits(z) {
			t.Fatalf("%s: arc %d is %d→%d (%v, %v), want %d→%d (%v, %v)", name, id, u, v, c, w, x, y, d, z)
		}
	}
	// Fed and aspect flows, recounted from the full network's terminal arcs.
	_, gf := got.fullNetwork()
	fed := make([]int, len(got.Aspects))
	flow := make([]float64, len(got.Aspects))
	for id := 0; id < gn.NumArcs(); id++ {
		u, v, _, _ := gn.Arc(id)
		switch {
		case u < got.Source && v >= got.AspectBase && gf[id] > 1e-9:
			fed[v-got.AspectBase]++
		case u >= got.AspectBase && v == got.Sink:
			flow[u-got.AspectBase] = gf[id]
		}
	}
	for j, x := range got.Aspects {
		if x.Fed != fed[j] || bits(x.Flow) != bits(flow[j]) {
			t.Fatalf("%s: aspect %d fed %d flow %v, network says %d %v", name, j, x.Fed, x.Flow, fed[j], flow[j])
		}
	}
	gc, err1 := got.cutSide()
	wc, err2 := want.cutSide()
	if err1 != nil || err2 != nil || fmt.Sprint(gc) != fmt.Sprint(wc) {
		t.Fatalf("%s: cut side differs (%v, %v)", name, err1, err2)
	}
	if got.acyclic() != want.acyclic() {
		t.Fatalf("%s: Acyclic differs", name)
	}
	eq := func(what string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s: %s %v, want %v", name, what, a, b)
		}
	}
	eq("CutPairs", cutPairs(g, s, got, 6), cutPairs(g, s, want, 6))
	eq("CutEdges", cutEdges(g, got, 6), cutEdges(g, want, 6))
	eq("TopFlowEdges", topFlowEdges(got), topFlowEdges(want))
	eq("SourceEdges", sourceEdges(g, got, got.nodes(), 6), sourceEdges(g, want, want.nodes(), 6))
	eq("ExpandSources", expandSources(g, s, got, 2, 4), expandSources(g, s, want, 2, 4))
	eq("Nodes", got.nodes(), want.nodes())
}

// TestLazyFullNetworkIsExact routes random graphs under presets where only
// the live network is built (κ pooled over it) and requires the routing to
// equal the one solved on the eagerly built full network field by field,
// before and after a System-2 reroute with T1 and T2 edits; it also
// requires that the lazy path was taken in most routings.
func TestLazyFullNetworkIsExact(t *testing.T) {
	ctx := context.Background()
	variants := map[string]func() *Aspects{
		"default": func() *Aspects { return &Aspects{} },
		"floor10": func() *Aspects { a := &Aspects{}; a.DemandFloor = 0.1; return a },
		"floor60": func() *Aspects { a := &Aspects{}; a.DemandFloor = 0.6; return a },
		"uncap":   func() *Aspects { a := &Aspects{}; a.ShortestPath = true; return a },
		"paper":   paperAspects,
	}
	names := []string{"default", "floor10", "floor60", "uncap", "paper"}
	seeds := uint64(6)
	if testing.Short() {
		seeds = 3
	}
	lazy, total := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		n := 40 + int(seed)*29
		g := synthGraph(t, n, 16+int(seed%3)*8, seed)
		s := handScores(t, g, seed)
		for _, name := range names {
			a, ref := variants[name](), variants[name]()
			ref.noPrune = true
			tag := fmt.Sprintf("seed %d %s", seed, name)
			got, err := routeOn(ctx, a, g, s)
			if err != nil {
				t.Fatalf("%s: %v", tag, err)
			}
			want, err := routeOn(ctx, ref, g, s)
			if err != nil {
				t.Fatalf("%s (full): %v", tag, err)
			}
			if want.full != nil || want.Network == nil {
				t.Fatalf("%s: the reference built no full network", tag)
			}
			if name == "paper" && got.full != nil {
				t.Fatalf("%s: PaperAspects must build the full network", tag)
			}
			total++
			if got.full != nil {
				lazy++
				if got.Network != nil || got.Flow != nil {
					t.Fatalf("%s: lazy routing set Network or Flow", tag)
				}
			}
			sameLazyRouting(t, tag, g, s, got, want)

			// System 2: edit the cut's pairs and the top-flow edges, reroute.
			var e Edits
			for _, p := range cutPairs(g, s, want, 2) {
				e.Edges = append(e.Edges, EdgeEdit{U: p[0], V: p[1], Affinity: 0.9})
			}
			for _, p := range topFlowEdges(want) {
				e.Edges = append(e.Edges, EdgeEdit{U: p[0], V: p[1], Affinity: 0.05})
			}
			got2, err := rerouteOn(ctx, a, g, s, got, e)
			if err != nil {
				t.Fatalf("%s reroute: %v", tag, err)
			}
			want2, err := rerouteOn(ctx, ref, g, s, want, e)
			if err != nil {
				t.Fatalf("%s reroute (full): %v", tag, err)
			}
			sameLazyRouting(t, tag+" rerouted", g, s, got2, want2)
		}
	}
	t.Logf("lazy full network in %d of %d routings", lazy, total)
	if lazy < total/2 {
		t.Fatalf("lazy path taken in only %d of %d routings: the test would not bite", lazy, total)
	}
}
