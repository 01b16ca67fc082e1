package score

import (
	"fmt"
	"math"
	"strings"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/vec"
)

// Query is one question to score: its text (for BM25 and the reference
// match) and its embedding, made by the caller with the embedder the graph
// was built with.
type Query struct {
	// Text is the question.
	Text string
	// Embedding is the question's embedding, of the graph's dimension; it
	// need not be unit length (a zero embedding gives cosines of 0).
	Embedding []float32
	// Keywords, when not nil, are BM25's query words instead of
	// the terms of Text, for example those of paper v1's keyword prompt. They
	// are tokenised, stop-listed and stemmed like Text; an empty, non-nil
	// list means no keywords.
	Keywords []string
	// Nodes, when not nil, restricts scoring to these nodes (ascending
	// indexes of the index's graph), for example a filter's: Score scores
	// exactly them and ScoreCandidates draws its candidates from them,
	// both with the whole graph's statistics (idf, mean length, BM25
	// range, the estimated means), so that a node scores as it does
	// without the restriction. The Scores then index the subgraph of the
	// nodes scored (Scores.Graph, Scores.Candidates); an empty, non-nil
	// list scores none.
	Nodes []int
}

// Score scores every node of the index's graph for q under c. It fails
// with [ErrConfig] when c is invalid and with [ErrEmbedding] when
// q.Embedding's length is not the graph's dimension or it (or a node's
// embedding) holds a NaN or an infinity. An index of no nodes gives empty
// Scores.
func (ix *Index) Score(c Config, q Query) (*Scores, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if ix == nil || ix.g == nil {
		return &Scores{Keywords: keywords(q), Refs: extractRefs(q.Text)}, nil
	}
	if err := checkQuery(ix.g, q); err != nil {
		return nil, err
	}
	if q.Nodes != nil {
		keep, err := ix.keepSet(q.Nodes)
		if err != nil {
			return nil, err
		}
		return ix.restricted(c, q, keep).score(c, q)
	}
	sc, err := ix.compute(c, q)
	if err != nil {
		return nil, err
	}
	ix.raise(c, sc, ix.g, nil)
	return sc, nil
}

// checkQuery checks that q's embedding has g's dimension and finite values.
func checkQuery(g *graph.Graph, q Query) error {
	if len(q.Embedding) != g.Dim {
		return fmt.Errorf("%w: query has %d values, graph dimension %d", ErrEmbedding, len(q.Embedding), g.Dim)
	}
	for i, x := range q.Embedding {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: query value %d is %v", ErrEmbedding, i, x)
		}
	}
	return nil
}

// keywords returns the BM25 query terms of q.
func keywords(q Query) []string {
	if q.Keywords == nil {
		return queryTerms(q.Text)
	}
	kw := queryTerms(strings.Join(q.Keywords, " "))
	if kw == nil {
		kw = []string{} // the caller's words held none: no rule-based fallback
	}
	return kw
}

