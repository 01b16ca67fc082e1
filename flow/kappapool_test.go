package flow

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
)

// liveTails marks the network nodes the source reaches through arcs of
// capacity above mcf.Eps (a plain fixed point, independent of liveFromPairs).
func liveTails(net *mcf.Network, src int) []bool {
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
	return reach
}

// TestKappaPoolLiveArcs checks κ under PoolLiveArcs against an oracle computed from
// the routed network: b/(1−b) · sd of the content arc prices whose tail the
// source reaches over sd of max(0, <ê_v, φ_a>) of the reached nodes. It
// also requires PoolLiveArcs to equal pooling every arc bit for bit when every node is
// live, and to differ from it on some graph where most nodes are dead (so
// the oracle check bites).
func TestKappaPoolLiveArcs(t *testing.T) {
	ctx := context.Background()
	differs := 0
	for seed := uint64(1); seed <= 6; seed++ {
		g := synthGraph(t, 40+int(seed)*30, 16, seed)
		s := handScores(t, g, seed)
		live, all := &Aspects{}, &Aspects{}
		live.PoolEveryArc, all.PoolEveryArc = false, true
		r, err := routeOn(ctx, live, g, s)
		if err != nil {
			t.Fatal(err)
		}
		ra, err := routeOn(ctx, all, g, s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Kappa != ra.Kappa {
			differs++
		}

		n := len(g.Nodes)
		reach := liveTails(fullNet(r), r.Source)
		var w []float64
		for id := n; id < n+r.ContentArcs; id++ {
			u, _, _, cost := fullNet(r).Arc(id)
			if reach[u] {
				w = append(w, cost)
			}
		}
		var c []float64
		for v := 0; v < n; v++ {
			if !reach[v] {
				continue
			}
			e := g.Embedding(v)
			for _, asp := range r.Aspects {
				var dot float64
				for i, x := range e {
					dot += float64(x) * float64(float32(asp.Direction[i]))
				}
				c = append(c, math.Max(0, dot))
			}
		}
		b := live.settings().TerminationShare
		want := b / (1 - b) * popSD(w) / popSD(c)
		if math.Abs(r.Kappa-want) > 1e-4*want {
			t.Fatalf("seed %d: κ %v, oracle %v (%d live arcs, %d alignments)", seed, r.Kappa, want, len(w), len(c))
		}
		checkFlow(t, r)

		// Every node live: the pools are the same.
		live.DemandFloor, all.DemandFloor = -1, -1
		r, err = routeOn(ctx, live, g, s)
		if err != nil {
			t.Fatal(err)
		}
		ra, err = routeOn(ctx, all, g, s)
		if err != nil {
			t.Fatal(err)
		}
		sameRouting(t, fmt.Sprintf("seed %d floor 0", seed), r, ra)
	}
	if differs == 0 {
		t.Fatal("pooling the live arcs never changed κ: the oracle check does not bite")
	}
}
