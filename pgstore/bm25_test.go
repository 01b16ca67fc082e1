package pgstore

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/internal/scorehook"
)

// bm25Oracle ranks random postings as score's index does (bm25Top): an
// accumulator a node, the terms added in order, the statistics over the
// nodes in the order they are first touched, the best m among those keep
// passes by a full sort.
func bm25Oracle(p *termPostings, idf []float64, c0, c1 float64, m int, keep func(int64) bool) (top []int64, lo, hi, sum float64, scores map[int64]float64) {
	k1 := scorehook.K1
	scores = map[int64]float64{}
	var touch []int64
	for t := range len(p.off) - 1 {
		for j := p.off[t]; j < p.off[t+1]; j++ {
			v := p.seq[j]
			if _, ok := scores[v]; !ok {
				touch = append(touch, v)
			}
			tf := float64(p.tf[j])
			scores[v] += idf[t] * tf * (k1 + 1) / (tf + c0 + c1*float64(p.ln[j]))
		}
	}
	if len(touch) == 0 {
		return nil, 0, 0, 0, scores
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range touch {
		sum += scores[v]
		lo, hi = min(lo, scores[v]), max(hi, scores[v])
	}
	all := slices.Clone(touch)
	slices.SortFunc(all, func(a, b int64) int {
		switch {
		case scores[a] > scores[b] || scores[a] == scores[b] && a < b:
			return -1
		case scores[b] > scores[a] || scores[a] == scores[b] && b < a:
			return 1
		}
		return 0
	})
	for _, v := range all {
		if len(top) < m && (keep == nil || keep(v)) {
			top = append(top, v)
		}
	}
	return top, lo, hi, sum, scores
}

// TestRankBM25 compares the replica's ranking with the oracle over random
// postings: few distinct frequencies and lengths (so that many nodes tie,
// and the ties are broken by seq), terms no node holds, terms holding
// every node, a filter, and m below, at and above the nodes touched. Every
// figure must be equal bit for bit.
func TestRankBM25(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for k := 0; k < 400; k++ {
		terms := 1 + rng.IntN(7)
		nodes := int64(1 + rng.IntN(300))
		p, idf := randomPostings(rng, terms, nodes, func() float64 { return []float64{0, 0.02, 0.3, 1}[rng.IntN(4)] })
		c0, c1 := bm25Consts(nodes, float64(nodes)*10)
		var keep func(int64) bool
		if k%2 == 1 {
			mod := int64(2 + rng.IntN(4))
			keep = func(v int64) bool { return v%mod != 0 }
		}
		m := 1 + rng.IntN(int(nodes)+2)
		wantTop, wantLo, wantHi, wantSum, wantScores := bm25Oracle(p, idf, c0, c1, m, keep)
		ls := rankBM25(p, idf, c0, c1)
		lo, hi, sum := ls.stats(terms)
		if lo != wantLo || hi != wantHi || sum != wantSum {
			t.Fatalf("case %d: range %v..%v sum %v, oracle %v..%v sum %v", k, lo, hi, sum, wantLo, wantHi, wantSum)
		}
		if len(ls.seq) != len(wantScores) || !slices.IsSorted(ls.seq) {
			t.Fatalf("case %d: %d nodes scored (sorted %v), oracle %d", k, len(ls.seq), slices.IsSorted(ls.seq), len(wantScores))
		}
		for v := range nodes + 1 {
			if got, want := ls.score(v), wantScores[v]; got != want {
				t.Fatalf("case %d: node %d scores %v, oracle %v", k, v, got, want)
			}
		}
		if top := ls.top(m, keep); !slices.Equal(top, wantTop) {
			t.Fatalf("case %d: top %d %v, oracle %v", k, m, top, wantTop)
		}
	}
}

// TestRankBM25Order checks that the terms are added in the question's
// order: with three terms whose contributions round differently when
// added in another order, the oracle's sum in order is the one found.
func TestRankBM25Order(t *testing.T) {
	p := &termPostings{off: []int{0, 1, 2, 3}, seq: []int64{4, 4, 4}, tf: []float32{1, 1, 1}, ln: []float32{1, 1, 1}}
	idf := []float64{1e16, -1e16, 1}
	c0, c1 := 0.0, 0.0 // each term adds idf·(k1+1)/(1+0)
	ls := rankBM25(p, idf, c0, c1)
	k1 := scorehook.K1
	want := 0.0
	for _, x := range idf {
		want += x * (k1 + 1)
	}
	rev := 0.0
	for t := len(idf) - 1; t >= 0; t-- {
		rev += idf[t] * (k1 + 1)
	}
	if want == rev {
		t.Fatal("the case does not tell the orders apart")
	}
	if got := ls.score(4); got != want {
		t.Fatalf("score %v, want %v (terms in the question's order)", got, want)
	}
}

// BenchmarkRankBM25 ranks 5 terms' 8,235 postings over 1M nodes (the
// lexical work of a question at 1M in the store's bench) and picks the
// 256 best: the replica's share of what the lexical statement did in SQL.
func BenchmarkRankBM25(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	sizes := []int{4100, 2300, 1200, 500, 135}
	p := newTermPostings(len(sizes))
	for t, n := range sizes {
		seqs := make([]int64, n)
		for i := range seqs {
			seqs[i] = rng.Int64N(1_000_000)
		}
		slices.Sort(seqs)
		seqs = slices.Compact(seqs)
		for _, v := range seqs {
			p.seq, p.tf, p.ln = append(p.seq, v), append(p.tf, float32(1+rng.IntN(3))), append(p.ln, float32(20+rng.IntN(80)))
		}
		p.off[t+1] = len(p.seq)
	}
	idf := []float64{5.5, 6.1, 6.8, 7.6, 8.9}
	c0, c1 := bm25Consts(1_000_000, 50_000_000)
	b.ReportAllocs()
	for b.Loop() {
		ls := rankBM25(p, idf, c0, c1)
		ls.stats(len(sizes))
		ls.top(256, nil)
	}
}

// TestRankBM25ManyTerms compares the replica's ranking with the oracle for
// a long question: hundreds of terms, most nodes holding several, so that
// the merge takes a node's terms from many heads at once.
func TestRankBM25ManyTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for k := 0; k < 20; k++ {
		terms := 200 + rng.IntN(400)
		nodes := int64(500 + rng.IntN(1500))
		p, idf := randomPostings(rng, terms, nodes, func() float64 { return 0.01 })
		c0, c1 := bm25Consts(nodes, float64(nodes)*10)
		m := 1 + rng.IntN(64)
		wantTop, wantLo, wantHi, wantSum, wantScores := bm25Oracle(p, idf, c0, c1, m, nil)
		ls := rankBM25(p, idf, c0, c1)
		if lo, hi, sum := ls.stats(terms); lo != wantLo || hi != wantHi || sum != wantSum {
			t.Fatalf("case %d: range %v..%v sum %v, oracle %v..%v sum %v", k, lo, hi, sum, wantLo, wantHi, wantSum)
		}
		if len(ls.seq) != len(wantScores) {
			t.Fatalf("case %d: %d nodes scored, oracle %d", k, len(ls.seq), len(wantScores))
		}
		for i, v := range ls.seq {
			if ls.w[i] != wantScores[v] {
				t.Fatalf("case %d: node %d scores %v, oracle %v", k, v, ls.w[i], wantScores[v])
			}
		}
		if top := ls.top(m, nil); !slices.Equal(top, wantTop) {
			t.Fatalf("case %d: top %v, oracle %v", k, top, wantTop)
		}
	}
}

