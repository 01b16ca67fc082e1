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
	if cand == nil {
		cand = make([]int, len(h))
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
	cs := make([]float64, m*2*P)
	lb := make([]float64, m)    // lower bound of max_{u∈S} cos(v,u)
	lh := make([]float64, m)    // λ h_v
	exact := make([]float64, m) // max over the first cnt[j] picks
	cnt := make([]int32, m)     // picks folded into exact
	picked := make([]bool, m)
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
	ub := make([]float64, m)
	mu := 1 - lambda
	for len(out) < k {
		last := pickJ[len(pickJ)-1]
		lc := cs[last*2*P : (last+1)*2*P]
		top, topU := -1, 0.0
		for j := 0; j < m; j++ {
			if picked[j] {
				continue
			}
			row := cs[j*2*P : (j+1)*2*P]
			row = row[:len(lc)]
			l := lb[j]
			for p := 0; p+1 < len(lc); p += 2 {
				if cj, cl := row[p], lc[p]; cj+cl >= 0 {
					l = max(l, cj*cl-row[p+1]*lc[p+1]-mmrSlack)
				}
			}
			lb[j] = l
			u := lh[j] - mu*l
			ub[j] = u
			if top < 0 || u > topU {
				top, topU = j, u
			}
		}
		best, bestJ := score(top), top
		for j := 0; j < m; j++ {
			if picked[j] || j == top || ub[j] < best {
				continue
			}
			if sc := score(j); sc > best || (sc == best && cand[j] < cand[bestJ]) {
				best, bestJ = sc, j
			}
		}
		picked[bestJ] = true
		pickJ = append(pickJ, bestJ)
		out = append(out, cand[bestJ])
	}
	return out, evals
}
