package mcf_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
)

// TestCertificateLarger checks feasibility and the optimality certificate on
// networks too large for the LP oracle: aspects-shaped DAGs with fractional
// capacities and random networks of every kind with hundreds of nodes.
func TestCertificateLarger(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	sizes := []int{50, 200, 1000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	checked := 0
	for _, N := range sizes {
		for rep := 0; rep < 4; rep++ {
			n, _, _ := mcftest.AspectsNetwork(rng, N, 8, 16)
			tag := fmt.Sprintf("aspects N=%d rep=%d", N, rep)
			sol, err := (&mcf.SSP{}).Solve(ctx, n)
			if err != nil {
				t.Fatalf("%s: %v", tag, err)
			}
			mcftest.CheckFeasible(t, n, sol, tag)
			mcftest.CheckCertificate(t, n, sol, tag)
			single, err := (&mcf.SSP{SinglePath: true}).Solve(ctx, n)
			if err != nil || !mcftest.RelClose(single.Cost, sol.Cost, 1e-9) {
				t.Fatalf("%s: single-path cost %v vs %v (%v)", tag, single.Cost, sol.Cost, err)
			}
			checked++
		}
	}
	for it := 0; it < 40; it++ {
		k := mcftest.Kind(it % 3) // no cyclicAny: negative cycles are certain at this size
		nn := 100 + rng.IntN(300)
		n := mcftest.RandomNetwork(rng, k, nn, 4*nn, it%2 == 0, it%3 == 0, it%4 == 0)
		tag := fmt.Sprintf("random it=%d %v n=%d", it, k, nn)
		sol, err := (&mcf.SSP{}).Solve(ctx, n)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		mcftest.CheckFeasible(t, n, sol, tag)
		mcftest.CheckCertificate(t, n, sol, tag)
		checked++
	}
	t.Logf("certificate-checked networks: %d", checked)
}
