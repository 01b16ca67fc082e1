package pgstore

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/flowreader/flowreader/internal/heapx"
	"github.com/flowreader/flowreader/internal/scorehook"
)

// BM25 in the replica. Round trip 1 reads every posting of the question's
// terms (postingsSQL, one statement a term, in key order); the replica then
// ranks the collection's nodes by BM25 Okapi from them (rankBM25) with the
// arithmetic, and in the order, of score's in-process index: each node's
// score summed over its terms in the question's order, the collection's
// least, greatest and summed score (summed in the order the in-process
// index first touches the nodes: by first term, then seq), and the m best
// (ties by lower seq). The candidates' raw BM25 are then looked up in the
// same scores, so the statistics, the lexical seeds and the candidates'
// scores come from one computation and equal the in-process values bit
// for bit.

// postingsSQL reads the postings of one term ($2) of collection $1 in key
// order ((coll, term, seq): one index range, no sort); none when no node
// holds it. The term's id is an InitPlan, so the postings are read by
// their primary key with the id as a constant.
const postingsSQL = `SELECT p.seq, p.tf, p.len FROM flowreader.postings p
WHERE p.coll = (SELECT id FROM flowreader.collections WHERE name = $1)
AND p.term = (SELECT t.id FROM flowreader.terms t WHERE t.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND t.term = $2)
ORDER BY p.seq`

// termPostings is the question terms' postings as round trip 1 reads
// them: term t's (t the term's position in the question's keywords) are
// seq[off[t]:off[t+1]], seqs ascending, with their frequency tf and their
// node's BM25 length ln. Parallel slices (16 bytes a posting), not a
// value a posting: a frequent term of a large collection holds hundreds
// of thousands, and a replica holds those of every question in flight.
type termPostings struct {
	off    []int
	seq    []int64
	tf, ln []float32
}

// newTermPostings makes the postings of terms terms, none read yet.
func newTermPostings(terms int) *termPostings {
	return &termPostings{off: make([]int, terms+1)}
}

// scan reads term t's postings (postingsSQL's rows). The terms are read in
// order, each after the one before (the statements of one batch), so each
// one's postings follow the previous one's. Rows in the binary format (the
// pool's default) are decoded directly, others scanned.
func (p *termPostings) scan(t int) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		p.off[t] = len(p.seq)
		direct := false
		for k := 0; rows.Next(); k++ {
			if k == 0 {
				fd := rows.FieldDescriptions()
				direct = len(fd) == 3 && fd[0].Format == pgtype.BinaryFormatCode && fd[0].DataTypeOID == pgtype.Int8OID &&
					fd[1].Format == pgtype.BinaryFormatCode && fd[1].DataTypeOID == pgtype.Float4OID &&
					fd[2].Format == pgtype.BinaryFormatCode && fd[2].DataTypeOID == pgtype.Float4OID
			}
			var (
				seq    int64
				tf, ln float32
			)
			if v := rows.RawValues(); direct && len(v) == 3 && len(v[0]) == 8 && len(v[1]) == 4 && len(v[2]) == 4 {
				seq = int64(binary.BigEndian.Uint64(v[0]))
				tf = math.Float32frombits(binary.BigEndian.Uint32(v[1]))
				ln = math.Float32frombits(binary.BigEndian.Uint32(v[2]))
			} else if err := rows.Scan(&seq, &tf, &ln); err != nil {
				return err
			}
			if n := len(p.seq); n > p.off[t] && seq <= p.seq[n-1] {
				return fmt.Errorf("pgstore: postings of term %d not in ascending seq order (%d after %d)", t+1, seq, p.seq[n-1])
			}
			p.seq, p.tf, p.ln = append(p.seq, seq), append(p.tf, tf), append(p.ln, ln)
		}
		p.off[t+1] = len(p.seq)
		return rows.Err()
	}
}

// bm25Consts are BM25 Okapi's c0 = k1·(1−b) and c1 = k1·b/avgdl of a
// collection of n nodes whose lengths sum to totalLen (c1 = 0 for an
// empty collection), as score's index computes them.
func bm25Consts(n int64, totalLen float64) (c0, c1 float64) {
	k1, b := scorehook.K1, scorehook.B
	c0 = k1 * (1 - b)
	if n > 0 {
		if avg := totalLen / float64(n); avg > 0 {
			c1 = k1 * b / avg
		}
	}
	return c0, c1
}

// lexScores is every node holding a question term, seqs ascending, with
// its raw BM25 w and the position of its first term in the question's
// order.
type lexScores struct {
	seq   []int64
	w     []float64
	first []int32
}

