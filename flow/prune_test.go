package flow

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
)

// sameRouting fails unless got and want agree bit for bit on everything the
// solve decides: flows per arc, cost, routed amount, chains and aspect flows.
func sameRouting(t *testing.T, name string, got, want *Routing) {
	t.Helper()
	bits := math.Float64bits
	if got.Network.NumArcs() != want.Network.NumArcs() || len(got.Flow) != len(want.Flow) {
		t.Fatalf("%s: %d arcs / %d flows, want %d / %d", name, got.Network.NumArcs(), len(got.Flow),
			want.Network.NumArcs(), len(want.Flow))
	}
	for id := range want.Flow {
		if bits(got.Flow[id]) != bits(want.Flow[id]) {
			t.Fatalf("%s: flow on arc %d is %v, want %v", name, id, got.Flow[id], want.Flow[id])
		}
	}
	if bits(got.Cost) != bits(want.Cost) || bits(got.Routed) != bits(want.Routed) || bits(got.Kappa) != bits(want.Kappa) {
		t.Fatalf("%s: cost %v routed %v κ %v, want %v %v %v", name, got.Cost, got.Routed, got.Kappa,
			want.Cost, want.Routed, want.Kappa)
	}
	if len(got.Chains) != len(want.Chains) {
		t.Fatalf("%s: %d chains, want %d", name, len(got.Chains), len(want.Chains))
	}
	for i, c := range want.Chains {
		d := got.Chains[i]
		if fmt.Sprint(d.Nodes) != fmt.Sprint(c.Nodes) || d.Aspect != c.Aspect ||
			bits(d.Flow) != bits(c.Flow) || bits(d.Cost) != bits(c.Cost) {
			t.Fatalf("%s: chain %d is %+v, want %+v", name, i, d, c)
		}
	}
	for j, x := range want.Aspects {
		y := got.Aspects[j]
		if bits(y.Flow) != bits(x.Flow) || y.Fed != x.Fed {
			t.Fatalf("%s: aspect %d flow %v fed %d, want %v %d", name, j, y.Flow, y.Fed, x.Flow, x.Fed)
		}
	}
}

// TestPrunedRoutingIsExact routes random graphs with and without pruning
// the network to its live part, under the default, the paper's preset and
// variants that change which nodes are live, and requires the same routing
// bit for bit; it also requires that pruning happened in most cases.
func TestPrunedRoutingIsExact(t *testing.T) {
	ctx := context.Background()
	variants := map[string]func() *Aspects{
		"default": DefaultAspects,
		"paper":   PaperAspects,
		"floor10": func() *Aspects { a := DefaultAspects(); a.DemandFloor = 0.1; return a },
		"floor60": func() *Aspects { a := DefaultAspects(); a.DemandFloor = 0.6; return a },
		"floor90": func() *Aspects { a := DefaultAspects(); a.DemandFloor = 0.9; a.FMin = 1; return a },
		"docorder": func() *Aspects {
			a := DocOrder(DefaultAspects())
			a.DemandFloor = 0.5
			return a
		},
		"uncap":   func() *Aspects { return ShortestPath(DefaultAspects()) },
		"credit":  func() *Aspects { a := DefaultAspects(); a.OrderCredit = 0.3; a.NodeCredit = true; return a },
		"termsC":  func() *Aspects { a := DefaultAspects(); a.TerminalsFromC = true; return a },
		"facets":  func() *Aspects { a := DefaultAspects(); a.Aspects = TermFacets; return a },
		"single":  func() *Aspects { return SingleSink(DefaultAspects()) },
		"nomerge": func() *Aspects { a := DefaultAspects(); a.MergeChains = false; a.MaxChains = 5; return a },
	}
	names := []string{"default", "paper", "floor10", "floor60", "floor90", "docorder", "uncap", "credit", "termsC",
		"facets", "single", "nomerge"}
	seeds := uint64(12)
	if testing.Short() {
		seeds = 4
	}
	pruned, total := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		n := 30 + int(seed)*23
		g := synthGraph(t, n, 16+int(seed%3)*8, seed)
		s := handScores(t, g, seed)
		for _, name := range names {
			a, ref := variants[name](), variants[name]()
			ref.noPrune = true
			got, err := a.Route(ctx, g, s)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, name, err)
			}
			want, err := ref.Route(ctx, g, s)
			if err != nil {
				t.Fatalf("seed %d %s (unpruned): %v", seed, name, err)
			}
			sameRouting(t, fmt.Sprintf("seed %d %s", seed, name), got, want)
			total++
			if sub, _ := liveNetwork(want.Network, want.Source); sub != nil {
				pruned++
			}
		}
	}
	t.Logf("pruned %d of %d routings", pruned, total)
	if pruned < total/2 {
		t.Fatalf("pruning applied in only %d of %d routings: the test would not bite", pruned, total)
	}
}

// TestLiveNetworkSolvesSame builds random layered networks in which some
// nodes get zero entry capacity, and checks that the live part solves to
// the same flow and cost as the whole network, bit for bit.
func TestLiveNetworkSolvesSame(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 5 + rng.IntN(40)
		na := 1 + rng.IntN(4)
		src, snk, base := n, n+1, n+2
		net := mcf.NewNetwork(n + 2 + na)
		for v := 0; v < n; v++ {
			c := 1.0
			if rng.Float64() < 0.6 {
				c = 0
			}
			net.AddArc(src, v, c, rng.Float64())
		}
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < 0.2 {
					net.AddArc(u, v, 1, rng.Float64()-0.4)
				}
			}
		}
		for v := 0; v < n; v++ {
			for j := 0; j < na; j++ {
				net.AddArc(v, base+j, 1, float64(rng.IntN(4))/4)
			}
		}
		sumD := 0.0
		for j := 0; j < na; j++ {
			d := float64(1 + rng.IntN(3))
			net.AddArc(base+j, snk, d, 0)
			sumD += d
		}
		fmax, _, err := mcf.MaxFlow(net, src, snk)
		if err != nil {
			t.Fatal(err)
		}
		f := math.Min(sumD, fmax)
		if f <= mcf.Eps {
			continue
		}
		net.SetSupply(src, f)
		net.SetSupply(snk, -f)
		want, err := (&mcf.SSP{}).Solve(ctx, net)
		if err != nil {
			t.Fatal(err)
		}
		sub, ids := liveNetwork(net, src)
		if sub == nil {
			continue
		}
		got, err := (&mcf.SSP{}).Solve(ctx, sub)
		if err != nil {
			t.Fatal(err)
		}
		full := make([]float64, net.NumArcs())
		for i, id := range ids {
			full[id] = got.Flow[i]
		}
		for id := range full {
			if math.Float64bits(full[id]) != math.Float64bits(want.Flow[id]) {
				t.Fatalf("seed %d: arc %d flow %v, want %v", seed, id, full[id], want.Flow[id])
			}
		}
		if math.Float64bits(got.Cost) != math.Float64bits(want.Cost) {
			t.Fatalf("seed %d: cost %v, want %v", seed, got.Cost, want.Cost)
		}
	}
}