// randomPostings makes terms terms' postings over nodes nodes, each node
// holding a term with the probability density() gives for that term
// (called once a term, after its idf is drawn), with few distinct
// frequencies, lengths and idfs (so that nodes tie).
func randomPostings(rng *rand.Rand, terms int, nodes int64, density func() float64) (*termPostings, []float64) {
	p := newTermPostings(terms)
	idf := make([]float64, terms)
	for t := range terms {
		idf[t] = []float64{0.05, 0.7, 1.3, 2.9, rng.Float64() * 5}[rng.IntN(5)]
		d := density()
		for v := range nodes {
			if rng.Float64() < d {
				p.seq = append(p.seq, v)
				p.tf = append(p.tf, float32(1+rng.IntN(3)))
				p.ln = append(p.ln, float32(5*(1+rng.IntN(3))))
			}
		}
		p.off[t+1] = len(p.seq)
	}
	return p, idf
}

// BenchmarkRankBM25LongQuestion ranks a long question's 2,000 terms over
// 200,000 nodes (about 1,000 postings a term, nearly every node holding
// one): the replica's work grows with the postings, not with nodes ×
// terms.
func BenchmarkRankBM25LongQuestion(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	const terms, nodes = 2000, 200_000
	p := newTermPostings(terms)
	for t := range terms {
		seqs := make([]int64, 1000)
		for i := range seqs {
			seqs[i] = rng.Int64N(nodes)
		}
		slices.Sort(seqs)
		for _, v := range slices.Compact(seqs) {
			p.seq, p.tf, p.ln = append(p.seq, v), append(p.tf, float32(1+rng.IntN(3))), append(p.ln, float32(20+rng.IntN(80)))
		}
		p.off[t+1] = len(p.seq)
	}
	idf := make([]float64, terms)
	for t := range idf {
		idf[t] = 1 + rng.Float64()*8
	}
	c0, c1 := bm25Consts(nodes, 10_000_000)
	b.ReportAllocs()
	for b.Loop() {
		ls := rankBM25(p, idf, c0, c1)
		ls.stats(terms)
		ls.top(256, nil)
	}
}
