package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/internal/heapx"
)

// Approximate kNN for large collections: a hierarchical navigable small
// world graph (Malkov & Yashunin, HNSW, TPAMI 2020) built only to find each
// node's k nearest neighbours, then dropped.
//
// It is written here rather than taken from github.com/coder/hnsw because
// that library (v0.6.1) is neither deterministic (its entry point and its
// neighbour pruning follow Go map iteration order) nor accurate enough for
// construction (its search stops at the first candidate that does not
// improve the best distance); docs/scale.md gives the measurements.
//
// Determinism: levels come from a PCG stream seeded by hnswSeed, drawn in
// node order; nodes are inserted in batches whose bounds depend only on the
// node count; within a batch every node searches the graph as it stood
// before the batch (read-only, in parallel) plus the batch's earlier nodes
// (exactly), and the links are then written sequentially in node order.
// Every ranking breaks ties by the lower node index. The result is therefore
// the same for any number of workers.
const (
	// hnswM is the number of links a node keeps on the upper layers; layer 0
	// keeps 2·hnswM, as HNSW recommends.
	hnswM = 16
	// hnswEfConstruction is the beam width of the insertion searches.
	hnswEfConstruction = 96
	// hnswEfSearch is the least beam width of the final kNN searches.
	hnswEfSearch = 48
	// hnswMaxBatch bounds the nodes inserted against one frozen graph.
	hnswMaxBatch = 256
	// hnswSeed seeds the level draws.
	hnswSeed = 0x5eed_f10e
)

// exactKNNMax is the largest node count whose kNN the Builder computes
// exactly by default; above it the Builder uses the HNSW path. It is where
// the HNSW path overtakes brute force at kNN-edge recall ≥ 0.95
// (docs/scale.md).
const exactKNNMax = 10000

// hnswGraph is the layered graph under construction.
type hnswGraph struct {
	v     rows
	n     int
	level []uint8
	// Layer 0: node i's links are nb0[i*m0 : i*m0+cnt0[i]], sorted by
	// similarity to i (descending, ties by index), sims aligned.
	m0   int
	nb0  []int32
	sim0 []float32
	cnt0 []uint8
	// Upper layers: up[i] holds node i's links on layers 1..level[i], hnswM
	// slots per layer, -1 for an empty slot.
	up    [][]int32
	entry int32
	top   int
}

// cand is a node and its similarity to the query, ordered by similarity
// descending, then by index ascending.
type cand struct {
	id  int32
	sim float32
}

func better(a, b cand) bool { return a.sim > b.sim || a.sim == b.sim && a.id < b.id }

// searcher holds one worker's scratch space.
type searcher struct {
	seen    []uint32
	stamp   uint32
	beam    []cand // max-heap by better (best on top): to expand
	results []cand // min-heap by better (worst on top): the ef best
}

func newSearcher(n int) *searcher { return &searcher{seen: make([]uint32, n)} }

func (s *searcher) reset() {
	s.stamp++
	if s.stamp == 0 {
		clear(s.seen)
		s.stamp = 1
	}
	s.beam, s.results = s.beam[:0], s.results[:0]
}

// dot is the similarity of nodes q and j (every query is a node's row).
func (s *searcher) dot(h *hnswGraph, q, j int32) float32 {
	return h.v.dot(int(q), int(j))
}

func worse(a, b cand) bool { return better(b, a) }

// links returns node i's links on layer l (nil when i is not on it),
// limited to nodes below limit (the frozen part of the graph).
func (h *hnswGraph) links(i int32, l int) []int32 {
	if l == 0 {
		a := int(i) * h.m0
		return h.nb0[a : a+int(h.cnt0[i])]
	}
	if int(h.level[i]) < l {
		return nil
	}
	return h.up[i][(l-1)*hnswM : l*hnswM]
}

// searchLayer runs the HNSW beam search of width ef on layer l from the
// entry points in s.results (already scored), over nodes below limit, and
// leaves the ef best in s.results.
func (s *searcher) searchLayer(h *hnswGraph, q int32, l, ef int, limit int32) {
	s.beam = s.beam[:0]
	for _, c := range s.results {
		s.beam = heapx.Push(s.beam, c, better)
	}
	for len(s.beam) > 0 {
		var c cand
		s.beam, c = heapx.Pop(s.beam, better)
		if len(s.results) >= ef && better(s.results[0], c) {
			break
		}
		for _, j := range h.links(c.id, l) {
			if j < 0 || j >= limit || s.seen[j] == s.stamp {
				continue
			}
			s.seen[j] = s.stamp
			d := cand{j, s.dot(h, q, j)}
			if len(s.results) < ef || better(d, s.results[0]) {
				s.beam = heapx.Push(s.beam, d, better)
				s.results = heapx.Push(s.results, d, worse)
				if len(s.results) > ef {
					s.results, _ = heapx.Pop(s.results, worse)
				}
			}
		}
	}
}

