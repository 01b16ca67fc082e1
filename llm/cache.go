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

	"github.com/flowreader/flowreader/internal/llmutil"
)

// cacheVersion is part of every key: bump it when the key or entry format
// changes, and old entries simply stop matching.
const cacheVersion = "flowreader-llm-cache-v1"

// requestKey is the cache key of req sent to a model called name: the hex
// SHA-256 of the version tag, the name and the canonical JSON encoding of
// the whole request. Struct fields encode in declaration order, so equal
// requests give equal keys.
func requestKey(name string, req *Request) (string, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(cacheVersion + "\nmodel\n" + strconv.Quote(name) + "\n"))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// embedKey is the cache key of one text embedded as kind by an embedder
// called name with dimension dim.
func embedKey(name string, dim int, kind Kind, text string) string {
	h := sha256.New()
	h.Write([]byte(cacheVersion + "\nembed\n" + strconv.Quote(name) + "\n" +
		strconv.Itoa(dim) + "\n" + kindName(kind) + "\n"))
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

type cacheEntry struct {
	Key      string    `json:"key"`
	Response *Response `json:"response"`
}

// cachedModel answers f's requests from s (see Wrap).
func cachedModel(f call[*Request, *Response], name string, s Store) call[*Request, *Response] {
	return func(ctx context.Context, req *Request) (*Response, error) {
		key, resp := cacheLookup(name, req, s)
		if resp != nil {
			return resp, nil
		}
		resp, err := f(ctx, req)
		if err != nil {
			return nil, err
		}
		if key != "" {
			cacheStore(s, key, resp)
		}
		return resp, nil
	}
}

// cacheLookup returns req's key ("" when it has none: the request does not
// encode, and is not cached) and the stored answer, nil on a miss.
func cacheLookup(name string, req *Request, s Store) (string, *Response) {
	key, err := requestKey(name, req)
	if err != nil {
		return "", nil
	}
	if b, ok := s.Get(key); ok {
		var e cacheEntry
		if json.Unmarshal(b, &e) == nil && e.Key == key && e.Response != nil && incomplete(req, e.Response) == "" {
			return key, e.Response
		}
	}
	return key, nil
}

// cacheStore stores a successful answer; a failed write costs a repeated
// call later, not this one.
func cacheStore(s Store, key string, resp *Response) {
	if b, err := json.Marshal(cacheEntry{Key: key, Response: resp}); err == nil {
		_ = s.Put(key, b)
	}
}

// cachedEmbedder answers f's texts from s (see WrapEmbedder); e is the
// embedder f calls, which names the entries and gives their dimension.
func cachedEmbedder(f call[batch, [][]float32], e Embedder, s Store) call[batch, [][]float32] {
	name := nameOf(e)
	keyDim := e.Dimension()
	return func(ctx context.Context, b batch) ([][]float32, error) {
		texts, kind := b.texts, b.kind
		dim := e.Dimension()
		out := make([][]float32, len(texts))
		keys := make([]string, len(texts))
		var missIdx []int
		var missTexts []string
		for i, t := range texts {
			keys[i] = embedKey(name, keyDim, kind, t)
			if b, ok := s.Get(keys[i]); ok {
				if v, ok := decodeVector(b, dim, keys[i]); ok {
					out[i] = v
					continue
				}
			}
			if keyDim != 0 {
				k0 := embedKey(name, 0, kind, t)
				if b, ok := s.Get(k0); ok {
					if v, ok := decodeVector(b, dim, k0); ok {
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
		vecs, err := f(ctx, batch{missTexts, kind})
		if err != nil {
			return nil, err
		}
		if err := llmutil.CheckVectors(vecs, len(missTexts), dim); err != nil {
			return nil, err
		}
		for j, i := range missIdx {
			out[i] = vecs[j]
			_ = s.Put(keys[i], encodeVector(keys[i], vecs[j]))
		}
		return out, nil
	}
}

// A cached vector is the entry's key (64 hex digits), its float32
// components little-endian, then the CRC-32 (IEEE) of all of those bytes:
// an entry copied to another key's file is refused, not answered for the
// wrong text.
func encodeVector(key string, v []float32) []byte {
	b := make([]byte, len(key)+4*len(v)+4)
	copy(b, key)
	x := b[len(key):]
	for i, f := range v {
		binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(f))
	}
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32.ChecksumIEEE(b[:n]))
	return b
}

func decodeVector(b []byte, dim int, key string) ([]float32, bool) {
	if len(b) < len(key)+8 || string(b[:len(key)]) != key {
		return nil, false
	}
	sum, x := b[len(b)-4:], b[len(key):len(b)-4]
	if len(x)%4 != 0 || dim > 0 && len(x) != 4*dim {
		return nil, false
	}
	if !bytes.Equal(sum, binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(b[:len(b)-4]))) {
		return nil, false
	}
	v := make([]float32, len(x)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(x[4*i:]))
		if math.IsNaN(float64(v[i])) || math.IsInf(float64(v[i]), 0) {
			return nil, false
		}
	}
	return v, true
}
