package local

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local/internal/glovedata"
)

// dimension is the dimension of the embedded vectors.
const dimension = 100

// defaultA is the SIF smoothing constant a.
const defaultA = 1e-3

// zipfN is the vocabulary size of GloVe 6B, which normalises the Zipf
// estimate of word probabilities.
const zipfN = 400000

// decodeOnce decodes the embedded table once per process, on first use;
// later calls return the same table (or the same error).
var decodeOnce = sync.OnceValues(func() (*wordTable, error) { return decode(glovedata.Data()) })

// gloVe is the embedded SIF-weighted GloVe embedder (see the package doc).
// It implements llm.Embedder and llm.Namer and is safe for concurrent use.
type gloVe struct {
	a    float64 // SIF smoothing constant
	keep bool    // keep stop words in the weighted mean
	hN   float64
	stop map[string]bool
}

// Embedder returns the embedder: a = 1e-3, stop words dropped. The vector
// table is decoded on the first Embed call, once per process.
func Embedder() llm.Embedder { return newGloVe(defaultA, false) }

// newGloVe returns an embedder with SIF constant a (non-positive or
// non-finite means defaultA) that keeps stop words when keep is set (SIF
// already down-weights them; dropping them removes their residual pull).
func newGloVe(a float64, keep bool) *gloVe {
	if a <= 0 || math.IsNaN(a) || math.IsInf(a, 0) {
		a = defaultA
	}
	n := float64(zipfN)
	return &gloVe{a: a, keep: keep, hN: math.Log(n) + 0.5772156649015329 + 1/(2*n), stop: stopSet()}
}

// Name is "glove-6b-100d-sif", with any non-default option appended, so that
// vectors made with different settings never share a graph or a cache.
func (g *gloVe) Name() string {
	name := "glove-6b-100d-sif"
	if g.a != defaultA {
		name += "-a" + strconv.FormatFloat(g.a, 'g', -1, 64)
	}
	if g.keep {
		name += "-stop"
	}
	return name
}

// Dimension returns 100.
func (g *gloVe) Dimension() int { return dimension }

// table returns the decoded embedded table.
func table() (*wordTable, error) {
	t, err := decodeOnce()
	if err != nil {
		return nil, err
	}
	if t.Dim() != dimension {
		return nil, fmt.Errorf("%w: dimension %d, want %d", errFormat, t.Dim(), dimension)
	}
	return t, nil
}

// weight returns the SIF weight a/(a + p(w)) of a word of frequency rank r.
func (g *gloVe) weight(rank int) float64 {
	p := 1 / (float64(rank) * g.hN)
	return g.a / (g.a + p)
}

// Embed returns one L2-normalised sentence vector per text; kind is ignored
// (GloVe has no task prefixes). A text without known words gives the zero
// vector. The first call decodes the embedded table and, should that fail,
// returns the failure, as every later call does: a program that wants to
// fail early calls Embed with no texts.
func (g *gloVe) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	t, err := table()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	acc := make([]float64, dimension)
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = g.sentence(t, text, acc)
	}
	return out, nil
}

// sentence computes the SIF vector of text, using acc as scratch space.
func (g *gloVe) sentence(t *wordTable, text string, acc []float64) []float32 {
	clear(acc)
	toks := tokens(text)
	n := 0
	for _, w := range toks {
		if !g.keep && g.stop[w] {
			continue
		}
		if r := t.Rank(w); r > 0 {
			t.addTo(acc, r-1, g.weight(r))
			n++
		}
	}
	if n == 0 && !g.keep {
		// Only stop words are known ("to be or not to be"): use them rather
		// than return nothing.
		for _, w := range toks {
			if r := t.Rank(w); r > 0 {
				t.addTo(acc, r-1, g.weight(r))
			}
		}
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	v := make([]float32, dimension)
	if norm == 0 {
		return v
	}
	norm = math.Sqrt(norm)
	for j, x := range acc {
		v[j] = float32(x / norm)
	}
	return v
}

// oov returns the distinct tokens of text that are not in the vocabulary, in
// order of first appearance. Their meaning is invisible to the dense
// channel; the lexical one must carry them.
func (g *gloVe) oov(text string) ([]string, error) {
	t, err := table()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range tokens(text) {
		if t.Rank(w) == 0 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

// vector returns the (dequantised, unnormalised) GloVe vector of one word,
// lowercased.
func (g *gloVe) vector(word string) ([]float32, bool) {
	t, err := table()
	if err != nil {
		return nil, false
	}
	toks := tokens(word)
	if len(toks) != 1 {
		return nil, false
	}
	return t.Vector(toks[0])
}

var (
	_ llm.Embedder = (*gloVe)(nil)
	_ llm.Namer    = (*gloVe)(nil)
)
