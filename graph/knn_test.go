package graph

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
)

func sdot(a, b []float32) float32 { return gonum.Implementation{}.Sdot(len(a), a, 1, b, 1) }

func TestKNNSize(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {1, 0}, {2, 1}, {4, 3}, {8, 3}, {9, 4}, {1000, 10}, {1 << 20, 20}, {1 << 40, 32}} {
		if got := knnSize(c[0]); got != c[1] {
			t.Errorf("knnSize(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// TestTopKOracle compares the blocked search against sorting all pairs.
func TestTopKOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{1, 2, 5, 33, 100} {
		dim := 6
		emb := make([]float32, n*dim)
		for i := range emb {
			emb[i] = float32(r.IntN(5) - 2) // small integers: many exact ties
		}
		for i := 0; i < n; i++ {
			normalize(emb[i*dim : (i+1)*dim])
		}
		k := min(4, n-1)
		if k <= 0 {
			continue
		}
		got, err := topK(context.Background(), rows{dim: dim, f: emb}, n, k, 3)
		if err != nil {
			t.Fatal(err)
		}
		one, _ := topK(context.Background(), rows{dim: dim, f: emb}, n, k, 1)
		if !reflect.DeepEqual(got, one) {
			t.Fatalf("n=%d: result depends on the number of workers", n)
		}
		for i := 0; i < n; i++ {
			var cand []int
			for j := 0; j < n; j++ {
				if j != i {
					cand = append(cand, j)
				}
			}
			// topK computes each pair once, lower index first (the
			// assembly's summation order depends on the operands' order).
			sim := func(j int) float32 {
				a, b := min(i, j), max(i, j)
				return sdot(emb[a*dim:(a+1)*dim], emb[b*dim:(b+1)*dim])
			}
			sort.SliceStable(cand, func(a, b int) bool { return sim(cand[a]) > sim(cand[b]) })
			for t2 := 0; t2 < k; t2++ {
				if int(got[i*k+t2]) != cand[t2] {
					t.Fatalf("n=%d row %d: got %v, want %v", n, i, got[i*k:(i+1)*k], cand[:k])
				}
			}
		}
	}
}

func TestTopKCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := topK(ctx, rows{dim: 4, f: make([]float32, 100*4)}, 100, 3, 2); err == nil {
		t.Fatal("cancelled search succeeded")
	}
}
