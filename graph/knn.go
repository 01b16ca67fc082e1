package graph

import (
	"context"
	"math"

	"golang.org/x/sync/errgroup"
)

// KNNSize returns the paper's neighbourhood size k = clip(ceil(log2 N), 3, 32)
// (v3 App. A.1; METHOD B.2), never more than N-1.
func KNNSize(n int) int {
	if n <= 1 {
		return 0
	}
	k := int(math.Ceil(math.Log2(float64(n))))
	k = min(max(k, 3), 32)
	return min(k, n-1)
}

// knnBlock is how many rows share one pass over the embeddings: each row j
// is loaded once and dotted with the whole block, which keeps the block in
// cache instead of streaming all rows once per row.
const knnBlock = 32

// topK returns, for each of the n rows of emb (unit or zero vectors of
// length dim), its k most similar other rows by dot product, most similar
// first, ties broken by lower index; row i's list is out[i*k:(i+1)*k],
// padded with -1 when n-1 < k. It is exact (brute force, O(N²d) time) and
// allocates O(N·k), not O(N²).
func topK(ctx context.Context, emb []float32, n, dim, k, workers int) ([]int32, error) {
	out := make([]int32, n*k)
	if k == 0 || n == 0 {
		return out, nil
	}
	sims := make([]float32, n*k)
	var g errgroup.Group
	g.SetLimit(max(workers, 1))
	for a := 0; a < n; a += knnBlock {
		a := a
		b := min(a+knnBlock, n)
		if err := ctx.Err(); err != nil {
			break
		}
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			for i := a; i < b; i++ {
				for t := 0; t < k; t++ {
					out[i*k+t] = -1
					sims[i*k+t] = float32(math.Inf(-1))
				}
			}
			for j := 0; j < n; j++ {
				ej := emb[j*dim : (j+1)*dim]
				for i := a; i < b; i++ {
					if i == j {
						continue
					}
					s := float32(Dot(emb[i*dim:(i+1)*dim], ej))
					ids, ss := out[i*k:(i+1)*k], sims[i*k:(i+1)*k]
					if s <= ss[k-1] && ids[k-1] >= 0 {
						continue // j comes later, so it loses ties
					}
					// Insert (s, j) keeping descending order; ties keep
					// the earlier (lower) index first.
					p := k - 1
					for p > 0 && (ids[p-1] < 0 || s > ss[p-1]) {
						ids[p], ss[p] = ids[p-1], ss[p-1]
						p--
					}
					ids[p], ss[p] = int32(j), s
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// knnEdges returns the symmetric kNN edge set: {u,v} whenever v is among
// u's k nearest or u among v's.
func knnEdges(nbrs []int32, n, k int) []Edge {
	edges := make([]Edge, 0, n*k)
	for i := 0; i < n; i++ {
		for _, j := range nbrs[i*k : (i+1)*k] {
			if j >= 0 {
				edges = append(edges, Edge{U: int32(i), V: j, Kind: KNN})
			}
		}
	}
	return edges
}
