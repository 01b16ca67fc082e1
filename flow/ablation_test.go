package flow

import (
	"context"
	"math"
	"testing"
)

func TestAblationRouters(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 150, 16, 8)
	s := handScores(t, g, 8)
	base, err := routeOn(ctx, paperAspects(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := routeOn(ctx, ablated(ablShortestPath), g, s)
	if err != nil {
		t.Fatal(err)
	}
	if !sp.acyclic() || math.Abs(sp.Routed-sp.Demand) > 1e-9 {
		t.Fatal("shortest path: not a DAG or not fully routed")
	}
	// Without capacities each aspect takes one cheapest path, so there are at
	// most A chains and the cost can only fall.
	if len(sp.Chains) > len(sp.Aspects) || sp.Cost > base.Cost+1e-9 {
		t.Fatalf("shortest path: %d chains for %d aspects, cost %g vs %g", len(sp.Chains), len(sp.Aspects), sp.Cost, base.Cost)
	}
	ss, _ := routeOn(ctx, ablated(ablSingleSink), g, s)
	if len(ss.Aspects) != 1 || math.Abs(ss.Aspects[0].Capacity-ss.Demand) > 1e-9 {
		t.Fatal("single sink: want A = 1 with d_1 = F0")
	}
	if ss.Kappa == base.Kappa {
		t.Fatal("single sink: κ not recomputed")
	}
	do, _ := routeOn(ctx, ablated(ablDocumentOrder), g, s)
	if !do.acyclic() {
		t.Fatal("doc order: cycle")
	}
	for _, c := range do.Chains {
		for i := 1; i < len(c.Nodes); i++ {
			x, y := g.Nodes[c.Nodes[i-1]], g.Nodes[c.Nodes[i]]
			if x.Doc > y.Doc || (x.Doc == y.Doc && x.Order > y.Order) {
				t.Fatalf("doc-order chain %v goes backwards", c.Nodes)
			}
		}
	}
	for _, r := range []*Routing{sp, ss, do} {
		if r.Router == base.Router {
			t.Fatal("ablation routers must have their own names")
		}
	}
}
