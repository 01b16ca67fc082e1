package flow

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// TestDegenerateInputs routes with every router on graphs that break naive
// code: one node, zero embeddings, a zero query, all h = 0, all h equal,
// no edges. Nothing may panic, and every flow routing must be valid.
func TestDegenerateInputs(t *testing.T) {
	ctx := context.Background()
	type tc struct {
		name string
		g    *graph.Graph
		s    *score.Scores
	}
	mk := func(n, dim int, emb []float32, edges []graph.Edge) *graph.Graph {
		nodes := make([]graph.Node, n)
		for i := range nodes {
			nodes[i] = graph.Node{Doc: "d", Order: i}
		}
		g, err := graph.New(nodes, dim, emb, edges)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	one := mk(1, 3, []float32{1, 0, 0}, nil)
	zeros := mk(4, 3, make([]float32, 12), []graph.Edge{{U: 0, V: 1, Kind: graph.EdgeKNN}, {U: 2, V: 3, Kind: graph.EdgeLink}})
	flat := synthGraph(t, 30, 8, 77)
	var cases []tc
	cases = append(cases, tc{"one node", one, scoresFor(one, []float32{1, 0, 0})})
	cases = append(cases, tc{"zero embeddings", zeros, scoresFor(zeros, []float32{0, 1, 0})})
	cases = append(cases, tc{"zero query", flat, scoresFor(flat, make([]float32, 8))})
	cases = append(cases, tc{"no query", flat, func() *score.Scores { s := handScores(t, flat, 1); s.Query = nil; return s }()})
	eq := handScores(t, flat, 2)
	for i := range eq.H {
		eq.H[i] = 0.7
	}
	cases = append(cases, tc{"all h equal", flat, eq})
	noEdges := mk(5, 2, []float32{1, 0, 0.9, 0.1, 0.5, 0.5, 0.1, 0.9, 0, 1}, nil)
	cases = append(cases, tc{"no edges", noEdges, scoresFor(noEdges, []float32{1, 0})})
	routers := []Router{paperAspects(), &Aspects{}, ablated(ablShortestPath), ablated(ablDocumentOrder),
		ablated(ablSingleSink), ablated(ablNoAgreement), noCredit(), &Classic{}}
	for _, c := range cases {
		for _, rt := range routers {
			r, err := routeOn(ctx, rt, c.g, c.s)
			if err != nil {
				t.Fatalf("%s / %T: %v", c.name, rt, err)
			}
			if fullNet(r) != nil {
				checkFlow(t, r)
				if !r.acyclic() && r.Router != "classic" {
					t.Fatalf("%s / %s: cycle", c.name, r.Router)
				}
			}
			if r.Saturation < 0 || r.Saturation > 1 {
				t.Fatalf("%s / %s: σ = %g", c.name, r.Router, r.Saturation)
			}
			_ = r.String()
			_ = cutPairs(c.g, c.s, r, 4)
			_ = cutEdges(c.g, r, 4)
			_ = topFlowEdges(r)
			_ = expandSources(c.g, c.s, r, 2, 4)
		}
	}
}

// TestNonFinite checks nonFinite against the per-value test on special and
// random values, including sums that overflow with every term finite.
func TestNonFinite(t *testing.T) {
	ref := func(x []float64) int {
		for i, v := range x {
			if v != v || v > 1e300 || v < -1e300 {
				return i
			}
		}
		return -1
	}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, 2e300, -2e300, math.MaxFloat64,
		math.Nextafter(1e300, 2e300), math.SmallestNonzeroFloat64, 0, math.Copysign(0, -1)}
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 3000; trial++ {
		x := make([]float64, rng.IntN(23))
		for i := range x {
			x[i] = rng.NormFloat64()
			switch rng.IntN(8) {
			case 0:
				x[i] = special[rng.IntN(len(special))]
			case 1:
				x[i] = 9e299 * float64(rng.IntN(3)-1) // finite, but sums overflow
			}
		}
		if got, want := nonFinite(x), ref(x); got != want {
			t.Fatalf("nonFinite(%v) = %d, want %d", x, got, want)
		}
	}
}
