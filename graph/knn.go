package graph

import (
	"context"
	"math"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// knnSize is the neighbourhood size k = clip(⌈log2 N⌉, 3, 32) (paper v3
// App. A.1), never more than N-1.
func knnSize(n int) int {
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

// topK returns, for each of the n rows of r (unit or zero vectors), its k
// most similar other rows by rows.dot, most similar
// first, ties broken by lower index; row i's list is out[i*k:(i+1)*k],
// padded with -1 when n-1 < k.
//
// It is exact brute force: each pair's dot product is computed once
// (rows.dot) and offered to both rows. Workers keep private
// top-k lists for all rows (O(workers·N·k) memory, never O(N²)) that are
// merged at the end. The top k under the strict order (similarity desc,
// index asc) is unique, so the result does not depend on how the pairs were
// shared among workers.
func topK(ctx context.Context, r rows, n, k, workers int) ([]int32, error) {
	out := make([]int32, n*k)
	if k == 0 || n == 0 {
		return out, nil
	}
	workers = max(1, min(workers, (n+knnBlock-1)/knnBlock))
	lists := make([]topList, workers)
	var next atomic.Int64
	var g errgroup.Group
	for w := range lists {
		l := &lists[w]
		l.init(n, k)
		g.Go(func() error {
			for {
				if err := ctx.Err(); err != nil {
					return err
				}
				a := int(next.Add(knnBlock)) - knnBlock
				if a >= n {
					return nil
				}
				b := min(a+knnBlock, n)
				for j := a + 1; j < n; j++ {
					for i := a; i < min(b, j); i++ {
						s := r.dot(i, j)
						l.offer(i, int32(j), s)
						l.offer(j, int32(i), s)
					}
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Merge the workers' lists row by row.
	m := &lists[0]
	for w := 1; w < len(lists); w++ {
		o := &lists[w]
		for i := 0; i < n; i++ {
			for t := 0; t < k && o.ids[i*k+t] >= 0; t++ {
				m.offer(i, o.ids[i*k+t], o.sims[i*k+t])
			}
		}
	}
	copy(out, m.ids)
	return out, nil
}

// topList holds a sorted top-k list per row.
type topList struct {
	k    int
	ids  []int32
	sims []float32
}

func (l *topList) init(n, k int) {
	l.k = k
	l.ids = make([]int32, n*k)
	l.sims = make([]float32, n*k)
	for i := range l.ids {
		l.ids[i] = -1
	}
}

// offer inserts (j, s) into row i's list if it ranks among the k best.
func (l *topList) offer(i int, j int32, s float32) {
	k := l.k
	ids, ss := l.ids[i*k:(i+1)*k], l.sims[i*k:(i+1)*k]
	if last := ids[k-1]; last >= 0 && !(s > ss[k-1] || s == ss[k-1] && j < last) {
		return
	}
	p := k - 1
	for p > 0 && (ids[p-1] < 0 || s > ss[p-1] || s == ss[p-1] && j < ids[p-1]) {
		ids[p], ss[p] = ids[p-1], ss[p-1]
		p--
	}
	ids[p], ss[p] = j, s
}

// appendKNNEdges appends the symmetric kNN edge set to edges: {u,v}
// whenever v is among u's k nearest or u among v's (assemble merges the
// pairs listed both ways). It grows edges once, so that a large build does
// not hold the kNN edges twice (a list of its own, then its copy).
func appendKNNEdges(edges []Edge, nbrs []int32, n, k int) []Edge {
	edges = slices.Grow(edges, n*k)
	for i := 0; i < n; i++ {
		for _, j := range nbrs[i*k : (i+1)*k] {
			if j >= 0 {
				edges = append(edges, Edge{U: int32(i), V: j, Kind: EdgeKNN})
			}
		}
	}
	return edges
}

// knnRecompute brings the top-k lists in l (n rows of r) up to date
// after an update: rows with full[i] set are recomputed from scratch
// against every other row (l's list of such a row must be empty); every
// other row keeps its list and is offered the rows in extra (which its list
// must not hold). Pairs are scored as topK scores them (rows.dot), and
// the top k under (similarity desc, index asc) is unique, so the lists are
// those topK gives whenever the kept lists are the top k among the rows not
// in extra and a pair's similarity does not depend on the order of its
// arguments (see Builder.updateKNN).
//
// Full rows are taken knnBlock at a time, each other row loaded once per
// block, as in topK; a full row costs n dot products, a kept one
// len(extra). Each row's list is touched by one worker only. The full rows
// are where an approximate index would answer instead.
func knnRecompute(ctx context.Context, r rows, n int, l *topList, full []bool, extra []int32, workers int) error {
	var rows []int // the full rows
	for i, f := range full {
		if f {
			rows = append(rows, i)
		}
	}
	const chunk = 256 // kept rows per task
	blocks := (len(rows) + knnBlock - 1) / knnBlock
	tasks := blocks + (n+chunk-1)/chunk
	workers = max(1, min(workers, tasks))
	var next atomic.Int64
	var g errgroup.Group
	for range workers {
		g.Go(func() error {
			for {
				if err := ctx.Err(); err != nil {
					return err
				}
				t := int(next.Add(1)) - 1
				switch {
				case t >= tasks:
					return nil
				case t < blocks:
					block := rows[t*knnBlock : min((t+1)*knnBlock, len(rows))]
					for j := 0; j < n; j++ {
						for _, i := range block {
							if i != j {
								l.offer(i, int32(j), r.dot(i, j))
							}
						}
					}
				default:
					a := (t - blocks) * chunk
					for i := a; i < min(a+chunk, n); i++ {
						if full[i] {
							continue
						}
						for _, j := range extra {
							l.offer(i, j, r.dot(i, int(j)))
						}
					}
				}
			}
		})
	}
	return g.Wait()
}
