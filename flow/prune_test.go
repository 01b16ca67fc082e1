package flow

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
)

// sameRouting fails unless got and want agree bit for bit on everything the
// solve decides: flows per arc, cost, routed amount, chains and aspect flows.
func sameRouting(t *testing.T, name string, got, want *Routing) {
	t.Helper()
	bits := math.Float64bits
	gn, gf := got.fullNetwork()
	wn, wf := want.fullNetwork()
	if gn.NumArcs() != wn.NumArcs() || len(gf) != len(wf) {
		t.Fatalf("%s: %d arcs / %d flows, want %d / %d", name, gn.NumArcs(), len(gf), wn.NumArcs(), len(wf))
	}
	for id := range wf {
		if bits(gf[id]) != bits(wf[id]) {
			t.Fatalf("%s: flow on arc %d is %v, want %v", name, id, gf[id], wf[id])
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
		"default": func() *Aspects { return &Aspects{} },
		"paper":   paperAspects,
		"floor10": func() *Aspects { a := &Aspects{}; a.DemandFloor = 0.1; return a },
		"floor60": func() *Aspects { a := &Aspects{}; a.DemandFloor = 0.6; return a },
		"floor90": func() *Aspects { a := &Aspects{}; a.DemandFloor = 0.9; return a },
		"docorder": func() *Aspects {
			a := &Aspects{}
			a.DocumentOrder = true
			a.DemandFloor = 0.5
			return a
		},
		"uncap":   func() *Aspects { a := &Aspects{}; a.ShortestPath = true; return a },
		"credit":  func() *Aspects { a := &Aspects{}; a.NodeCredit = true; return a },
		"single":  func() *Aspects { a := &Aspects{}; a.SingleSink = true; return a },
		"nomerge": func() *Aspects { a := &Aspects{}; a.SplitChains = true; return a },
		"poolall": func() *Aspects { a := &Aspects{}; a.PoolEveryArc = true; return a },
	}
	names := []string{"default", "paper", "floor10", "floor60", "floor90", "docorder", "uncap", "credit",
		"single", "nomerge", "poolall"}
	seeds := uint64(7)
	if testing.Short() {
		seeds = 4
	}
	pruned, total := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		n := 30 + int(seed)*23
		if seed == seeds {
			n = 400 // most nodes dead under the default floor
		}
		g := synthGraph(t, n, 16+int(seed%3)*8, seed)
		s := handScores(t, g, seed)
		for _, name := range names {
			if n >= 400 && name != "default" && name != "paper" {
				continue // the large graph checks the presets only, to keep -race quick
			}
			a, ref := variants[name](), variants[name]()
			ref.noPrune = true
			got, err := routeOn(ctx, a, g, s)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, name, err)
			}
			want, err := routeOn(ctx, ref, g, s)
			if err != nil {
				t.Fatalf("seed %d %s (unpruned): %v", seed, name, err)
			}
			sameRouting(t, fmt.Sprintf("seed %d %s", seed, name), got, want)
			total++
			if deadArcs(fullNet(want), want.Source) > 0 {
				pruned++
			}
		}
	}
	t.Logf("pruned %d of %d routings", pruned, total)
	if pruned < total/2 {
		t.Fatalf("pruning applied in only %d of %d routings: the test would not bite", pruned, total)
	}
}

// deadArcs counts the arcs of net whose tail src cannot reach through arcs
// of capacity above mcf.Eps: the arcs pruning drops (a plain fixed point,
// independent of liveFromPairs).
func deadArcs(net *mcf.Network, src int) int {
	reach := make([]bool, net.NumNodes())
	reach[src] = true
	for changed := true; changed; {
		changed = false
		for id := 0; id < net.NumArcs(); id++ {
			u, v, c, _ := net.Arc(id)
			if reach[u] && c > mcf.Eps && !reach[v] {
				reach[v], changed = true, true
			}
		}
	}
	dead := 0
	for id := 0; id < net.NumArcs(); id++ {
		if u, _, _, _ := net.Arc(id); !reach[u] {
			dead++
		}
	}
	return dead
}

