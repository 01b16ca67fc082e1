package score

import (
	"fmt"
	"math"
	"math/bits"
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
	// exactKeep is the largest graph (or Query.Nodes) whose dense
	// candidates are ranked exactly (every node's cosine) rather than by
	// the beam search: a few milliseconds of dot products, and a selective
	// filter would leave the beam search walking most of the graph anyway.
	exactKeep = 32768
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
// node: the m nodes most similar to the query (exactly on a graph of up to
// 32,768 nodes, else by a beam search of width m over the graph's edges
// from evenly spaced entry nodes, the kNN edges making it a navigable
// graph), the m best by BM25 (from the query terms'
// postings) and the nodes whose references meet the question's, then their
// graph neighbours, best seeds first, up to 8·m nodes in all. With
// Query.Nodes set, only those nodes are candidates (and neighbours). The
// returned Scores index that subgraph: Scores.Graph is it and
// Scores.Candidates maps its nodes to the index's graph. Each candidate's
// Cos, BM25 (normalised by the whole graph's BM25 range), Ref and R are
// those Score gives it; HMean and RMean estimate the whole graph's means
// from the entry nodes (exact for the BM25 and reference parts). The cost
// grows with m and the postings of the query terms, not with the graph's
// size. It is the candidate set ([Candidates]), then its scores.
//
// It fails as Score does, and with [ErrConfig] when m < 1.
func (ix *Index) ScoreCandidates(c Config, q Query, m int) (*Scores, error) {
	if ix == nil || ix.g == nil || ix.n == 0 {
		if m < 1 {
			return nil, fmt.Errorf("%w: %d candidates", ErrConfig, m)
		}
		return ix.Score(c, q)
	}
	cs, err := ix.candidateSet(c, q, m)
	if err != nil {
		return nil, err
	}
	return cs.score(c, q)
}

// candidateSet reads the candidate set of ScoreCandidates from the index:
// the candidate subgraph with the whole graph's statistics, which
// Candidates.score scores (Rank and KeywordDF are left nil: a router
// opened on this graph has them). A store answers a question with the same
// set (see [Candidates]); the library's stores reach it through
// internal/scorehook.
//
// It fails with [ErrConfig] when c is invalid, m < 1 or Query.Nodes is not
// ascending nodes of the graph, and with [ErrEmbedding] when the query
// embedding does not fit the graph.
func (ix *Index) candidateSet(c Config, q Query, m int) (*Candidates, error) {
	if m < 1 {
		return nil, fmt.Errorf("%w: %d candidates", ErrConfig, m)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if ix == nil || ix.g == nil {
		return nil, fmt.Errorf("%w: an index of no graph", ErrConfig)
	}
	if err := checkQuery(ix.g, q); err != nil {
		return nil, err
	}
	keep, err := ix.keepSet(q.Nodes)
	if err != nil {
		return nil, err
	}
	return ix.candidates(c, q, m, keep), nil
}

// keepSet is the bit set of nodes (ascending node indexes), nil for nil.
func (ix *Index) keepSet(nodes []int) (bitset, error) {
	if nodes == nil {
		return nil, nil
	}
	b := make(bitset, (ix.n+63)/64)
	for i, v := range nodes {
		if v < 0 || v >= ix.n || (i > 0 && nodes[i-1] >= v) {
			return nil, fmt.Errorf("%w: Query.Nodes[%d] = %d is not an ascending node of the %d", ErrConfig, i, v, ix.n)
		}
		b[v/64] |= 1 << (v % 64)
	}
	return b, nil
}

// bitset marks nodes; nil marks every node.
type bitset []uint64

func (b bitset) has(v int32) bool { return b == nil || b[v/64]&(1<<(v%64)) != 0 }

// count is the number of nodes b marks.
func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// candidates reads q's candidate set from the index (every node of keep
// when keep is not nil): the seeds, their neighbours, and what scoring
// reads of the whole graph for them.
func (ix *Index) candidates(c Config, q Query, m int, keep bitset) *Candidates {
	g := ix.g
	qu := unit(q.Embedding)
	kw := keywords(q)
	refs := extractRefs(q.Text)
	st := ix.getCand()
	defer ix.cands.Put(st)

	dense, cosMean := ix.denseTop(st, qu, m, keep)
	lexical, bmLo, bmHi, bmSum := ix.bm25Top(st, kw, m, keep)
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
						if len(refNodes) < m && keep.has(v) {
							refNodes = append(refNodes, v)
						}
					}
				}
			}
		}
	}

	// Seeds interleaved by rank, then one hop from each, best seeds first.
	limit := candidateSpread * m
	in := st.next()
	var nodes []int32
	add := func(v int32) {
		if st.seen[v] != in && len(nodes) < limit && keep.has(v) {
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
	cs := ix.candidatesOf(c, q.Text, kw, nodes, st.acc)
	cs.CosMean, cs.BM25Min, cs.BM25Max, cs.BM25Sum, cs.RefMatches = cosMean, bmLo, bmHi, bmSum, refCount
	for _, v := range st.touch {
		st.acc[v] = 0
	}
	st.touch = st.touch[:0]
	return cs
}

// candidatesOf is the candidate set of nodes (ascending) with their
// per-node values read from the index: raw BM25 from acc (the query terms'
// scores, as bm25 adds them) when a query term is in the vocabulary,
// reference keys, summary lengths, cosines with the mean direction, and
// the hop step's inputs from the title index. The whole-graph statistics
// are the caller's to set.
func (ix *Index) candidatesOf(c Config, question string, kw []string, nodes []int32, acc []float64) *Candidates {
	n := len(nodes)
	cs := &Candidates{Graph: ix.g.Subgraph(nodes), Nodes: make([]int, n), Size: ix.n,
		RefKeys: make([][]string, n), SummaryLen: make([]float64, n), MeanCos: make([]float64, n)}
	found := false
	for _, t := range kw {
		_, ok := ix.terms[t]
		found = found || ok
	}
	if found && c.bm25Weight() > 0 {
		cs.BM25 = make([]float64, n)
	}
	local := make(map[int32]int, n)
	for i, v := range nodes {
		cs.Nodes[i] = int(v)
		local[v] = i
		if cs.BM25 != nil {
			cs.BM25[i] = acc[v]
		}
		for _, r := range ix.nodeRefs[v] {
			cs.RefKeys[i] = append(cs.RefKeys[i], refKey(r))
		}
		cs.SummaryLen[i] = ix.sumLen[v]
		cs.MeanCos[i] = ix.meanCos[v]
	}
	if _, on := c.hop(); on {
		t := ix.titleIndex()
		cs.Names = make([][]int, n)
		for i, v := range nodes {
			for _, u := range t.names[v] {
				if j, ok := local[u]; ok {
					cs.Names[i] = append(cs.Names[i], j)
				}
			}
		}
		if question != "" {
			for _, v := range t.titles.Named(question) {
				if j, ok := local[v]; ok {
					cs.Named = append(cs.Named, j)
				}
			}
			slices.Sort(cs.Named)
			cs.Named = slices.Compact(cs.Named)
		}
	}
	return cs
}

// denseTop returns the m nodes of keep most similar to the unit query qu,
// best first (ties by lower index), and the mean of max(cos, 0) over the
// entry nodes (of the whole graph). A graph or keep of at most exactKeep
// nodes is ranked exactly; a larger one by a beam search over the graph's
// adjacency, which walks through every node but keeps only keep's, with
// the nearest nodes by sign-bit sketch (sketch.go), all re-ranked by the
// exact cosine.
func (ix *Index) denseTop(st *candState, qu []float32, m int, keep bitset) ([]int32, float64) {
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
	cosMean := sum / float64(max(cnt, 1))
	if keep == nil && n <= exactKeep || keep != nil && keep.count() <= exactKeep {
		for v := range int32(n) {
			if keep.has(v) {
				res.push(cand{v, g.Dot(int(v), qu)}, m)
			}
		}
		out := []cand(res)
		slices.SortFunc(out, func(a, b cand) int { return cmpBetter(a, b) })
		ids := make([]int32, len(out))
		for i, c := range out {
			ids[i] = c.id
		}
		return ids, cosMean
	}
	slices.SortFunc(entries, func(a, b cand) int { return cmpBetter(a, b) })
	for _, e := range entries[:min(len(entries), 32)] {
		beam = heapx.Push(beam, e, better)
		if keep.has(e.id) {
			res.push(e, ef)
		}
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
				if keep.has(u) {
					res.push(d, ef)
				}
			}
		}
	}
	out := []cand(res)
	if ix.sketches != nil {
		// The sketches' nearest, re-ranked with the beam's by the exact
		// cosine (see sketch.go).
		mark := st.next()
		for _, c := range out {
			st.seen[c.id] = mark
		}
		qs := make([]uint64, ix.sketchWords)
		signBits(qs, qu)
		for _, v := range ix.sketchNearest(qs, max(sketchOversample*m, sketchFloor), keep) {
			if st.seen[v] != mark {
				out = append(out, cand{v, g.Dot(int(v), qu)})
			}
		}
	}
	slices.SortFunc(out, func(a, b cand) int { return cmpBetter(a, b) })
	ids := make([]int32, 0, m)
	for _, c := range out[:min(m, len(out))] {
		ids = append(ids, c.id)
	}
	return ids, cosMean
}

