package score

import (
	"math"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
)

// bm25Epsilon is rank_bm25's BM25Okapi floor: a term in more than half the
// nodes has a negative Okapi idf, which is replaced by epsilon times the mean
// idf of the vocabulary.
const bm25Epsilon = 0.25

// Index is the per-graph, query-independent part of scoring: BM25 postings
// over each node's summary, keywords, content and caption (lower case, stop
// words removed, snowball English stems), each node's own references, the
// summary lengths behind answerability, each node's cosine with the mean
// embedding (for MMR's bound), and, built on first use, the pruned
// adjacency of φ and ψ. Build it once per graph with [NewIndex] and score
// every query on that graph with [Index.Score]; it is safe for concurrent
// use.
type Index struct {
	g *graph.Graph
	n int

	terms map[string]int32 // term → id; looked up, never iterated
	// Postings in CSR form: the nodes holding term t are
	// postDoc[postOff[t]:postOff[t+1]] (ascending), with term frequencies
	// postTF aligned.
	postOff []int32
	postDoc []int32
	postTF  []float32
	idf     []float64
	docLen  []float32
	avgLen  float64

	refs     map[string][]int32 // refKey → nodes (ascending); looked up, never iterated
	nodeRefs [][]Ref

	// sumLen is the normalised summary length len(s_i)/max_j len(s_j).
	sumLen []float64
	// visual marks the visual nodes (answerability's bonus), kept here so
	// that a query does not walk the Node structs.
	visual []bool
	// meanCos is each node's cosine with the mean embedding direction, a
	// pivot for the MMR bound.
	meanCos []float64
	// sketches holds, above exactKeep nodes, the sign bits of each node's
	// embedding (sketchWords words a node): the dense pass's second
	// source of candidates (see denseTop).
	sketches    []uint64
	sketchWords int

	mu     sync.Mutex
	pruned *adjacency // for the last r_min asked

	scratch sync.Pool // *scratch, per-query working arrays
	cands   sync.Pool // *candState, ScoreCandidates' working space

	// hopTitles is the hop step's title index, made on first use.
	hopTitles lazyTitles

	// bmFixed, for a candidate subgraph's index, normalises BM25 by the
	// whole graph's range [bmLo, bmHi] instead of the subgraph's, and
	// bmRaw, when not nil, holds each node's raw BM25 for the query
	// (Candidates.BM25) in place of the postings.
	bmFixed    bool
	bmLo, bmHi float64
	bmRaw      []float64
}

// Prepare makes now the per-graph state that scoring under c builds on
// first use: the title index of the hop step and, for the classic score,
// the pruned adjacency of φ and ψ. Without it the first question pays for
// them (seconds at a million nodes).
func (ix *Index) Prepare(c Config) {
	if ix == nil || ix.g == nil {
		return
	}
	if _, on := c.hop(); on {
		ix.titleIndex()
	}
	if c.usesPhi() || c.usesPsi() {
		ix.adjacency(c.MinEdgeWeight)
	}
}

