package local

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local/glovedata"
)

// Dim is the dimension of the embedded vectors.
const Dim = 100

// DefaultA is the SIF smoothing constant a.
const DefaultA = 1e-3

// ZipfN is the vocabulary size of GloVe 6B, used to normalise the Zipf
// estimate of word probabilities.
const ZipfN = 400000

// load decodes the embedded table once per process, on first use; later
// calls return the same table (or the same error).
var load = sync.OnceValues(func() (*Table, error) { return Decode(glovedata.Data()) })

// Config tunes the embedder. The zero value is the documented default.
type Config struct {
	// A is the SIF smoothing constant; 0 means DefaultA.
	A float64
	// KeepStopWords keeps stop words in the weighted mean (SIF already
	// down-weights them; dropping them removes their residual pull).
	KeepStopWords bool
}

// GloVe is the embedded SIF-weighted GloVe embedder. It implements
// llm.Embedder and llm.Namer and is safe for concurrent use.
type GloVe struct {
	a    float64
	keep bool
	hN   float64
	stop map[string]bool
}

// Embedder returns the default embedder (a = 1e-3, stop words dropped).
func Embedder() *GloVe { return New(Config{}) }

// New returns an embedder with cfg. The vector table is decoded on first
// use, once per process.
func New(cfg Config) *GloVe {
	a := cfg.A
	if a <= 0 || math.IsNaN(a) || math.IsInf(a, 0) {
		a = DefaultA
	}
	n := float64(ZipfN)
	return &GloVe{a: a, keep: cfg.KeepStopWords, hN: math.Log(n) + 0.5772156649015329 + 1/(2*n), stop: stopSet()}
}

// Name is "glove-6b-100d-sif", with any non-default option appended, so that
// vectors made with different settings never share a graph or a cache.
func (g *GloVe) Name() string {
	name := "glove-6b-100d-sif"
	if g.a != DefaultA {
		name += "-a" + strconv.FormatFloat(g.a, 'g', -1, 64)
	}
	if g.keep {
		name += "-stop"
	}
	return name
}

// Dimension returns Dim.
func (g *GloVe) Dimension() int { return Dim }

// Load decodes the embedded table now (it is otherwise decoded on first use)
// and reports a decoding failure.
func (g *GloVe) Load() error {
	_, err := table()
	return err
}

func table() (*Table, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	if t.Dim() != Dim {
		return nil, fmt.Errorf("%w: dimension %d, want %d", ErrFormat, t.Dim(), Dim)
	}
	return t, nil
}

// Weight returns the SIF weight a/(a + p(w)) of a word of frequency rank r.
func (g *GloVe) Weight(rank int) float64 {
	p := 1 / (float64(rank) * g.hN)
	return g.a / (g.a + p)
}

// Embed returns one L2-normalised sentence vector per text; kind is ignored
// (GloVe has no task prefixes). A text without known words gives the zero
// vector.
func (g *GloVe) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	t, err := table()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	acc := make([]float64, Dim)
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
func (g *GloVe) sentence(t *Table, text string, acc []float64) []float32 {
	clear(acc)
	toks := Tokens(text)
	n := 0
	for _, w := range toks {
		if !g.keep && g.stop[w] {
			continue
		}
		if r := t.Rank(w); r > 0 {
			t.addTo(acc, r-1, g.Weight(r))
			n++
		}
	}
	if n == 0 && !g.keep {
		// Only stop words are known ("to be or not to be"): use them rather
		// than return nothing.
		for _, w := range toks {
			if r := t.Rank(w); r > 0 {
				t.addTo(acc, r-1, g.Weight(r))
			}
		}
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	v := make([]float32, Dim)
	if norm == 0 {
		return v
	}
	norm = math.Sqrt(norm)
	for j, x := range acc {
		v[j] = float32(x / norm)
	}
	return v
}

// OOV returns the distinct tokens of text that are not in the vocabulary, in
// order of first appearance. Their meaning is invisible to the dense
// channel; the lexical one must carry them.
func (g *GloVe) OOV(text string) ([]string, error) {
	t, err := table()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range Tokens(text) {
		if t.Rank(w) == 0 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

// Vector returns the (dequantised, unnormalised) GloVe vector of one word,
// lowercased.
func (g *GloVe) Vector(word string) ([]float32, bool) {
	t, err := table()
	if err != nil {
		return nil, false
	}
	toks := Tokens(word)
	if len(toks) != 1 {
		return nil, false
	}
	return t.Vector(toks[0])
}

var (
	_ llm.Embedder = (*GloVe)(nil)
	_ llm.Namer    = (*GloVe)(nil)
)
