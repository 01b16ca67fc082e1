package mcf_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
)

// BenchmarkSSPAspects solves FlowReader-shaped networks (paper v3 §3.3,
// Eq. 7): the workload flowreader runs once per query.
func BenchmarkSSPAspects(b *testing.B) {
	for _, N := range []int{1000, 10000, 100000} {
		for _, single := range []bool{false, true} {
			name := fmt.Sprintf("N=%d", N)
			if single {
				name += "/single-path"
			}
			b.Run(name, func(b *testing.B) {
				n, _, _ := mcftest.AspectsNetwork(rand.New(rand.NewPCG(1, uint64(N))), N, 8, 16)
				b.ReportMetric(float64(n.NumArcs()), "arcs")
				solver := &mcf.SSP{SinglePath: single}
				b.ResetTimer()
				var augs int
				for b.Loop() {
					sol, err := solver.Solve(context.Background(), n)
					if err != nil {
						b.Fatal(err)
					}
					augs = sol.Augmentations
				}
				b.ReportMetric(float64(augs), "augs")
			})
		}
	}
}

// BenchmarkSSPTransshipment solves NETGEN-like networks with √n sources and
// sinks, where serving several sinks per Dijkstra phase matters; augs is
// the number of augmenting paths of one solve.
func BenchmarkSSPTransshipment(b *testing.B) {
	for _, nn := range []int{1000, 10000} {
		for _, single := range []bool{false, true} {
			name := fmt.Sprintf("n=%d", nn)
			if single {
				name += "/single-path"
			}
			b.Run(name, func(b *testing.B) {
				n := mcftest.TransshipmentNetwork(rand.New(rand.NewPCG(8, uint64(nn))), nn)
				solver := &mcf.SSP{SinglePath: single}
				var augs int
				for b.Loop() {
					sol, err := solver.Solve(context.Background(), n)
					if err != nil || sol.Partial {
						b.Fatal(err, sol)
					}
					augs = sol.Augmentations
				}
				b.ReportMetric(float64(augs), "augs")
			})
		}
	}
}

// BenchmarkSSPRandom solves random cyclic networks with many units of
// supply, where SSP needs many augmentations.
func BenchmarkSSPRandom(b *testing.B) {
	for _, nn := range []int{300, 3000} {
		b.Run(fmt.Sprintf("n=%d", nn), func(b *testing.B) {
			n := mcftest.RandomNetwork(rand.New(rand.NewPCG(5, uint64(nn))), mcftest.CyclicPotential, nn, 6*nn, false, false, false)
			for v := 0; v < nn; v++ {
				n.SetSupply(v, 0)
			}
			n.SetSupply(0, float64(nn))
			n.SetSupply(nn-1, -float64(nn))
			b.ResetTimer()
			for b.Loop() {
				if _, err := (&mcf.SSP{}).Solve(context.Background(), n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMaxFlow(b *testing.B) {
	n, s, t := mcftest.AspectsNetwork(rand.New(rand.NewPCG(1, 2)), 10000, 8, 16)
	for b.Loop() {
		if _, _, err := mcf.MaxFlow(n, s, t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecompose(b *testing.B) {
	n, s, t := mcftest.AspectsNetwork(rand.New(rand.NewPCG(1, 3)), 10000, 8, 16)
	sol, err := (&mcf.SSP{}).Solve(context.Background(), n)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := mcf.Decompose(n, sol.Flow, s, t, 60); err != nil {
			b.Fatal(err)
		}
	}
}
