package mcf

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSSPAspects solves FlowReader-shaped networks (METHOD B.7): the
// workload flowreader runs once per query.
func BenchmarkSSPAspects(b *testing.B) {
	for _, N := range []int{1000, 10000, 100000} {
		for _, single := range []bool{false, true} {
			name := fmt.Sprintf("N=%d", N)
			if single {
				name += "/single-path"
			}
			b.Run(name, func(b *testing.B) {
				n, _, _ := aspectsNetwork(rand.New(rand.NewPCG(1, uint64(N))), N, 8, 16)
				b.ReportMetric(float64(n.NumArcs()), "arcs")
				solver := &SSP{SinglePath: single}
				b.ResetTimer()
				for b.Loop() {
					if _, err := solver.Solve(context.Background(), n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSSPRandom solves random cyclic networks with many units of
// supply, where SSP needs many augmentations.
func BenchmarkSSPRandom(b *testing.B) {
	for _, nn := range []int{300, 3000} {
		b.Run(fmt.Sprintf("n=%d", nn), func(b *testing.B) {
			n := randomNetwork(rand.New(rand.NewPCG(5, uint64(nn))), cyclicPotential, nn, 6*nn, false, false, false)
			for v := 0; v < nn; v++ {
				n.SetSupply(v, 0)
			}
			n.SetSupply(0, float64(nn))
			n.SetSupply(nn-1, -float64(nn))
			b.ResetTimer()
			for b.Loop() {
				if _, err := (&SSP{}).Solve(context.Background(), n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMaxFlow(b *testing.B) {
	n, s, t := aspectsNetwork(rand.New(rand.NewPCG(1, 2)), 10000, 8, 16)
	for b.Loop() {
		if _, _, err := MaxFlow(n, s, t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecompose(b *testing.B) {
	n, s, t := aspectsNetwork(rand.New(rand.NewPCG(1, 3)), 10000, 8, 16)
	sol, err := (&SSP{}).Solve(context.Background(), n)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decompose(n, sol.Flow, s, t, 60); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLP(b *testing.B) {
	n, _, _ := aspectsNetwork(rand.New(rand.NewPCG(1, 4)), 12, 3, 4)
	for b.Loop() {
		if _, err := (LP{}).Solve(context.Background(), n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadDIMACS(b *testing.B) {
	n, _, _ := aspectsNetwork(rand.New(rand.NewPCG(1, 5)), 10000, 8, 16)
	var buf bytes.Buffer
	if err := WriteDIMACS(&buf, &Problem{Network: n}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadDIMACS(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
