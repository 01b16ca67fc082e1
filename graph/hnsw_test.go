package graph

import (
	"context"
	"slices"
	"testing"
)

// knnRecall is the share of exact's neighbours that approx also lists.
func knnRecall(exact, approx []int32, rows []int, k int) float64 {
	hit, all := 0, 0
	for _, i := range rows {
		a := approx[i*k : (i+1)*k]
		for _, j := range exact[i*k : (i+1)*k] {
			if j < 0 {
				continue
			}
			all++
			if slices.Contains(a, j) {
				hit++
			}
		}
	}
	if all == 0 {
		return 1
	}
	return float64(hit) / float64(all)
}

func TestApproxTopKRecallAndDeterminism(t *testing.T) {
	n, dim := 6000, 64
	if testing.Short() {
		n = 2000
	}
	v := probeVecs(n, dim, 3)
	k := knnSize(n)
	ctx := context.Background()
	exact, err := topK(ctx, rows{dim: dim, f: v}, n, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	a1, err := approxTopK(ctx, rows{dim: dim, f: v}, n, k, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	a3, err := approxTopK(ctx, rows{dim: dim, f: v}, n, k, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a1, a3) {
		t.Fatal("approximate kNN depends on the number of workers")
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	r := knnRecall(exact, a1, rows, k)
	t.Logf("recall %.4f at n=%d dim=%d k=%d", r, n, dim, k)
	if r < 0.95 {
		t.Fatalf("recall %.4f < 0.95", r)
	}
	for i := 0; i < n; i++ {
		row := a1[i*k : (i+1)*k]
		for t2, j := range row {
			if j == int32(i) || j < 0 || slices.Contains(row[:t2], j) {
				t.Fatalf("row %d: bad list %v", i, row)
			}
		}
	}
}