// TestLiveNodes checks liveFromPairs and livePairs against a plain fixed
// point on random oriented pairs with random entry capacities.
func TestLiveNodes(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 1 + rng.IntN(30)
		entry := make([]float64, n)
		in := make([]bool, n)
		entered := 0
		for v := range entry {
			if rng.Float64() < 0.3 {
				entry[v], in[v] = 1, true
				entered++
			}
		}
		var arcs []arc
		var pairs []pair
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < 0.16 {
					e := arc{from: u, to: v}
					if rng.IntN(2) == 0 {
						e = arc{from: v, to: u}
					}
					arcs = append(arcs, e)
					pairs = append(pairs, pair{u: u, v: v})
				}
			}
		}
		ps := newPairSet(n, pairs, make([]float64, len(pairs)))
		orient := func(i int) (int, int) { return arcs[i].from, arcs[i].to }
		want := append([]float64(nil), entry...)
		for changed := true; changed; {
			changed = false
			for _, e := range arcs {
				if want[e.from] > 0 && want[e.to] == 0 {
					want[e.to], changed = 1, true
				}
			}
		}
		got, count := liveFromPairs(slices.Clone(in), entered, ps, orient, 1, false)
		if stuck, k := liveFromPairs(slices.Clone(in), entered, ps, orient, 0, false); stuck != nil {
			if k != entered {
				t.Fatalf("seed %d: with unit 0, %d live, want the %d entered", seed, k, entered)
			}
			for v := range stuck {
				if stuck[v] != (entry[v] > 0) {
					t.Fatalf("seed %d: with unit 0 node %d live %v, entry %v", seed, v, stuck[v], entry[v])
				}
			}
		}
		var wantIdx []int
		for i, e := range arcs {
			if got == nil || got[e.from] {
				wantIdx = append(wantIdx, i)
			}
		}
		if got != nil {
			for _, closed := range []bool{true, false} {
				if idx := livePairs(got, ps, orient, closed); !slices.Equal(idx, wantIdx) {
					t.Fatalf("seed %d: live pairs (closed %v) %v, want %v", seed, closed, idx, wantIdx)
				}
			}
		}
		all := true
		wantCount := 0
		for v := range want {
			all = all && want[v] > 0
			if want[v] > 0 {
				wantCount++
			}
			if got != nil && got[v] != (want[v] > 0) {
				t.Fatalf("seed %d: node %d live %v, want %v", seed, v, got[v], want[v] > 0)
			}
		}
		if count != wantCount {
			t.Fatalf("seed %d: %d live, want %d", seed, count, wantCount)
		}
		if (got == nil) != all {
			t.Fatalf("seed %d: nil result %v, every node live %v", seed, got == nil, all)
		}
	}
}

// TestLiveClosedByRelevance checks the shortcut route takes under
// ByRelevance: with arcs oriented toward higher (h, index) and entry by an
// h floor, the entered nodes are exactly the nodes the walk reaches.
func TestLiveClosedByRelevance(t *testing.T) {
	a := &Aspects{}
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 12))
		n := 2 + rng.IntN(40)
		h := make([]float64, n)
		for v := range h {
			h[v] = float64(rng.IntN(8)) / 8 // ties exercise the index order
		}
		floor := float64(rng.IntN(9)) / 8
		in := make([]bool, n)
		entered := 0
		for v := range in {
			if h[v] >= floor {
				in[v] = true
				entered++
			}
		}
		var pairs []pair
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < 0.2 {
					pairs = append(pairs, pair{u: u, v: v})
				}
			}
		}
		ps := newPairSet(n, pairs, make([]float64, len(pairs)))
		orient := func(i int) (int, int) {
			p := pairs[i]
			if a.before(nil, h, p.u, p.v) {
				return p.u, p.v
			}
			return p.v, p.u
		}
		walked, k1 := liveFromPairs(in, entered, ps, orient, 1, false)
		short, k2 := liveFromPairs(in, entered, ps, orient, 1, true)
		if !slices.Equal(walked, short) || k1 != k2 {
			t.Fatalf("seed %d: shortcut live set %v (%d), walk %v (%d)", seed, short, k2, walked, k1)
		}
	}
}

// TestClip01 checks clip01 against math.Min(math.Max(x, 0), 1) bit for bit
// on special and random values.
func TestClip01(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 2, 0.5, 1 + 1e-16, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.Nextafter(1, 2)}
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 1000; i++ {
		xs = append(xs, rng.NormFloat64())
	}
	for _, x := range xs {
		want := math.Min(math.Max(x, 0), 1)
		if got := clip01(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("clip01(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestKappaMatchesPopSD checks the streaming κ against popSD of the copied
// arc prices, bit for bit.
func TestKappaMatchesPopSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	a := &Aspects{}
	for trial := 0; trial < 50; trial++ {
		arcs := make([]arc, rng.IntN(300))
		w := make([]float64, len(arcs))
		for i := range arcs {
			arcs[i].w = rng.NormFloat64() * 3
			w[i] = arcs[i].w
		}
		align := make([]float64, 40)
		for i := range align {
			align[i] = math.Max(0, rng.NormFloat64())
		}
		num, den := popSD(w), popSD(align)
		want := 1.0
		if num >= 1e-12 && den >= 1e-12 {
			want = a.TerminationShare / (1 - a.TerminationShare) * num / den
		}
		if got := a.kappa(arcs, align); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: κ %v, want %v", trial, got, want)
		}
	}
}