// compute is the scoring proper; its inputs are valid, except that the
// graph's embeddings are only checked through the cosines they give.
func (ix *Index) compute(c Config, q Query) (*Scores, error) {
	g := ix.g
	n := len(g.Nodes)
	sc := &Scores{
		Question: q.Text,
		Query:    unit(q.Embedding),
		Keywords: keywords(q),
		Refs:     extractRefs(q.Text),
		Cos:      make([]float64, n),
		R:        make([]float64, n),
		H:        make([]float64, n),
	}

	// One pass over the contiguous embeddings; a zero query has cosine 0
	// with every node and needs no pass. graph.New and graph.Read reject
	// NaN, but a Graph is a plain struct: checking n cosines is cheaper
	// than checking n·d values.
	if !isZero(sc.Query) && cosines(sc.Cos, sc.Query, g) {
		for i, x := range sc.Cos {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: embedding of node %d", ErrEmbedding, i)
			}
		}
	}

	// BM25 is min–max normalised over the nodes. Its scan for the bounds is
	// one pass; the rescaling is done in the relevance pass below. With
	// lo = 0 (some node has none of the query's terms, the usual case) a
	// zero stays (0 − 0)/(hi − 0) = 0, so only non-zero scores are divided.
	var lo, span float64
	scale := false
	sc.Steps = append(sc.Steps, "cosine")
	if c.bm25Weight() > 0 {
		sc.Steps = append(sc.Steps, "bm25")
		sc.BM25 = make([]float64, n)
		if ix.bm25(sc.BM25, sc.Keywords) {
			var hi float64
			lo, hi = bounds(sc.BM25)
			if ix.bmFixed {
				lo, hi = ix.bmLo, ix.bmHi
			}
			if hi > lo {
				scale, span = true, hi-lo
			} else {
				clear(sc.BM25)
			}
		}
	}
	refs := false
	if c.refBoost() > 0 {
		sc.Steps = append(sc.Steps, "ref")
		sc.Ref = make([]float64, n)
		refs = ix.refMatch(sc.Ref, sc.Refs)
	}

	// One pass for r, its sum and its maximum. Terms that are 0 for every
	// node (no reference matched) are not added: adding +0 would not change
	// r, which is (1 − α)·max(cos, 0) ≥ +0 or raw and then clipped.
	rSum, rMax := 0.0, 0.0
	alpha, boost := c.bm25Weight(), c.refBoost()
	for i := range sc.R {
		d := sc.Cos[i]
		if !c.RawCosine {
			d = max(d, 0)
		}
		r := (1 - alpha) * d
		if sc.BM25 != nil {
			b := sc.BM25[i]
			if scale && (b != 0 || lo != 0) {
				b = (b - lo) / span // a division, so that the maximum is exactly 1
				sc.BM25[i] = b
			}
			r += alpha * b
		}
		if refs {
			r += boost * sc.Ref[i]
		}
		r = min(max(r, 0), 1)
		sc.R[i] = r
		rSum += r
		if r > rMax { // r ≥ +0 and not NaN here
			rMax = r
		}
	}

	hSum := 0.0
	if !c.Fusion {
		if rMax > 0 {
			for i, r := range sc.R {
				h := r / rMax // a division, so that max h is exactly 1
				sc.H[i] = h
				hSum += h
			}
		}
	} else {
		sc.Steps = append(sc.Steps, "fusion")
		if c.usesPhi() || c.usesPsi() {
			a := ix.adjacency(c.MinEdgeWeight)
			buf := ix.getScratch()
			sc.Phi, sc.PhiSweeps, sc.Psi, sc.PsiSweeps = classicSignals(a, sc.R, neighbourShare, damping, c.usesPhi(), c.usesPsi(), buf)
			ix.putScratch(buf)
		}
		for i := range sc.H {
			h := c.RelevanceWeight * sc.R[i]
			if sc.Phi != nil {
				h += c.PropagationWeight * sc.Phi[i]
			}
			if sc.Psi != nil {
				h += c.DiffusionWeight * sc.Psi[i]
			}
			h = min(max(h, 0), 1)
			sc.H[i] = h
			hSum += h
		}
	}

	if c.Sinks > 0 {
		sc.A = ix.answerability(sc.R, visualBonus)
		sc.Sinks = topK(sc.A, c.Sinks, nil)
	}
	if c.Sources > 0 {
		buf := ix.getScratch()
		sc.Sources, _ = mmr(g, sc.H, [][]float64{sc.Cos, ix.meanCos}, c.Sources, mmrWeight, buf)
		ix.putScratch(buf)
	}

	if n > 0 {
		sc.RMean, sc.HMean = rSum/float64(n), hSum/float64(n)
	}
	return sc, nil
}

// cosines sets dst[i] to the dot product of q with node i's embedding
// (graph.Graph.Dot, float32 or int8 rows) and reports whether any is NaN or
// infinite.
func cosines(dst []float64, q []float32, g *graph.Graph) (bad bool) {
	for i := range dst {
		x := g.Dot(i, q)
		dst[i] = x
		bad = bad || x-x != 0 // NaN or ±Inf
	}
	return bad
}

// unit returns q scaled to unit length (a copy), or a zero vector.
func unit(q []float32) []float32 { return vec.Unit(q) }

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// bounds returns the least and greatest value of x (0, 0 when empty), by
// plain comparisons: x holds no NaN (BM25 scores).
func bounds(x []float64) (lo, hi float64) {
	if len(x) == 0 {
		return 0, 0
	}
	lo, hi = x[0], x[0]
	for _, v := range x {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}
