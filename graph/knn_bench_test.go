package graph

import (
	"context"
	"math/rand/v2"
	"testing"
)

func BenchmarkTopK(b *testing.B) {
	for _, n := range []int{2000} {
		dim := 768
		r := rand.New(rand.NewPCG(1, 2))
		emb := make([]float32, n*dim)
		for i := range emb {
			emb[i] = float32(r.NormFloat64())
		}
		b.Run("", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				topK(context.Background(), emb, n, dim, KNNSize(n), 2)
			}
		})
	}
}
