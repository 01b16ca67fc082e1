package llm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"

	"github.com/flowreader/flowreader/internal/llmutil"
)

// Reranker scores texts by their relevance to a query, reading each text
// together with the query as a cross-encoder does: one score per text, in
// input order, in [0, 1], larger meaning more relevant. Implementations
// must be safe for concurrent use. Package llm/openai's Reranker speaks the
// /rerank protocol that vLLM, Hugging Face TEI and Infinity serve.
type Reranker interface {
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
}

// rerankArg is the argument of one Rerank call.
type rerankArg struct {
	query string
	texts []string
}

// wrappedReranker is what WrapReranker returns.
type wrappedReranker struct {
	inner  Reranker
	rerank call[rerankArg, []float64]
}

func (w *wrappedReranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	return w.rerank(ctx, rerankArg{query, texts})
}

// Name forwards to the wrapped reranker; "" when it has no name.
func (w *wrappedReranker) Name() string { return nameOf(w.inner) }

// MaxBatch forwards to the wrapped reranker; 0 when it does not say.
func (w *wrappedReranker) MaxBatch() int {
	if b, ok := w.inner.(BatchSizer); ok {
		return b.MaxBatch()
	}
	return 0
}

// Unwrap returns the wrapped reranker.
func (w *wrappedReranker) Unwrap() Reranker { return w.inner }

// WrapReranker is [Wrap] for a [Reranker]: retries, concurrency and rate
// limits per Rerank call, and with a cache, each text already scored for
// the same query by the same reranker (its Name is part of the key) is
// answered from the store; only the misses are sent on, in one call and in
// order, and their scores are checked (count, finite, in [0, 1]) before
// they are stored. The wrapper keeps r's [Namer] and [BatchSizer].
func WrapReranker(r Reranker, mw Middleware) Reranker {
	f, wrapped := layers(func(ctx context.Context, a rerankArg) ([]float64, error) {
		return r.Rerank(ctx, a.query, a.texts)
	}, mw)
	if mw.Cache != nil {
		f, wrapped = cachedReranker(f, nameOf(r), mw.Cache), true
	}
	if !wrapped {
		return r
	}
	return &wrappedReranker{inner: r, rerank: f}
}

// checkScores validates a reranker's scores for n texts (see Reranker);
// a violation wraps ErrInvalidOutput.
func checkScores(s []float64, n int) error {
	if len(s) != n {
		return fmt.Errorf("%w: %d scores for %d texts", llmutil.ErrInvalidOutput, len(s), n)
	}
	for i, x := range s {
		if math.IsNaN(x) || x < 0 || x > 1 {
			return fmt.Errorf("%w: score %d is %v, outside [0, 1]", llmutil.ErrInvalidOutput, i, x)
		}
	}
	return nil
}

// rerankKey is the cache key of text scored for query by a reranker
// called name.
func rerankKey(name, query, text string) string {
	h := sha256.New()
	h.Write([]byte(cacheVersion + "\nrerank\n" + strconv.Quote(name) + "\n" + strconv.Itoa(len(query)) + "\n"))
	h.Write([]byte(query))
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// cachedReranker answers f's texts from s (see WrapReranker). An entry is
// the key, the score's float64 bits little-endian and the CRC-32 (IEEE) of
// both, so that an entry copied to another key is refused.
func cachedReranker(f call[rerankArg, []float64], name string, s Store) call[rerankArg, []float64] {
	return func(ctx context.Context, a rerankArg) ([]float64, error) {
		out := make([]float64, len(a.texts))
		keys := make([]string, len(a.texts))
		var missIdx []int
		var missTexts []string
		for i, t := range a.texts {
			keys[i] = rerankKey(name, a.query, t)
			if b, ok := s.Get(keys[i]); ok {
				if v, ok := decodeScore(b, keys[i]); ok {
					out[i] = v
					continue
				}
			}
			missIdx = append(missIdx, i)
			missTexts = append(missTexts, t)
		}
		if len(missTexts) == 0 {
			return out, nil
		}
		scores, err := f(ctx, rerankArg{a.query, missTexts})
		if err != nil {
			return nil, err
		}
		if err := checkScores(scores, len(missTexts)); err != nil {
			return nil, err
		}
		for j, i := range missIdx {
			out[i] = scores[j]
			_ = s.Put(keys[i], encodeScore(keys[i], scores[j]))
		}
		return out, nil
	}
}

func encodeScore(key string, x float64) []byte {
	b := binary.LittleEndian.AppendUint64([]byte(key), math.Float64bits(x))
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func decodeScore(b []byte, key string) (float64, bool) {
	if len(b) != len(key)+12 || string(b[:len(key)]) != key {
		return 0, false
	}
	if binary.LittleEndian.Uint32(b[len(b)-4:]) != crc32.ChecksumIEEE(b[:len(b)-4]) {
		return 0, false
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(b[len(key):]))
	if math.IsNaN(x) || x < 0 || x > 1 {
		return 0, false
	}
	return x, true
}