// search finds the ef nearest nodes below limit to q, best first: a
// greedy descent from entry on layers top..1, then a beam of width ef on
// layer 0.
func (s *searcher) search(h *hnswGraph, q int32, ef int, limit int32, entry int32, top int) []cand {
	s.reset()
	s.seen[entry] = s.stamp
	s.results = append(s.results, cand{entry, s.dot(h, q, entry)})
	for l := top; l >= 0; l-- {
		w := 1
		if l == 0 {
			w = ef
		}
		s.searchLayer(h, q, l, w, limit)
	}
	out := slices.Clone(s.results)
	slices.SortFunc(out, cmpCand)
	return out
}

func cmpCand(a, b cand) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// selectNeighbours applies HNSW's heuristic (Algorithm 4): a candidate,
// taken best first, is kept unless it is closer to an already kept one
// than to the new node; the slots left are filled with the best skipped
// candidates (keepPrunedConnections).
func (s *searcher) selectNeighbours(h *hnswGraph, cands []cand, m int) []cand {
	kept := make([]cand, 0, m)
	var skipped []cand
	for _, c := range cands {
		if len(kept) == m {
			break
		}
		ok := true
		for _, k := range kept {
			if s.dot(h, c.id, k.id) > c.sim {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, c)
		} else {
			skipped = append(skipped, c)
		}
	}
	for _, c := range skipped {
		if len(kept) == m {
			break
		}
		kept = append(kept, c)
	}
	slices.SortFunc(kept, cmpCand)
	return kept
}

// plan is what the parallel phase found for one node: its links per layer
// (layer 0 first).
type plan [][]cand

// buildHNSW builds the layered graph of the n rows of v.
func buildHNSW(ctx context.Context, v rows, n, workers int, progress func(int)) (*hnswGraph, error) {
	h := &hnswGraph{v: v, n: n, m0: 2 * hnswM, level: make([]uint8, n), up: make([][]int32, n)}
	h.nb0 = make([]int32, n*h.m0)
	h.sim0 = make([]float32, n*h.m0)
	h.cnt0 = make([]uint8, n)
	rng := rand.New(rand.NewPCG(hnswSeed, uint64(n)))
	mult := 1 / math.Log(hnswM)
	for i := range h.level {
		l := int(-math.Log(1-rng.Float64()) * mult)
		l = min(l, 15)
		h.level[i] = uint8(l)
		if l > 0 {
			h.up[i] = make([]int32, l*hnswM)
			for t := range h.up[i] {
				h.up[i][t] = -1
			}
		}
	}
	if n == 0 {
		return h, nil
	}
	h.entry, h.top = 0, int(h.level[0])
	workers = max(1, workers)
	pool := make([]*searcher, workers)
	for w := range pool {
		pool[w] = newSearcher(n)
	}
	plans := make([]plan, hnswMaxBatch)
	for a := 1; a < n; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := min(n, a+min(hnswMaxBatch, max(1, a/8)))
		var g errgroup.Group
		var next sync.Mutex
		cur := a
		for w := 0; w < workers; w++ {
			s := pool[w]
			g.Go(func() error {
				for {
					next.Lock()
					i := cur
					cur++
					next.Unlock()
					if i >= b {
						return nil
					}
					plans[i-a] = h.plan(s, int32(i), int32(a))
				}
			})
		}
		g.Wait()
		for i := a; i < b; i++ {
			h.link(pool[0], int32(i), plans[i-a])
		}
		if progress != nil {
			progress(b - a)
		}
		a = b
	}
	return h, nil
}

// plan finds node i's links: a search of the frozen graph (nodes below
// limit) plus the batch's earlier nodes limit..i-1, compared exactly.
func (h *hnswGraph) plan(s *searcher, i, limit int32) plan {
	q := i
	li := int(h.level[i])
	p := make(plan, li+1)
	var batch []cand
	for j := limit; j < i; j++ {
		batch = append(batch, cand{j, s.dot(h, q, j)})
	}
	add := func(l int, found []cand) {
		if l > li {
			return
		}
		var all []cand
		all = append(all, found...)
		for _, c := range batch {
			if int(h.level[c.id]) >= l {
				all = append(all, c)
			}
		}
		slices.SortFunc(all, cmpCand)
		if len(all) > hnswEfConstruction {
			all = all[:hnswEfConstruction]
		}
		m := hnswM
		if l == 0 {
			m = h.m0
		}
		p[l] = s.selectNeighbours(h, all, m)
	}
	// Descend greedily above the node's level, then search each of its
	// layers with the full beam.
	s.reset()
	entry := h.entry
	s.seen[entry] = s.stamp
	s.results = append(s.results, cand{entry, s.dot(h, q, entry)})
	for l := h.top; l >= 0; l-- {
		if l > li {
			s.searchLayer(h, q, l, 1, limit)
			continue
		}
		s.searchLayer(h, q, l, hnswEfConstruction, limit)
		found := slices.Clone(s.results)
		slices.SortFunc(found, cmpCand)
		add(l, found)
	}
	for l := h.top + 1; l <= li; l++ { // layers only the batch may hold
		add(l, nil)
	}
	return p
}

