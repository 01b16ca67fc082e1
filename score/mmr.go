package score

import (
	"math"

	"github.com/flowreader/flowreader/graph"
)

// mmrSlack absorbs float32 rounding in the cosines behind the MMR bound.
const mmrSlack = 1e-5

// mmr selects k sources by maximal marginal relevance (METHOD A.2):
//
//	v* = argmax_{v∉S} λ h_v − (1−λ) max_{u∈S} cos(e_v, e_u)
//
// the first pick being argmax h; ties go to the lower index. cand lists the
// nodes considered (nil = all).
//
// Exact MMR needs cos(e_v, e_u) for every node v and pick u, a brute-force
// pass over the embeddings per pick. Most of those are skipped with bounds
// from cosines already known, c_v = cos(p, e_v) for a pivot direction p (the
// query, and the corpus mean direction): on the unit sphere the angle
// between v and u is at most the sum of their angles to p, so when
// c_v + c_u ≥ 0, cos(e_v, e_u) ≥ c_v c_u − s_v s_u with s = sqrt(1 − c²).
// That bounds each node's MMR score from above; a node is evaluated exactly
// only when its bound reaches the best exact score found, so the picks are
// the same as without the bounds. Real embeddings are anisotropic (most
// nodes lie near the mean direction), which is what makes the bound bite.
// It also returns the number of exact evaluations it made.
func mmr(g *graph.Graph, h []float64, pivots [][]float64, cand []int, k int, lambda float64) ([]int, int) {
	return mmrBuf(g, h, pivots, cand, k, lambda, nil)
}

// mmrBuf is mmr with its working arrays from buf (nil: allocated).
func mmrBuf(g *graph.Graph, h []float64, pivots [][]float64, cand []int, k int, lambda float64, buf *scratch) ([]int, int) {
	if buf == nil {
		buf = &scratch{}
	}
	if cand == nil {
		buf.cand = grow(buf.cand, len(h))
		cand = buf.cand
		for i := range cand {
			cand[i] = i
		}
	}
	k = min(k, len(cand))
	if k <= 0 {
		return nil, 0
	}
	m := len(cand)
	P := len(pivots)
	// Node j's cosine and sine with pivot p at cs[j*2P+2p] and cs[j*2P+2p+1]:
	// one row per node, so the per-pick bound update streams one array.
	buf.m1, buf.m2, buf.m3, buf.m4 = grow(buf.m1, m*2*P), grow(buf.m2, m), grow(buf.m3, m), grow(buf.m4, m)
	buf.i1, buf.i2, buf.picked = grow(buf.i1, m), grow(buf.i2, m), grow(buf.picked, m)
	cs := buf.m1
	lb := buf.m2    // lower bound of max_{u∈S} cos(v,u)
	lh := buf.m3    // λ h_v
	exact := buf.m4 // max over the first cnt[j] picks
	cnt := buf.i1   // picks folded into exact
	picked := buf.picked
	clear(cnt)
	clear(picked)
	for j, v := range cand {
		row := cs[j*2*P : (j+1)*2*P]
		for p, pc := range pivots {
			x := min(max(pc[v], -1), 1)
			row[2*p], row[2*p+1] = x, math.Sqrt(1-x*x)
		}
		lb[j] = -1
		lh[j] = lambda * h[v]
		exact[j] = math.Inf(-1)
	}
	first := 0
	for j := 1; j < m; j++ {
		if h[cand[j]] > h[cand[first]] || (h[cand[j]] == h[cand[first]] && cand[j] < cand[first]) {
			first = j
		}
	}
	pickJ := []int{first}
	picked[first] = true
	out := []int{cand[first]}

	evals := 0
	score := func(j int) float64 {
		evals++
		v := cand[j]
		ev := g.Embedding(v)
		for ; int(cnt[j]) < len(pickJ); cnt[j]++ {
			exact[j] = math.Max(exact[j], graph.Dot(ev, g.Embedding(cand[pickJ[cnt[j]]])))
		}
		return lambda*h[v] - (1-lambda)*exact[j]
	}
	// Round one folds the first pick into every node's bound; from then on
	// the nodes wait in a max-heap keyed by their bound, which only falls
	// as picks are folded in, so a stale key still bounds the node's score
	// and each round refreshes and evaluates only the nodes whose key
	// reaches the best exact score found (lazy greedy).
	buf.f3 = grow(buf.f3, m)
	ub := buf.f3   // a node's bound; its heap key while in the heap
	lcnt := buf.i2 // picks folded into lb
	clear(lcnt)
	mu := 1 - lambda
	refresh := func(j int) {
		row := cs[j*2*P : (j+1)*2*P]
		l := lb[j]
		for ; int(lcnt[j]) < len(pickJ); lcnt[j]++ {
			lc := cs[pickJ[lcnt[j]]*2*P : (pickJ[lcnt[j]]+1)*2*P]
			lc = lc[:len(row)]
			for p := 0; p+1 < len(row); p += 2 {
				if cj, cl := row[p], lc[p]; cj+cl >= 0 {
					l = max(l, cj*cl-row[p+1]*lc[p+1]-mmrSlack)
				}
			}
		}
		lb[j] = l
		ub[j] = lh[j] - mu*l
	}
	buf.idx = grow(buf.idx, m)
	hp := mmrHeap{key: ub, idx: buf.idx[:0]}
	for j := 0; j < m; j++ {
		if !picked[j] {
			refresh(j)
			hp.idx = append(hp.idx, int32(j))
		}
	}
	hp.init()
	var done []int32 // evaluated this round, out of the heap
	for len(out) < k {
		best, bestJ := math.Inf(-1), -1
		done = done[:0]
		for len(hp.idx) > 0 && ub[hp.idx[0]] >= best {
			j := int(hp.pop())
			refresh(j)
			if len(hp.idx) > 0 && hp.less(int(hp.idx[0]), j) {
				hp.push(int32(j)) // another node may bound higher: look at it first
				continue
			}
			done = append(done, int32(j))
			if sc := score(j); sc > best || (sc == best && cand[j] < cand[bestJ]) {
				best, bestJ = sc, j
			}
		}
		picked[bestJ] = true
		pickJ = append(pickJ, bestJ)
		out = append(out, cand[bestJ])
		for _, j := range done {
			if int(j) != bestJ {
				hp.push(j)
			}
		}
	}
	return out, evals
}

