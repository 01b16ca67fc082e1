package mcf

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestQuickVsLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 300; it++ {
		nn := 2 + rng.IntN(10)
		n := NewNetwork(nn)
		m := rng.IntN(3 * nn)
		for i := 0; i < m; i++ {
			u, v := rng.IntN(nn), rng.IntN(nn)
			if u >= v && it%2 == 0 {
				continue
			}
			n.AddArc(u, v, float64(rng.IntN(5)), float64(rng.IntN(11)-3*(it%2)))
		}
		b := float64(1 + rng.IntN(6))
		n.SetSupply(0, b)
		n.SetSupply(nn-1, -b)
		s1, err := (&SSP{}).Solve(context.Background(), n)
		if err != nil {
			t.Logf("it %d ssp: %v", it, err)
			continue
		}
		s2, err := LP{}.Solve(context.Background(), n)
		if err != nil {
			t.Fatalf("it %d lp: %v", it, err)
		}
		if math.Abs(s1.Cost-s2.Cost) > 1e-7*math.Max(1, math.Abs(s2.Cost)) || math.Abs(s1.Routed-s2.Routed) > 1e-7 {
			t.Fatalf("it %d: ssp %+v lp %+v", it, s1, s2)
		}
	}
}