// link writes node i's planned links and the reverse links, in node order.
func (h *hnswGraph) link(s *searcher, i int32, p plan) {
	for l, cs := range p {
		for t, c := range cs {
			h.setLink(i, l, t, c)
			h.addReverse(s, c.id, l, cand{i, c.sim})
		}
	}
	if li := int(h.level[i]); li > h.top {
		h.entry, h.top = i, li
	}
}

func (h *hnswGraph) setLink(i int32, l, t int, c cand) {
	if l == 0 {
		a := int(i) * h.m0
		h.nb0[a+t], h.sim0[a+t] = c.id, c.sim
		h.cnt0[i] = uint8(max(int(h.cnt0[i]), t+1))
		return
	}
	h.up[i][(l-1)*hnswM+t] = c.id
}

// addReverse links j to c on layer l. On layer 0 the list stays sorted and
// keeps its m0 most similar (a prune without the heuristic: its pairwise
// comparisons would cost m0² dot products per link, sequentially). On the
// upper layers, which route the descent, a full list is pruned with the
// heuristic, which keeps a link into a new region (a new topic) that plain
// similarity would drop, so that later searches can reach it.
func (h *hnswGraph) addReverse(s *searcher, j int32, l int, c cand) {
	if l > 0 {
		row := h.up[j][(l-1)*hnswM : l*hnswM]
		for t, x := range row {
			if x == c.id {
				return
			}
			if x < 0 {
				row[t] = c.id
				return
			}
		}
		q := j
		all := make([]cand, 0, hnswM+1)
		for _, x := range row {
			all = append(all, cand{x, s.dot(h, q, x)})
		}
		all = append(all, c)
		slices.SortFunc(all, cmpCand)
		kept := s.selectNeighbours(h, all, hnswM)
		for t := range row {
			row[t] = -1
			if t < len(kept) {
				row[t] = kept[t].id
			}
		}
		return
	}
	a := int(j) * h.m0
	k := int(h.cnt0[j])
	ids, ss := h.nb0[a:a+h.m0], h.sim0[a:a+h.m0]
	for t := 0; t < k; t++ {
		if ids[t] == c.id {
			return
		}
	}
	if k == h.m0 {
		if !better(c, cand{ids[k-1], ss[k-1]}) {
			return
		}
		k--
	}
	p := k
	for p > 0 && better(c, cand{ids[p-1], ss[p-1]}) {
		ids[p], ss[p] = ids[p-1], ss[p-1]
		p--
	}
	ids[p], ss[p] = c.id, c.sim
	h.cnt0[j] = uint8(k + 1)
}

// approxTopK is topK's approximate counterpart for large n: the same
// output layout (row i's k neighbours at out[i*k:(i+1)*k], most similar
// first, ties by lower index, padded with -1), found by one HNSW search
// per node. The result does not depend on workers.
func approxTopK(ctx context.Context, v rows, n, k, workers int, progress func(int)) ([]int32, error) {
	h, err := buildHNSW(ctx, v, n, workers, progress)
	if err != nil {
		return nil, err
	}
	return h.knn(ctx, k, workers)
}

// knn searches every node's k nearest other nodes in the built graph.
func (h *hnswGraph) knn(ctx context.Context, k, workers int) ([]int32, error) {
	n := h.n
	out := make([]int32, n*k)
	for i := range out {
		out[i] = -1
	}
	ef := max(hnswEfSearch, 2*k)
	var g errgroup.Group
	var mu sync.Mutex
	next := 0
	const chunk = 64
	for w := 0; w < max(1, workers); w++ {
		s := newSearcher(n)
		g.Go(func() error {
			for {
				if err := ctx.Err(); err != nil {
					return err
				}
				mu.Lock()
				a := next
				next += chunk
				mu.Unlock()
				if a >= n {
					return nil
				}
				for i := a; i < min(a+chunk, n); i++ {
					q := int32(i)
					// Node i is in the graph: its own neighbourhood is the
					// best entry, and no descent is needed.
					res := s.search(h, q, ef+1, int32(n), int32(i), 0)
					t := 0
					for _, c := range res {
						if c.id == int32(i) {
							continue
						}
						if t == k {
							break
						}
						out[i*k+t] = c.id
						t++
					}
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
