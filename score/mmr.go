package score

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/flowreader/flowreader/graph"
)

// mmrSlack absorbs float32 rounding in the cosines behind the MMR bound.
const mmrSlack = 1e-5

// mmrHot is how many of the highest-bounding nodes start in MMR's heap; a
// variable so that tests can make it small and drive the cold list.
var mmrHot = 256

// mmrLinear: a lazy round that has evaluated more than m/mmrLinear of the m
// candidates switches MMR to plain passes (a variable for the tests).
var mmrLinear = 8

// mmr selects k sources by maximal marginal relevance (paper v1 §3.4):
//
//	v* = argmax_{v∉S} λ h_v − (1−λ) max_{u∈S} cos(e_v, e_u)
//
// the first pick being argmax h; ties go to the lower index.
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
// It also returns the number of exact evaluations it made. Its working
// arrays come from buf (nil: allocated).
func mmr(g *graph.Graph, h []float64, pivots [][]float64, k int, lambda float64, buf *scratch) ([]int, int) {
	if buf == nil {
		buf = &scratch{}
	}
	k = min(k, len(h))
	if k <= 0 {
		return nil, 0
	}
	h = finiteScores(h)
	m := len(h)
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
	first := 0
	for j := 1; j < m; j++ {
		if h[j] > h[first] {
			first = j
		}
	}
	out := []int{first}
	picked[first] = true

	evals := 0
	score := func(j int) float64 {
		evals++
		for ; int(cnt[j]) < len(out); cnt[j]++ {
			exact[j] = math.Max(exact[j], g.Cos(j, out[cnt[j]]))
		}
		if sc := lambda*h[j] - (1-lambda)*exact[j]; sc == sc {
			return sc
		}
		return math.Inf(-1) // NaN cosines (embeddings far from unit length) rank last
	}
	// Round one (mmrInit) folds the first pick into every node's bound;
	// from then on the nodes wait in a max-heap keyed by their bound, which
	// only falls as picks are folded in, so a stale key still bounds the
	// node's score and each round refreshes and evaluates only the nodes
	// whose key reaches the best exact score found (lazy greedy).
	buf.f3 = grow(buf.f3, m)
	ub := buf.f3   // a node's bound; its heap key while in the heap
	lcnt := buf.i2 // picks folded into lb
	buf.m5 = grow(buf.m5, m)
	mmrInit(cs, lb, lh, exact, ub, lcnt, buf.m5, h, pivots, first, lambda)
	mu := 1 - lambda
	refresh := func(j int) {
		row := cs[j*2*P : (j+1)*2*P]
		l := lb[j]
		for ; int(lcnt[j]) < len(out); lcnt[j]++ {
			lc := cs[out[lcnt[j]]*2*P : (out[lcnt[j]]+1)*2*P]
			lc = lc[:len(row)]
			for p := 0; p+1 < len(row); p += 2 {
				if cj, cl := row[p], lc[p]; cj+cl >= 0 {
					l = max(l, cj*cl-row[p+1]*lc[p+1]-mmrSlack)
				}
			}
		}
		lb[j] = l
		ub[j] = upper(lh[j] - mu*l)
	}
	// Only the nodes bounding highest go into the heap; the others wait in
	// a cold list, whose largest (stale) bound is coldMax, and move to the
	// heap when the best exact score of a round falls to that bound. With
	// few evaluations per round (tens), building a heap of every node
	// would cost more than all the rounds.
	buf.idx, buf.cold = grow(buf.idx, m), grow(buf.cold, m)
	hp := mmrHeap{key: ub, idx: buf.idx[:0]}
	cold := buf.cold[:0]
	threshold := math.Inf(-1)
	if m-1 > mmrHot {
		threshold = kthLargest(buf.m5[:m-1], mmrHot)
	}
	var coldMax float64
	hp.idx, cold, coldMax = mmrSplit(ub, picked, threshold, hp.idx, cold)
	hp.init()
	var done []int32 // evaluated this round, out of the heap
	// When the bounds stop pruning (h nearly flat next to the similarity
	// penalty), a round that has looked at more than m/mmrLinear nodes
	// finishes, and every later round runs, as one pass over all nodes:
	// each node folds the new pick into its exact maximum once, which
	// costs less than the heap's churn. The scores and the tie rule are the
	// same, so the picks are too.
	linear := false
	for len(out) < k {
		best, bestJ := math.Inf(-1), -1
		done = done[:0]
		for !linear {
			if len(hp.idx) == 0 || ub[hp.idx[0]] < best {
				if len(cold) == 0 || coldMax < best {
					break
				}
				// Some cold node may still reach best: move those that can.
				keep := cold[:0]
				coldMax = math.Inf(-1)
				for _, j := range cold {
					if ub[j] >= best {
						hp.push(j)
					} else {
						keep = append(keep, j)
						coldMax = max(coldMax, ub[j])
					}
				}
				cold = keep
				continue
			}
			if len(done) > m/mmrLinear {
				linear = true
				break
			}
			j := int(hp.pop())
			refresh(j)
			if len(hp.idx) > 0 && hp.less(int(hp.idx[0]), j) {
				hp.push(int32(j)) // another node may bound higher: look at it first
				continue
			}
			done = append(done, int32(j))
			if sc := score(j); sc > best || (sc == best && (bestJ < 0 || j < bestJ)) {
				best, bestJ = sc, j
			}
		}
		if linear {
			best, bestJ = math.Inf(-1), -1
			for j := range h {
				if picked[j] {
					continue
				}
				if sc := score(j); sc > best || (sc == best && (bestJ < 0 || j < bestJ)) {
					best, bestJ = sc, j
				}
			}
		}
		if bestJ < 0 {
			break // no node left to evaluate; cannot happen with k ≤ m
		}
		picked[bestJ] = true
		out = append(out, bestJ)
		if !linear {
			for _, j := range done {
				if int(j) != bestJ {
					hp.push(j)
				}
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

// graphMMR selects k nodes by maximal marginal relevance over the scores h
// with trade-off lambda (paper v1 §3.4), exactly as [Index.Score] picks its
// sources: the first pick is argmax h, ties go to the lower index. It is for
// callers without an Index (the evaluation's MMR baselines, through
// internal/scorehook.MMR); it bounds with the corpus mean direction only
// (the query direction is unknown here), so it evaluates more nodes exactly
// than [Index.Score] does.
func graphMMR(g *graph.Graph, h []float64, k int, lambda float64) []int {
	if g == nil || len(g.Nodes) == 0 || len(h) != len(g.Nodes) {
		return nil
	}
	out, _ := mmr(g, h, [][]float64{meanCosines(g)}, k, lambda, nil)
	return out
}

// mmrInit fills, for every node j, its row of pivot cosines and sines
// cs[j*2P:(j+1)*2P], λh, an exact maximum of -Inf, and (except for the first
// pick) its bound with the first pick folded in: lb, ub and lcnt = 1. The
// bounds of all nodes but the first are also copied, in order, to
// ubs[:m-1].
func mmrInit(cs, lb, lh, exact, ub []float64, lcnt []int32, ubs []float64, h []float64, pivots [][]float64, first int, lambda float64) {
	P := len(pivots)
	pivot := func(p []float64, v int) (c, s float64) {
		c = p[v]
		if c < -1 {
			c = -1
		} else if c > 1 {
			c = 1
		}
		return c, math.Sqrt(1 - c*c)
	}
	fr := make([]float64, 2*P)[: 2*P : 2*P] // the first pick's row
	for p, pc := range pivots {
		fr[2*p], fr[2*p+1] = pivot(pc, first)
	}
	mu := 1 - lambda
	n := 0
	for j := range h {
		row := cs[j*2*P : (j+1)*2*P : (j+1)*2*P]
		l := -1.0
		for p, pc := range pivots {
			c, s := pivot(pc, j)
			row[2*p], row[2*p+1] = c, s
			if c+fr[2*p] >= 0 {
				l = max(l, c*fr[2*p]-s*fr[2*p+1]-mmrSlack) // branch-free
			}
		}
		lhj := lambda * h[j]
		lh[j], exact[j] = lhj, math.Inf(-1)
		if j == first {
			lb[j], lcnt[j] = -1, 0
			continue
		}
		u := upper(lhj - mu*l)
		lb[j], ub[j], lcnt[j] = l, u, 1
		ubs[n] = u
		n++
	}
}

// finiteScores returns h with NaN scores replaced by −Inf (a copy, made
// only when there is one): a NaN compares false with everything, which
// would stall MMR's heap and leave it no pick.
func finiteScores(h []float64) []float64 {
	for i, x := range h {
		if x != x {
			c := slices.Clone(h)
			for j := i; j < len(c); j++ {
				if c[j] != c[j] {
					c[j] = math.Inf(-1)
				}
			}
			return c
		}
	}
	return h
}

// upper returns the bound u, or +Inf when it is NaN (from the cosines of
// embeddings far from unit length): +Inf is always a valid upper bound, and
// the node is then evaluated exactly.
func upper(u float64) float64 {
	if u != u {
		return math.Inf(1)
	}
	return u
}

// mmrSplit appends the unpicked nodes whose bound reaches threshold to hot,
// the others to cold, and returns both with the largest bound in cold
// (-Inf when cold is empty).
func mmrSplit(ub []float64, picked []bool, threshold float64, hot, cold []int32) ([]int32, []int32, float64) {
	coldMax := math.Inf(-1)
	picked = picked[:len(ub)]
	for j, u := range ub {
		switch {
		case picked[j]:
		case u >= threshold:
			hot = append(hot, int32(j))
		default:
			cold = append(cold, int32(j))
			if u > coldMax {
				coldMax = u
			}
		}
	}
	return hot, cold, coldMax
}

// kthLargest returns the k-th largest value of x (1 ≤ k ≤ len(x)),
// reordering x: a quickselect with median-of-three pivots that sorts what is
// left after 2·log₂ n rounds, so that it stays O(n log n) at worst.
func kthLargest(x []float64, k int) float64 {
	t := k - 1 // its index in descending order
	lo, hi := 0, len(x)-1
	for rounds := 2 * bits.Len(uint(len(x))); lo < hi; rounds-- {
		if rounds == 0 {
			slices.SortFunc(x[lo:hi+1], func(a, b float64) int { return cmp.Compare(b, a) })
			break
		}
		a, b, c := x[lo], x[lo+(hi-lo)/2], x[hi]
		p := max(min(a, b), min(max(a, b), c)) // the median of the three
		i, j := lo, hi
		for i <= j {
			for x[i] > p {
				i++
			}
			for x[j] < p {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case t <= j:
			hi = j
		case t >= i:
			lo = i
		default:
			return x[t] // between j and i: equal to the pivot
		}
	}
	return x[t]
}
