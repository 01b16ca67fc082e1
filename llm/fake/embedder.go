package fake

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/flowreader/flowreader/llm"
)

// defaultDim is the dimension of an Embedder whose Dim is zero.
const defaultDim = 64

// Embedder is a deterministic feature-hashing llm.Embedder (see the package
// doc). The zero value is ready to use with 64 buckets. It is safe for
// concurrent use.
type Embedder struct {
	// Dim is the vector dimension; 0 means 64.
	Dim int
	// Err, when set, is returned by every call (after Latency).
	Err error
	// Latency delays every call; a cancelled context ends the wait early.
	Latency time.Duration
}

// Dimension returns the vector length.
func (e *Embedder) Dimension() int {
	if e.Dim <= 0 {
		return defaultDim
	}
	return e.Dim
}

// Embed hashes each text into a vector. kind is ignored, so a query and a
// document with the same words get the same vector.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	if err := wait(ctx, e.Latency); err != nil {
		return nil, err
	}
	if e.Err != nil {
		return nil, e.Err
	}
	dim := e.Dimension()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hash(t, dim)
	}
	return out, nil
}

// wait sleeps for d, or returns ctx's error when it ends first (at once when
// it has already ended).
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// hash returns the L2-normalised feature-hashing vector of text with dim
// buckets; the zero vector when text has no tokens.
func hash(text string, dim int) []float32 {
	v := make([]float32, dim)
	if dim <= 0 {
		return v
	}
	acc := make([]float64, dim)
	for _, tok := range tokens(text) {
		h := fnv.New64a()
		h.Write([]byte(tok))
		s := h.Sum64()
		sign := 1.0
		if s>>63 == 1 {
			sign = -1
		}
		acc[s%uint64(dim)] += sign
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 {
		return v
	}
	norm = math.Sqrt(norm)
	for i, x := range acc {
		v[i] = float32(x / norm)
	}
	return v
}

// tokens lowercases s and splits it on every rune that is neither a letter
// nor a digit.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

var _ llm.Embedder = (*Embedder)(nil)
