package flow

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestOrderCredit: a large credit on reading-order arcs makes chains that
// step between adjacent nodes of one document, the network stays a valid
// flow, and a NaN credit is rejected.
func TestOrderCredit(t *testing.T) {
	g := synthGraph(t, 60, 16, 9)
	s := handScores(t, g, 4)
	a := DefaultAspects()
	a.DemandRule, a.FMax, a.NodeCredit = DemandBudget, 12, false
	adjacentSteps := func(r *Routing) int {
		n := 0
		for _, c := range r.Chains {
			for i := 1; i < len(c.Nodes); i++ {
				x, y := &g.Nodes[c.Nodes[i-1]], &g.Nodes[c.Nodes[i]]
				if x.Doc == y.Doc && (x.Order-y.Order == 1 || y.Order-x.Order == 1) {
					n++
				}
			}
		}
		return n
	}
	r0, err := a.Route(context.Background(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	a.OrderCredit = 2
	r1, err := a.Route(context.Background(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	checkFlow(t, r1)
	if adjacentSteps(r1) <= adjacentSteps(r0) {
		t.Fatalf("order credit did not add adjacent steps: %d vs %d", adjacentSteps(r1), adjacentSteps(r0))
	}
	a.OrderCredit = math.NaN()
	if _, err := a.Route(context.Background(), g, s); !errors.Is(err, ErrConfig) {
		t.Fatalf("NaN credit: %v", err)
	}
}
