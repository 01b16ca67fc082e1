package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"math"
	"strconv"
)

// cacheVersion is part of every key: bump it when the key or entry format
// changes, and old entries simply stop matching.
const cacheVersion = "flowreader-llm-cache-v1"

// RequestKey returns the cache key of req sent to a model called name: the
// hex SHA-256 of the version tag, the name and the canonical JSON encoding of
// the whole request (messages with image bytes, sampling parameters, schema,
// seed). Struct fields encode in declaration order, so equal requests give
// equal keys.
func RequestKey(name string, req *Request) (string, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(cacheVersion + "\nmodel\n" + strconv.Quote(name) + "\n"))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// EmbedKey returns the cache key of one text embedded as kind by an embedder
// called name with dimension dim.
func EmbedKey(name string, dim int, kind Kind, text string) string {
	h := sha256.New()
	h.Write([]byte(cacheVersion + "\nembed\n" + strconv.Quote(name) + "\n" +
		strconv.Itoa(dim) + "\n" + kind.String() + "\n"))
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

type cacheEntry struct {
	Key      string    `json:"key"`
	Response *Response `json:"response"`
}

// Cache wraps m so that a request equal to an earlier one (see RequestKey;
// the model's Name is part of the key) is answered from s without calling m.
// Only successful responses are stored. An entry that does not decode, or
// that was stored under another key, is treated as a miss and overwritten.
// A failed write is ignored: it costs a repeated call later, not this one.
//
// Caching is exact: a request with temperature > 0 is answered with the first
// sample ever drawn, which is what a resumable graph build wants. Settings
// held by the adapter rather than the request (for example openai.Config's
// Extra body fields) are not part of the key: use another store when
// changing them. Concurrent identical misses each call m.
func Cache(m Model, s Store) Model {
	name := nameOf(m)
	return wrapModel(m, func(ctx context.Context, req *Request) (*Response, error) {
		key, err := RequestKey(name, req)
		if err != nil {
			return m.Generate(ctx, req)
		}
		if b, ok := s.Get(key); ok {
			var e cacheEntry
			if json.Unmarshal(b, &e) == nil && e.Key == key && e.Response != nil {
				return e.Response, nil
			}
		}
		resp, err := m.Generate(ctx, req)
		if err != nil {
			return nil, err
		}
		if b, err := json.Marshal(cacheEntry{Key: key, Response: resp}); err == nil {
			_ = s.Put(key, b)
		}
		return resp, nil
	})
}

// CacheEmbedder wraps e so that each text already embedded with the same
// kind by the same embedder (Name and Dimension are part of the key) is
// answered from s; only the misses of a batch are sent to e, in one call and
// in order. Entries carry a checksum; a corrupted or wrong-sized entry is a
// miss.
//
// The dimension in the key is the one e reports when CacheEmbedder is
// called, not at each call: an embedder that learns its dimension from its
// first answer (Dimension 0 until then) would otherwise key its first batch
// differently from the rest, and a resumed build, whose fresh embedder
// reports 0 again, would miss every later entry. A wrapper made after e
// learnt its dimension also looks under the dimension-0 key.
func CacheEmbedder(e Embedder, s Store) Embedder {
	name := nameOf(e)
	keyDim := e.Dimension()
	return wrapEmbedder(e, func(ctx context.Context, texts []string, kind Kind) ([][]float32, error) {
		dim := e.Dimension()
		out := make([][]float32, len(texts))
		keys := make([]string, len(texts))
		var missIdx []int
		var missTexts []string
		for i, t := range texts {
			keys[i] = EmbedKey(name, keyDim, kind, t)
			if b, ok := s.Get(keys[i]); ok {
				if v, ok := decodeVector(b, dim); ok {
					out[i] = v
					continue
				}
			}
			if keyDim != 0 {
				if b, ok := s.Get(EmbedKey(name, 0, kind, t)); ok {
					if v, ok := decodeVector(b, dim); ok {
						out[i] = v
						continue
					}
				}
			}
			missIdx = append(missIdx, i)
			missTexts = append(missTexts, t)
		}
		if len(missTexts) == 0 {
			return out, nil
		}
		vecs, err := e.Embed(ctx, missTexts, kind)
		if err != nil {
			return nil, err
		}
		if err := CheckVectors(vecs, len(missTexts), dim); err != nil {
			return nil, err
		}
		for j, i := range missIdx {
			out[i] = vecs[j]
			_ = s.Put(keys[i], encodeVector(vecs[j]))
		}
		return out, nil
	})
}

// A cached vector is its float32 components little-endian followed by the
// CRC-32 (IEEE) of those bytes.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v)+4)
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	binary.LittleEndian.PutUint32(b[4*len(v):], crc32.ChecksumIEEE(b[:4*len(v)]))
	return b
}

func decodeVector(b []byte, dim int) ([]float32, bool) {
	if len(b) < 8 || len(b)%4 != 0 || dim > 0 && len(b) != 4*dim+4 {
		return nil, false
	}
	n := len(b)/4 - 1
	if !bytes.Equal(b[4*n:], binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(b[:4*n]))) {
		return nil, false
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(v[i])) || math.IsInf(float64(v[i]), 0) {
			return nil, false
		}
	}
	return v, true
}