// mmrHeap is a binary max-heap of node positions ordered by key (ties:
// lower position first), so that the order never depends on insertion.
type mmrHeap struct {
	key []float64
	idx []int32
}

// less reports whether node a comes before node b.
func (h *mmrHeap) less(a, b int) bool {
	return h.key[a] > h.key[b] || (h.key[a] == h.key[b] && a < b)
}

func (h *mmrHeap) init() {
	for i := len(h.idx)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mmrHeap) push(j int32) {
	h.idx = append(h.idx, j)
	i := len(h.idx) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(int(h.idx[i]), int(h.idx[p])) {
			break
		}
		h.idx[i], h.idx[p] = h.idx[p], h.idx[i]
		i = p
	}
}

func (h *mmrHeap) pop() int32 {
	top := h.idx[0]
	last := len(h.idx) - 1
	h.idx[0] = h.idx[last]
	h.idx = h.idx[:last]
	h.down(0)
	return top
}

func (h *mmrHeap) down(i int) {
	n := len(h.idx)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && h.less(int(h.idx[r]), int(h.idx[c])) {
			c = r
		}
		if !h.less(int(h.idx[c]), int(h.idx[i])) {
			return
		}
		h.idx[i], h.idx[c] = h.idx[c], h.idx[i]
		i = c
	}
}

// MMR selects k nodes by maximal marginal relevance over the scores h with
// trade-off lambda (METHOD A.2), exactly as the scorer picks its sources:
// the first pick is argmax h, ties go to the lower index. It is for callers
// without an Index (the flow package's MMR baselines); it bounds with the
// corpus mean direction only, so it costs one pass more than the scorer's.
func MMR(g *graph.Graph, h []float64, k int, lambda float64) []int {
	if g == nil || g.Len() == 0 || len(h) != g.Len() {
		return nil
	}
	out, _ := mmr(g, h, [][]float64{meanCosines(g)}, nil, k, lambda)
	return out
}