// rankBM25 scores every node of p by BM25 Okapi: term t adds
// idf[t]·tf·(k1+1)/(tf + c0 + c1·len), the terms added in the question's
// order to 0 (score's index adds them so to its accumulator), the same
// expression so the same bits. The terms' postings are merged by seq
// through a heap of the terms by (head seq, term): a node's terms come
// off it in the question's order, and the merge costs O(P log T) for P
// postings of T terms. (A pass over every term's head a node cost O(N·T):
// a long question's thousands of terms over a large collection's nodes
// were seconds of the replica's CPU, not cancellable.)
func rankBM25(p *termPostings, idf []float64, c0, c1 float64) lexScores {
	k1 := scorehook.K1
	terms := len(p.off) - 1
	// head is a term's next posting (at j) with its seq, kept beside it so
	// that the heap compares without reading the postings.
	type head struct {
		seq int64
		t   int32
		j   int
	}
	less := func(a, b head) bool { return a.seq < b.seq || a.seq == b.seq && a.t < b.t }
	h := make([]head, 0, terms)
	// The sift is written here rather than taken from internal/heapx: this
	// loop runs once a posting, and heapx's generic call through less was
	// 1.5x slower on BenchmarkRankBM25LongQuestion (0.31-0.35 s against
	// 0.20-0.21 s).
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			c := l
			if r := l + 1; r < len(h) && less(h[r], h[l]) {
				c = r
			}
			if !less(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for t := range terms {
		if j := p.off[t]; j < p.off[t+1] {
			h = append(h, head{p.seq[j], int32(t), j})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	// At most a node a posting: sized once, not grown by copies.
	n := len(p.seq)
	ls := lexScores{seq: make([]int64, 0, n), w: make([]float64, 0, n), first: make([]int32, 0, n)}
	for len(h) > 0 {
		cur, first := h[0].seq, h[0].t
		acc := 0.0
		for len(h) > 0 && h[0].seq == cur {
			t, j := h[0].t, h[0].j
			tf := float64(p.tf[j])
			acc += idf[t] * tf * (k1 + 1) / (tf + c0 + c1*float64(p.ln[j]))
			if j++; j < p.off[t+1] {
				h[0].seq, h[0].j = p.seq[j], j
			} else {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			down(0)
		}
		ls.seq, ls.w, ls.first = append(ls.seq, cur), append(ls.w, acc), append(ls.first, first)
	}
	return ls
}

// stats are the scores' least, greatest and sum, summed in the order the
// in-process index first touches the nodes (by first term in the
// question's order, then by seq), over terms terms; all 0 for no node.
// The nodes are put in that order by a counting sort on their first term
// (a pass over the nodes a term is O(N·T), seconds for a long question).
func (ls *lexScores) stats(terms int) (lo, hi, sum float64) {
	if len(ls.w) == 0 {
		return 0, 0, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, w := range ls.w {
		lo, hi = min(lo, w), max(hi, w)
	}
	next := make([]int, terms+1)
	for _, f := range ls.first {
		next[f+1]++
	}
	for t := range terms {
		next[t+1] += next[t]
	}
	order := make([]int32, len(ls.w))
	for i, f := range ls.first {
		order[next[f]] = int32(i)
		next[f]++
	}
	for _, i := range order {
		sum += ls.w[i]
	}
	return lo, hi, sum
}

// top is the m best nodes by score, ties by lower seq, among those
// allowed passes (every node when nil), best first: a heap of the m best
// so far, its worst on top.
func (ls *lexScores) top(m int, allowed func(int64) bool) []int64 {
	if m <= 0 {
		return nil
	}
	// worse puts the worst of the m best on top; ties by seq make the
	// order strict, so the result does not depend on the scan's order.
	worse := func(i, j int32) bool {
		return ls.w[i] < ls.w[j] || ls.w[i] == ls.w[j] && ls.seq[i] > ls.seq[j]
	}
	h := make([]int32, 0, min(m, len(ls.seq)))
	for i := range ls.seq {
		if allowed != nil && !allowed(ls.seq[i]) {
			continue
		}
		v := int32(i)
		switch {
		case len(h) < m:
			h = heapx.Push(h, v, worse)
		case worse(h[0], v):
			h[0] = v
			heapx.Down(h, 0, worse)
		}
	}
	out := make([]int64, len(h))
	for k := len(h) - 1; k >= 0; k-- { // the worst off the top, last first
		var v int32
		h, v = heapx.Pop(h, worse)
		out[k] = ls.seq[v]
	}
	return out
}

// score is the raw BM25 of the node seq: its score, 0 when it holds no
// question term.
func (ls *lexScores) score(seq int64) float64 {
	if i, ok := slices.BinarySearch(ls.seq, seq); ok {
		return ls.w[i]
	}
	return 0
}
