package mcftest

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
)

// TestLPDiamond solves a four-node network whose optimum (cost 12: two units
// on each route) is known by hand.
func TestLPDiamond(t *testing.T) {
	n := mcf.NewNetwork(4)
	n.AddArc(0, 1, 2, 1)
	n.AddArc(0, 2, 5, 3)
	n.AddArc(1, 3, 2, 1)
	n.AddArc(2, 3, 5, 1)
	n.AddArc(1, 2, 1, 0)
	n.SetSupply(0, 4)
	n.SetSupply(3, -4)
	sol, err := LP{}.Solve(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	if !RelClose(sol.Cost, 12, 1e-9) || sol.Partial {
		t.Fatalf("cost %g partial %v, want 12 and false", sol.Cost, sol.Partial)
	}
}

func TestLPContextCancelled(t *testing.T) {
	n, _, _ := AspectsNetwork(rand.New(rand.NewPCG(1, 1)), 20, 2, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (LP{}).Solve(ctx, n); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func BenchmarkLP(b *testing.B) {
	n, _, _ := AspectsNetwork(rand.New(rand.NewPCG(1, 4)), 12, 3, 4)
	for b.Loop() {
		if _, err := (LP{}).Solve(context.Background(), n); err != nil {
			b.Fatal(err)
		}
	}
}