// NewIndex builds the index of g. The graph must not change while the
// index is in use. A nil g gives an index of no nodes.
func NewIndex(g *graph.Graph) *Index {
	ix := &Index{g: g, terms: map[string]int32{}, refs: make(map[string][]int32)}
	if g == nil {
		return ix
	}
	n := len(g.Nodes)
	ix.n = n
	ix.docLen = make([]float32, n)
	ix.nodeRefs = make([][]Ref, n)
	ix.sumLen = make([]float64, n)
	ix.visual = make([]bool, n)
	for i := range g.Nodes {
		ix.visual[i] = g.Nodes[i].Modality != graph.ModalityText
	}

	st := newStemmer()
	var (
		ids    []int32
		pTerm  []int32
		pDoc   []int32
		pTF    []float32
		df     []int32
		total  float64
		maxLen int
	)
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		ids = st.appendIDs(ids[:0], nd.Summary)
		for _, k := range nd.Keywords {
			ids = st.appendIDs(ids, k)
		}
		ids = st.appendIDs(ids, nd.Content)
		ids = st.appendIDs(ids, nd.Caption)
		ix.docLen[i] = float32(len(ids))
		total += float64(len(ids))
		for len(df) < len(st.terms) {
			df = append(df, 0)
		}
		slices.Sort(ids)
		for a := 0; a < len(ids); {
			b := a + 1
			for b < len(ids) && ids[b] == ids[a] {
				b++
			}
			pTerm = append(pTerm, ids[a])
			pDoc = append(pDoc, int32(i))
			pTF = append(pTF, float32(b-a))
			df[ids[a]]++
			a = b
		}

		rs := nodeRefs(nd)
		ix.nodeRefs[i] = rs
		for _, r := range rs {
			k := refKey(r)
			ix.refs[k] = append(ix.refs[k], int32(i))
		}

		l := utf8.RuneCountInString(nd.Summary)
		if l == 0 {
			l = utf8.RuneCountInString(nd.Content)
		}
		ix.sumLen[i] = float64(l)
		maxLen = max(maxLen, l)
	}
	if maxLen > 0 {
		for i := range ix.sumLen {
			ix.sumLen[i] /= float64(maxLen)
		}
	}
	if n > 0 {
		ix.avgLen = total / float64(n)
	}

	// Counting sort of the (term, node) pairs by term; nodes stay ascending.
	T := len(df)
	ix.postOff = make([]int32, T+1)
	for t, d := range df {
		ix.postOff[t+1] = ix.postOff[t] + d
	}
	ix.postDoc = make([]int32, len(pDoc))
	ix.postTF = make([]float32, len(pDoc))
	next := slices.Clone(ix.postOff[:T])
	for k, t := range pTerm {
		p := next[t]
		next[t]++
		ix.postDoc[p], ix.postTF[p] = pDoc[k], pTF[k]
	}

	ix.meanCos = meanCosines(g)
	if n > exactKeep && g.Dim > 0 {
		ix.sketchWords, ix.sketches = sketchesOf(g)
	}
	ix.terms = st.ids
	for len(df) < len(st.terms) {
		df = append(df, 0)
	}

	// Okapi idf as rank_bm25 computes it, negatives floored at ε·mean idf.
	ix.idf = make([]float64, T)
	sum := 0.0
	for t, d := range df {
		ix.idf[t] = math.Log(float64(n)-float64(d)+0.5) - math.Log(float64(d)+0.5)
		sum += ix.idf[t]
	}
	if T > 0 {
		eps := bm25Epsilon * sum / float64(T)
		for t := range ix.idf {
			if ix.idf[t] < 0 {
				ix.idf[t] = eps
			}
		}
	}
	return ix
}

// bm25 adds the raw BM25 Okapi scores of the query terms to dst (length
// ix.n), touching only the terms' postings, and reports whether any term
// was found.
func (ix *Index) bm25(dst []float64, terms []string) bool {
	if ix.bmRaw != nil {
		copy(dst, ix.bmRaw)
		return true
	}
	found := false
	for _, t := range terms {
		id, ok := ix.terms[t]
		if !ok {
			continue
		}
		found = true
		idf := ix.idf[id]
		lo, hi := ix.postOff[id], ix.postOff[id+1]
		docs, tfs := ix.postDoc[lo:hi], ix.postTF[lo:hi]
		k1, b := float64(bm25K1), float64(bm25B)
		c0 := k1 * (1 - b)
		c1 := 0.0
		if ix.avgLen > 0 {
			c1 = k1 * b / ix.avgLen
		}
		for j, d := range docs {
			tf := float64(tfs[j])
			dst[d] += idf * tf * (k1 + 1) / (tf + c0 + c1*float64(ix.docLen[d]))
		}
	}
	return found
}

// refMatch sets dst[v] = 1 for every node whose references meet the
// query's, and reports whether it set any.
func (ix *Index) refMatch(dst []float64, refs []Ref) bool {
	any := false
	for _, r := range refs {
		for _, k := range queryKeys(r) {
			for _, v := range ix.refs[k] {
				dst[v] = 1
				any = true
			}
		}
	}
	return any
}

// meanCosines returns cos(ê_v, μ̂) for every node, μ the mean embedding (all
// 0 when the mean is zero).
func meanCosines(g *graph.Graph) []float64 {
	n, d := len(g.Nodes), g.Dim
	out := make([]float64, n)
	acc := make([]float64, d)
	row := make([]float32, 0, d)
	for i := 0; i < n; i++ {
		row = g.AppendEmbedding(row[:0], i)
		for k, x := range row {
			acc[k] += float64(x)
		}
	}
	norm := 0.0
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 {
		return out
	}
	mu := make([]float32, d)
	for k, x := range acc {
		mu[k] = float32(x / math.Sqrt(norm))
	}
	for i := range out {
		out[i] = g.Dot(i, mu)
	}
	return out
}
