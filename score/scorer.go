package score

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/llm"
)

// Scorer scores queries over graphs. Set Config (the zero Config means
// AspectsConfig()), and Embedder for Score. Index, when set, must be the
// index of the graph being scored; when nil, the Scorer builds the index of
// the last graph it saw once and reuses it. A Scorer is safe for concurrent
// use and must not be copied after first use.
type Scorer struct {
	Config   Config
	Embedder llm.Embedder
	Index    *Index
	// KeywordFunc, when set, supplies Score's BM25 query keywords instead of
	// the rule-based Keywords (for example the paper's LLM keyword prompt,
	// METHOD A.1 / v1 B.1). Its words are tokenised, stop-listed and stemmed
	// like the rule-based ones. ScoreVector always uses the rule-based
	// keywords.
	KeywordFunc func(ctx context.Context, question string) ([]string, error)

	mu   sync.Mutex
	lazy *Index
}

// Score embeds the question (as an llm.Query, so embedders with task
// prefixes use the query prefix) and scores every node of g.
func (s *Scorer) Score(ctx context.Context, g *graph.Graph, question string) (*Scores, error) {
	if s.Embedder == nil {
		return nil, ErrNoEmbedder
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	vs, err := s.Embedder.Embed(ctx, []string{question}, llm.Query)
	if err != nil {
		return nil, fmt.Errorf("score: embedding the question: %w", err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("%w: got %d vectors for 1 text", ErrEmbed, len(vs))
	}
	var kw []string
	if s.KeywordFunc != nil && s.config().Alpha > 0 {
		words, err := s.KeywordFunc(ctx, question)
		if err != nil {
			return nil, fmt.Errorf("score: query keywords: %w", err)
		}
		kw = Keywords(strings.Join(words, " "))
		if kw == nil {
			kw = []string{} // the function found none: no rule-based fallback
		}
	}
	return s.scoreVector(g, question, vs[0], kw)
}

func (s *Scorer) config() Config {
	if s.Config == (Config{}) {
		return AspectsConfig()
	}
	return s.Config
}

// ScoreVector scores every node of g for a question whose embedding q is
// already known (it need not be unit length; a zero q gives cosines of 0).
// It fails with ErrDimension when len(q) ≠ g.Dim and ErrNaN when q holds a
// NaN or an infinity.
func (s *Scorer) ScoreVector(g *graph.Graph, question string, q []float32) (*Scores, error) {
	return s.scoreVector(g, question, q, nil)
}

// scoreVector scores with the given query keywords (nil: rule-based).
func (s *Scorer) scoreVector(g *graph.Graph, question string, q []float32, keywords []string) (*Scores, error) {
	c := s.config()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, ErrNilGraph
	}
	if len(q) != g.Dim {
		return nil, fmt.Errorf("%w: query has %d values, graph dimension %d", ErrDimension, len(q), g.Dim)
	}
	for i, x := range q {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("%w: value %d is %v", ErrNaN, i, x)
		}
	}
	ix, err := s.index(g)
	if err != nil {
		return nil, err
	}
	return compute(g, ix, c, question, q, keywords)
}

