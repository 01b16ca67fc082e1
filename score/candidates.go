package score

import (
	"fmt"
	"math"
	"slices"

	"github.com/flowreader/flowreader/internal/heapx"
)

// Candidate scoring for large graphs: instead of scoring every node, a
// question scores the nodes a dense nearest-neighbour search and the BM25
// postings rank first, with their one-hop neighbourhood, as one subgraph.
const (
	// candidateEntries is how many evenly spaced nodes seed the dense
	// search; their cosines also estimate the question's mean relevance.
	candidateEntries = 1024
	// candidateSpread bounds the subgraph at candidateSpread·m nodes: the
	// seeds first, then their neighbours, best seeds first.
	candidateSpread = 8
)

// candState is one question's working space over the whole graph, pooled
// in the Index: allocated once per concurrent question, then reset in the
// nodes it touched only.
type candState struct {
	seen  []uint32
	stamp uint32
	acc   []float64 // BM25 per node, nonzero only at touched
	touch []int32
}

func (ix *Index) getCand() *candState {
	if s, ok := ix.cands.Get().(*candState); ok {
		return s
	}
	return &candState{seen: make([]uint32, ix.n), acc: make([]float64, ix.n)}
}

func (s *candState) next() uint32 {
	s.stamp++
	if s.stamp == 0 {
		clear(s.seen)
		s.stamp = 1
	}
	return s.stamp
}