// bm25Top returns the m best nodes of keep by raw BM25 (best first, ties by
// lower index), the whole graph's least and greatest raw BM25, and its
// sum. It leaves the scores in st.acc at st.touch for the caller to clear.
func (ix *Index) bm25Top(st *candState, terms []string, m int, keep bitset) (top []int32, lo, hi, sum float64) {
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
		if m > 0 && keep.has(v) {
			h.push(cand{v, s}, m)
		}
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

// restricted is the candidate set of exactly the nodes of keep, with the
// whole graph's statistics (those ScoreCandidates reads).
func (ix *Index) restricted(c Config, q Query, keep bitset) *Candidates {
	st := ix.getCand()
	defer ix.cands.Put(st)
	kw := keywords(q)
	qu := unit(q.Embedding)
	sum, cnt := 0.0, 0
	for v := 0; v < ix.n; v += max(1, ix.n/candidateEntries) {
		sum += max(ix.g.Dot(v, qu), 0)
		cnt++
	}
	cosMean := sum / float64(max(cnt, 1))
	_, bmLo, bmHi, bmSum := ix.bm25Top(st, kw, 0, nil)
	refCount := 0
	if c.refBoost() > 0 {
		seen := st.next()
		for _, r := range extractRefs(q.Text) {
			for _, k := range queryKeys(r) {
				for _, v := range ix.refs[k] {
					if st.seen[v] != seen {
						st.seen[v] = seen
						refCount++
					}
				}
			}
		}
	}
	var nodes []int32
	for w, b := range keep {
		for ; b != 0; b &= b - 1 {
			nodes = append(nodes, int32(w*64+bits.TrailingZeros64(b)))
		}
	}
	cs := ix.candidatesOf(c, q.Text, kw, nodes, st.acc)
	cs.CosMean, cs.BM25Min, cs.BM25Max, cs.BM25Sum, cs.RefMatches = cosMean, bmLo, bmHi, bmSum, refCount
	for _, v := range st.touch {
		st.acc[v] = 0
	}
	st.touch = st.touch[:0]
	return cs
}
