package fake

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/flowreader/flowreader/llm"
)

// DefaultDim is the dimension of an Embedder whose Dim is zero.
const DefaultDim = 64

// Embedder is a deterministic feature-hashing llm.Embedder (see the package
// doc). The zero value is ready to use with DefaultDim buckets.
type Embedder struct {
	// Dim is the vector dimension; 0 means DefaultDim.
	Dim int
	// Err, when set, is returned by every call (after Latency).
	Err error
	// Latency delays every call; a cancelled context ends the wait early.
	Latency time.Duration

	mu    sync.Mutex
	calls int
	texts int
}

// Dimension returns the vector length. It implements llm.Embedder.
func (e *Embedder) Dimension() int {
	if e.Dim <= 0 {
		return DefaultDim
	}
	return e.Dim
}

// Name identifies the embedder and its dimension. It implements llm.Namer.
func (e *Embedder) Name() string { return fmt.Sprintf("fake-hash-%d", e.Dimension()) }

// Embed hashes each text into a vector. kind is ignored, so a query and a
// document with the same words get the same vector.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	e.mu.Lock()
	e.calls++
	e.texts += len(texts)
	e.mu.Unlock()
	if e.Latency > 0 {
		t := time.NewTimer(e.Latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	} else if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.Err != nil {
		return nil, e.Err
	}
	dim := e.Dimension()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = Hash(t, dim)
	}
	return out, nil
}

// Calls returns the number of Embed calls so far.
func (e *Embedder) Calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// Texts returns the number of texts passed to Embed so far.
func (e *Embedder) Texts() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

// Hash returns the L2-normalised feature-hashing vector of text with dim
// buckets; the zero vector when text has no tokens.
func Hash(text string, dim int) []float32 {
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

var (
	_ llm.Embedder = (*Embedder)(nil)
	_ llm.Namer    = (*Embedder)(nil)
)