func (s *Scorer) index(g *graph.Graph) (*Index, error) {
	if s.Index != nil {
		if s.Index.g != g {
			return nil, ErrIndex
		}
		return s.Index, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lazy == nil || s.lazy.g != g {
		s.lazy = NewIndex(g)
	}
	return s.lazy, nil
}

// compute is the scoring proper; its inputs are valid, except that the
// graph's embeddings are only checked through the cosines they give.
func compute(g *graph.Graph, ix *Index, c Config, question string, q []float32, keywords []string) (*Scores, error) {
	n := g.Len()
	buf := ix.getScratch()
	defer ix.putScratch(buf)
	if keywords == nil {
		keywords = Keywords(question)
	}
	sc := &Scores{
		Query:    unit(q),
		Keywords: keywords,
		Refs:     ExtractRefs(question),
		Cos:      make([]float64, n),
		R:        make([]float64, n),
		H:        make([]float64, n),
	}

	// One pass over the contiguous embeddings; a zero query has cosine 0
	// with every node and needs no pass.
	if !isZero(sc.Query) {
		var bad bool
		if c.Parallel && n*g.Dim >= parallelMinCos {
			// Each cosine is its own dot product: halves on two goroutines
			// give the same values.
			h := n / 2
			var bad2 bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				bad2 = cosines(sc.Cos[h:], sc.Query, g.Emb[h*g.Dim:], g.Dim)
			}()
			bad = cosines(sc.Cos[:h], sc.Query, g.Emb[:h*g.Dim], g.Dim)
			<-done
			bad = bad || bad2
		} else {
			bad = cosines(sc.Cos, sc.Query, g.Emb, g.Dim)
		}
		// graph.New and graph.Read reject NaN, but a Graph is a plain struct;
		// checking n cosines is cheaper than checking n·d values.
		if bad {
			for i, x := range sc.Cos {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("%w: embedding of node %d", ErrNaN, i)
				}
			}
		}
	}

	// BM25 is min–max normalised over the nodes. Its scan for the bounds is
	// one pass; the rescaling is done in the relevance pass below. With
	// lo = 0 (some node has none of the query's terms, the usual case) a
	// zero stays (0 − 0)/(hi − 0) = 0, so only non-zero scores are divided.
	var lo, span float64
	scale := false
	if c.Alpha > 0 {
		sc.BM25 = make([]float64, n)
		if ix.bm25(sc.BM25, sc.Keywords, c.K1, c.B) {
			var hi float64
			lo, hi = bounds(sc.BM25)
			if hi > lo {
				scale, span = true, hi-lo
			} else {
				clear(sc.BM25)
			}
		}
	}
	refs := false
	if c.RhoRef > 0 {
		sc.Ref = make([]float64, n)
		refs = ix.refMatch(sc.Ref, sc.Refs)
	}

	// One pass for r, its sum and its maximum. Terms that are 0 for every
	// node (no reference matched) are not added: adding +0 would not change
	// r, which is (1 − α)·max(cos, 0) ≥ +0 or raw and then clipped.
	rSum := 0.0 // for RMean, summed in index order as mean does
	rMax := 0.0
	for i := range sc.R {
		d := sc.Cos[i]
		if !c.RawCos {
			d = max(d, 0)
		}
		r := (1 - c.Alpha) * d
		if sc.BM25 != nil {
			b := sc.BM25[i]
			if scale && (b != 0 || lo != 0) {
				b = (b - lo) / span // a division, so that the maximum is exactly 1
				sc.BM25[i] = b
			}
			r += c.Alpha * b
		}
		if refs {
			r += c.RhoRef * sc.Ref[i]
		}
		r = min(max(r, 0), 1)
		sc.R[i] = r
		rSum += r
		if r > rMax { // r ≥ +0 and not NaN here: the builtin max's checks are not needed
			rMax = r
		}
	}

	hSum := 0.0 // for HMean, summed in index order as mean does
	switch c.H {
	case HNormalised:
		m := rMax
		if m > 0 {
			for i, r := range sc.R {
				h := r / m // a division, so that max h is exactly 1
				sc.H[i] = h
				hSum += h
			}
		}
	case HFusion:
		if c.usesPhi() || c.usesPsi() {
			a := ix.adjacency(c.RMin, c.PhiEps)
			var buf2 *scratch
			if c.Parallel {
				buf2 = ix.getScratch()
				defer ix.putScratch(buf2)
			}
			sc.Phi, sc.PhiSweeps, sc.Psi, sc.PsiSweeps = classicSignals(a, sc.R, c, c.usesPhi(), c.usesPsi(), buf, buf2)
		}
		for i := range sc.H {
			h := c.LambdaR * sc.R[i]
			if sc.Phi != nil {
				h += c.LambdaPhi * sc.Phi[i]
			}
			if sc.Psi != nil {
				h += c.LambdaPsi * sc.Psi[i]
			}
			h = min(max(h, 0), 1)
			sc.H[i] = h
			hSum += h
		}
	}

	if c.Sinks > 0 {
		sc.A = answerability(g, ix, sc.R, c.VisualBonus)
		sc.Sinks = topK(sc.A, c.Sinks, nil)
	}
	if c.Sources > 0 {
		var cand []int
		if c.MMRCandidates > 0 && c.MMRCandidates < n {
			cand = topK(sc.H, c.MMRCandidates, nil)
		}
		sc.Sources, _ = mmrBuf(g, sc.H, [][]float64{sc.Cos, ix.meanCos}, cand, c.Sources, c.MMRLambda, buf)
	}

	if n > 0 {
		sc.RMean, sc.HMean = rSum/float64(n), hSum/float64(n)
	}
	return sc, nil
}

// parallelMinCos is the fewest multiply-adds (nodes × dimension) for which
// Config.Parallel splits the cosine pass over two goroutines (a variable
// for the tests).
var parallelMinCos = 1 << 19

// cosines sets dst[i] to the dot product of q with the i-th embedding of
// emb (dimension d) and reports whether any is NaN or infinite.
func cosines(dst []float64, q, emb []float32, d int) (bad bool) {
	for i := range dst {
		x := vec.Dot(q, emb[i*d:(i+1)*d])
		dst[i] = x
		bad = bad || x-x != 0 // NaN or ±Inf
	}
	return bad
}

// unit returns q scaled to unit length (a copy), or a zero vector.
func unit(q []float32) []float32 {
	u := make([]float32, len(q))
	s := 0.0
	for _, x := range q {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return u
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range q {
		u[i] = float32(float64(x) * inv)
	}
	return u
}

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