// ScoreCandidates is Score over a candidate subgraph rather than every
// node: the m nodes most similar to the query (a beam search of width m
// over the graph's edges from evenly spaced entry nodes; the kNN edges make
// it a navigable graph), the m best by BM25 (from the query terms'
// postings) and the nodes whose references meet the question's, then their
// graph neighbours, best seeds first, up to 8·m nodes in all. The returned
// Scores index that subgraph: Scores.Graph is it and Scores.Candidates maps
// its nodes to the index's graph. Each candidate's Cos, BM25 (normalised by
// the whole graph's BM25 range), Ref and R are those Score gives it;
// HMean and RMean estimate the whole graph's means from the entry nodes
// (exact for the BM25 and reference parts). The cost grows with m and the
// postings of the query terms, not with the graph's size.
//
// It fails as Score does, and with [ErrConfig] when m < 1.
func (ix *Index) ScoreCandidates(c Config, q Query, m int) (*Scores, error) {
	if m < 1 {
		return nil, fmt.Errorf("%w: %d candidates", ErrConfig, m)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if ix == nil || ix.g == nil || ix.n == 0 {
		return ix.Score(c, q)
	}
	g := ix.g
	if err := checkQuery(g, q); err != nil {
		return nil, err
	}
	qu := unit(q.Embedding)
	kw := keywords(q)
	refs := extractRefs(q.Text)
	st := ix.getCand()
	defer ix.cands.Put(st)

	dense, cosMean := ix.denseTop(st, qu, m)
	lexical, bmLo, bmHi, bmSum := ix.bm25Top(st, kw, m)
	var refNodes []int32
	refCount := 0
	if c.refBoost() > 0 {
		seen := st.next()
		for _, r := range refs {
			for _, k := range queryKeys(r) {
				for _, v := range ix.refs[k] {
					if st.seen[v] != seen {
						st.seen[v] = seen
						refCount++
						if len(refNodes) < m {
							refNodes = append(refNodes, v)
						}
					}
				}
			}
		}
	}
	for _, v := range st.touch {
		st.acc[v] = 0
	}
	st.touch = st.touch[:0]

	// Seeds interleaved by rank, then one hop from each, best seeds first.
	limit := candidateSpread * m
	in := st.next()
	var nodes []int32
	add := func(v int32) {
		if st.seen[v] != in && len(nodes) < limit {
			st.seen[v] = in
			nodes = append(nodes, v)
		}
	}
	var seeds []int32
	for t := 0; t < m; t++ {
		for _, l := range [][]int32{dense, lexical, refNodes} {
			if t < len(l) {
				if st.seen[l[t]] != in {
					seeds = append(seeds, l[t])
				}
				add(l[t])
			}
		}
	}
	for _, v := range seeds {
		nb, _ := g.Neighbors(int(v))
		for _, u := range nb {
			add(u)
		}
		if len(nodes) >= limit {
			break
		}
	}
	slices.Sort(nodes)

	sub := ix.subIndex(nodes, kw, bmLo, bmHi)
	sc, err := sub.compute(c, q)
	if err != nil {
		return nil, err
	}
	sc.Graph = sub.g
	sc.Candidates = make([]int, len(nodes))
	for i, v := range nodes {
		sc.Candidates[i] = int(v)
	}
	// The whole graph's means, estimated: the dense part from the entry
	// nodes, the BM25 and reference parts exactly.
	alpha := c.bm25Weight()
	rMean := (1 - alpha) * cosMean
	if alpha > 0 && bmHi > bmLo {
		rMean += alpha * (bmSum - float64(ix.n)*bmLo) / (bmHi - bmLo) / float64(ix.n)
	}
	rMean += c.refBoost() * float64(refCount) / float64(ix.n)
	sc.RMean = min(rMean, 1)
	sc.HMean = 0
	if rMax := slices.Max(sc.R); rMax > 0 {
		sc.HMean = min(sc.RMean/rMax, 1)
		if c.Fusion {
			sc.HMean = min(sc.RMean, 1)
		}
	}
	// The hop step reads the whole graph's title index: a node is raised
	// in the subgraph as in the whole graph (what a node names and the
	// titles a question names do not depend on which nodes are
	// candidates).
	ix.raise(c, sc, sub.g, sc.Candidates)
	return sc, nil
}

// denseTop returns the m nodes most similar to the unit query qu, best
// first (ties by lower index), found by a beam search over the graph's
// adjacency, and the mean of max(cos, 0) over the entry nodes.
func (ix *Index) denseTop(st *candState, qu []float32, m int) ([]int32, float64) {
	g := ix.g
	n := ix.n
	seen := st.next()
	step := max(1, n/candidateEntries)
	var res candHeap // worst on top, at most ef
	var beam []cand  // best on top
	ef := max(m, 32)
	sum, cnt := 0.0, 0
	var entries []cand
	for v := 0; v < n; v += step {
		s := g.Dot(v, qu)
		st.seen[v] = seen
		sum += max(s, 0)
		cnt++
		entries = append(entries, cand{int32(v), s})
	}
	slices.SortFunc(entries, func(a, b cand) int { return cmpBetter(a, b) })
	for _, e := range entries[:min(len(entries), 32)] {
		beam = heapx.Push(beam, e, better)
		res.push(e, ef)
	}
	for len(beam) > 0 {
		var c cand
		beam, c = heapx.Pop(beam, better)
		if len(res) >= ef && better(res[0], c) {
			break
		}
		nb, _ := g.Neighbors(int(c.id))
		for _, u := range nb {
			if st.seen[u] == seen {
				continue
			}
			st.seen[u] = seen
			d := cand{u, g.Dot(int(u), qu)}
			if len(res) < ef || better(d, res[0]) {
				beam = heapx.Push(beam, d, better)
				res.push(d, ef)
			}
		}
	}
	out := []cand(res)
	slices.SortFunc(out, func(a, b cand) int { return cmpBetter(a, b) })
	ids := make([]int32, 0, m)
	for _, c := range out[:min(m, len(out))] {
		ids = append(ids, c.id)
	}
	return ids, sum / float64(max(cnt, 1))
}

// bm25Top returns the m best nodes by raw BM25 (best first, ties by lower
// index), the whole graph's least and greatest raw BM25, and its sum. It
// leaves the scores in st.acc at st.touch for the caller to clear.
func (ix *Index) bm25Top(st *candState, terms []string, m int) (top []int32, lo, hi, sum float64) {
	st.touch = st.touch[:0]
	mark := st.next()
	k1, b := float64(bm25K1), float64(bm25B)
	c0 := k1 * (1 - b)
	c1 := 0.0
	if ix.avgLen > 0 {
		c1 = k1 * b / ix.avgLen
	}
	for _, t := range terms {
		id, ok := ix.terms[t]
		if !ok {
			continue
		}
		idf := ix.idf[id]
		lo, hi := ix.postOff[id], ix.postOff[id+1]
		for j, d := range ix.postDoc[lo:hi] {
			tf := float64(ix.postTF[lo+int32(j)])
			if st.seen[d] != mark {
				st.seen[d] = mark
				st.touch = append(st.touch, d)
			}
			st.acc[d] += idf * tf * (k1 + 1) / (tf + c0 + c1*float64(ix.docLen[d]))
		}
	}
	if len(st.touch) == 0 {
		return nil, 0, 0, 0
	}
	var h candHeap
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range st.touch {
		s := st.acc[v]
		sum += s
		lo, hi = min(lo, s), max(hi, s)
		h.push(cand{v, s}, m)
	}
	if len(st.touch) < ix.n {
		lo = min(lo, 0) // some node holds no query term
	}
	out := []cand(h)
	slices.SortFunc(out, func(a, b cand) int { return cmpBetter(a, b) })
	for _, c := range out {
		top = append(top, c.id)
	}
	return top, lo, hi, sum
}

// subIndex is the index of the subgraph induced by nodes (ascending), for
// the query terms kw only, with the whole graph's term statistics (idf,
// mean length), normalised summary lengths, mean cosines and BM25 range
// [bmLo, bmHi], so that each node scores as it would in the whole graph.
func (ix *Index) subIndex(nodes []int32, kw []string, bmLo, bmHi float64) *Index {
	sg := ix.g.Subgraph(nodes)
	n := len(nodes)
	s := &Index{g: sg, n: n, terms: map[string]int32{}, refs: map[string][]int32{}, avgLen: ix.avgLen,
		bmFixed: true, bmLo: bmLo, bmHi: bmHi}
	s.docLen = make([]float32, n)
	s.nodeRefs = make([][]Ref, n)
	s.sumLen = make([]float64, n)
	s.visual = make([]bool, n)
	s.meanCos = make([]float64, n)
	local := make(map[int32]int32, n)
	for i, v := range nodes {
		local[v] = int32(i)
		s.docLen[i] = ix.docLen[v]
		s.nodeRefs[i] = ix.nodeRefs[v]
		s.sumLen[i] = ix.sumLen[v]
		s.visual[i] = ix.visual[v]
		s.meanCos[i] = ix.meanCos[v]
		for _, r := range ix.nodeRefs[v] {
			k := refKey(r)
			s.refs[k] = append(s.refs[k], int32(i))
		}
	}
	s.postOff = []int32{0}
	for _, t := range kw {
		id, ok := ix.terms[t]
		if !ok {
			continue
		}
		if _, dup := s.terms[t]; dup {
			continue
		}
		s.terms[t] = int32(len(s.idf))
		s.idf = append(s.idf, ix.idf[id])
		lo, hi := ix.postOff[id], ix.postOff[id+1]
		for j, d := range ix.postDoc[lo:hi] {
			if l, ok := local[d]; ok {
				s.postDoc = append(s.postDoc, l)
				s.postTF = append(s.postTF, ix.postTF[lo+int32(j)])
			}
		}
		s.postOff = append(s.postOff, int32(len(s.postDoc)))
	}
	return s
}

// cand is a node and a score, ranked by score descending, then index.
type cand struct {
	id int32
	s  float64
}

func better(a, b cand) bool { return a.s > b.s || a.s == b.s && a.id < b.id }

func cmpBetter(a, b cand) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// candHeap keeps the best k candidates with the worst on top.
type candHeap []cand

func (h *candHeap) push(c cand, k int) {
	if len(*h) == k {
		if !better(c, (*h)[0]) {
			return
		}
		(*h)[0] = c
		heapx.Down(*h, 0, worse)
		return
	}
	*h = heapx.Push(*h, c, worse)
}

func worse(a, b cand) bool { return better(b, a) }
