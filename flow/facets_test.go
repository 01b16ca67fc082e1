package flow

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// wordGraph makes n nodes in dim dimensions with random embeddings and the
// given contents (cycled), kNN-free, reading order within one document.
func wordGraph(t *testing.T, n, dim int, contents []string) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	nodes := make([]graph.Node, n)
	emb := make([]float32, n*dim)
	var edges []graph.Edge
	for i := range nodes {
		nodes[i] = graph.Node{ID: string(rune('a' + i%26)), Doc: "d", Order: i, Content: contents[i%len(contents)]}
		for j := 0; j < dim; j++ {
			emb[i*dim+j] = float32(rng.NormFloat64() + 0.5)
		}
		if i > 0 {
			edges = append(edges, graph.Edge{U: int32(i - 1), V: int32(i), Kind: graph.Link})
		}
	}
	g, err := graph.New(nodes, dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestFixedDemandReadsTheBudget(t *testing.T) {
	g := synthGraph(t, 60, 16, 5)
	s := handScores(t, g, 2)
	a := DefaultAspects()
	a.DemandRule, a.FMax, a.DemandFloor = DemandBudget, 11, 0
	r, err := a.Route(context.Background(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	checkFlow(t, r)
	if r.Demand != 11 || math.Abs(r.Routed-11) > 1e-9 {
		t.Fatalf("demand %g routed %g, want 11", r.Demand, r.Routed)
	}
	// With a floor: F0 is capped by the nodes at or above it, and no node
	// below it is on any chain.
	for _, floor := range []float64{0.5, 0.8, 0.95} {
		a.DemandFloor = floor
		above := 0
		for _, x := range s.H {
			if x >= floor {
				above++
			}
		}
		r, err := a.Route(context.Background(), g, s)
		if err != nil {
			t.Fatal(err)
		}
		checkFlow(t, r)
		if want := math.Min(math.Max(float64(above), a.FMin), 11); r.Demand != want {
			t.Fatalf("floor %g: demand %g, want %g", floor, r.Demand, want)
		}
		for _, c := range r.Chains {
			for _, v := range c.Nodes {
				if s.H[v] < floor {
					t.Fatalf("floor %g: node %d (h %g) routed", floor, v, s.H[v])
				}
			}
		}
	}
	a.DemandFloor = 1.5
	if _, err := a.Route(context.Background(), g, s); !errors.Is(err, ErrConfig) {
		t.Fatalf("floor 1.5: %v", err)
	}
	p := PaperAspects()
	p.FMax = 11
	rp, err := p.Route(context.Background(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := Demand(s.H, p.Tau, p.FMin, p.FMax); rp.Demand != want {
		t.Fatalf("paper demand %g, want the participation ratio %g", rp.Demand, want)
	}
}

// TestTermFacets checks the facet network: capacities sum to F0 with the
// general facet's share, and with a large κ a rare query term's facet is fed
// by the one low-relevance node that contains it.
func TestTermFacets(t *testing.T) {
	contents := []string{"alpha beta", "alpha", "beta common", "common words", "alpha common"}
	n := 30
	g := wordGraph(t, n, 8, contents)
	// Node n-1 alone holds the rare term.
	nodes := slices.Clone(g.Nodes)
	nodes[n-1].Content = "gamma"
	g2, err := graph.New(nodes, g.Dim, g.Emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := handScores(t, g2, 1)
	s.H[n-1] = 0 // least relevant
	s.Keywords = []string{"alpha", "gamma", "absent"}
	k := 10.0
	a := DefaultAspects()
	a.Aspects, a.FacetShare, a.Kappa, a.DemandRule, a.FMax = TermFacets, 0.5, &k, DemandBudget, 8
	a.DemandFloor = 0 // node n-1 has h = 0
	r, err := a.Route(context.Background(), g2, s)
	if err != nil {
		t.Fatal(err)
	}
	checkFlow(t, r)
	if len(r.Aspects) != 3 || r.Aspects[0].Facet != "" || r.Aspects[1].Facet != "alpha" || r.Aspects[2].Facet != "gamma" {
		t.Fatalf("facets %+v", r.Aspects)
	}
	var sum float64
	for _, x := range r.Aspects {
		sum += x.Capacity
	}
	if math.Abs(sum-8) > 1e-9 || math.Abs(r.Aspects[0].Capacity-4) > 1e-9 {
		t.Fatalf("capacities %+v", r.Aspects)
	}
	// gamma (df 1) is rarer than alpha (df 18), so it gets the larger share.
	if r.Aspects[2].Capacity <= r.Aspects[1].Capacity {
		t.Fatalf("idf shares %+v", r.Aspects)
	}
	routed := false
	for _, c := range r.Chains {
		routed = routed || slices.Contains(c.Nodes, n-1)
	}
	if !routed {
		t.Fatalf("rare-term node %d not routed: %v", n-1, r.Chains)
	}

	// No query term in the graph: the spectral aspects, as without facets.
	s.Keywords = []string{"absent"}
	r1, err := a.Route(context.Background(), g2, s)
	if err != nil {
		t.Fatal(err)
	}
	b := *a
	b.Aspects = SpectralAspects
	r2, err := b.Route(context.Background(), g2, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Chains) != len(r2.Chains) || r1.Cost != r2.Cost {
		t.Fatalf("fallback differs: %d chains cost %g vs %d cost %g", len(r1.Chains), r1.Cost, len(r2.Chains), r2.Cost)
	}

	a.FacetShare = 1.5
	if _, err := a.Route(context.Background(), g2, s); !errors.Is(err, ErrConfig) {
		t.Fatalf("FacetShare 1.5: %v", err)
	}
}
