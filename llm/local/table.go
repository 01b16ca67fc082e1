package local

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
)

// errFormat: the vector file is not in the format written by tools/glove.
var errFormat = errors.New("local: bad vector file")

const (
	magic      = "FRGLOVE\x01"
	headerSize = len(magic) + 12
)

// wordTable is a decoded word-vector file: words in frequency order, one int8
// vector and scale per word. It is immutable and safe for concurrent use.
type wordTable struct {
	dim    int
	words  []string
	index  map[string]int32
	scales []float32
	q      string // int8 components, word after word
}

// decode parses a file in the format documented in tools/glove (magic,
// dim, count, vocabulary, scales, int8 components, CRC-32). Words and
// components are sliced out of data without copying. Malformed input wraps
// errFormat.
func decode(data string) (*wordTable, error) {
	if len(data) < headerSize+4 || data[:len(magic)] != magic {
		return nil, fmt.Errorf("%w: missing header", errFormat)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32([]byte(data[len(data)-4:]))
	if checksum(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errFormat)
	}
	h := []byte(data[len(magic):headerSize])
	dim := int(binary.LittleEndian.Uint32(h[0:]))
	count := int(binary.LittleEndian.Uint32(h[4:]))
	vocabLen := int(binary.LittleEndian.Uint32(h[8:]))
	if dim <= 0 || dim > 1<<16 || count <= 0 || count > 1<<24 || vocabLen < 0 {
		return nil, fmt.Errorf("%w: dim %d, count %d", errFormat, dim, count)
	}
	if want := int64(headerSize) + int64(vocabLen) + 4*int64(count) + int64(dim)*int64(count); want != int64(len(body)) {
		return nil, fmt.Errorf("%w: %d bytes, header implies %d", errFormat, len(body), want)
	}
	off := headerSize
	vocab := body[off : off+vocabLen]
	off += vocabLen
	t := &wordTable{dim: dim, words: make([]string, 0, count), index: make(map[string]int32, count)}
	for w := range strings.SplitSeq(vocab, "\n") {
		if w == "" {
			return nil, fmt.Errorf("%w: empty word at rank %d", errFormat, len(t.words)+1)
		}
		if _, dup := t.index[w]; dup {
			return nil, fmt.Errorf("%w: duplicate word %q", errFormat, w)
		}
		if len(t.words) == count {
			return nil, fmt.Errorf("%w: more than %d words", errFormat, count)
		}
		t.index[w] = int32(len(t.words))
		t.words = append(t.words, w)
	}
	if len(t.words) != count {
		return nil, fmt.Errorf("%w: %d words, header says %d", errFormat, len(t.words), count)
	}
	t.scales = make([]float32, count)
	for i := range t.scales {
		s := math.Float32frombits(binary.LittleEndian.Uint32([]byte(body[off+4*i : off+4*i+4])))
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return nil, fmt.Errorf("%w: scale of %q is %v", errFormat, t.words[i], s)
		}
		t.scales[i] = s
	}
	off += 4 * count
	t.q = body[off:]
	return t, nil
}

// Dim returns the vector dimension.
func (t *wordTable) Dim() int { return t.dim }

// Len returns the number of words.
func (t *wordTable) Len() int { return len(t.words) }

// Word returns the word of frequency rank i+1.
func (t *wordTable) Word(i int) string { return t.words[i] }

// Rank returns the 1-based frequency rank of w, or 0 when w is unknown.
func (t *wordTable) Rank(w string) int {
	i, ok := t.index[w]
	if !ok {
		return 0
	}
	return int(i) + 1
}

// Vector returns the dequantised vector of w.
func (t *wordTable) Vector(w string) ([]float32, bool) {
	i, ok := t.index[w]
	if !ok {
		return nil, false
	}
	v := make([]float32, t.dim)
	s := t.scales[i]
	q := t.q[int(i)*t.dim : (int(i)+1)*t.dim]
	for j := range v {
		v[j] = s * float32(int8(q[j]))
	}
	return v, true
}

// addTo adds weight·v_i to acc.
func (t *wordTable) addTo(acc []float64, i int, weight float64) {
	if len(acc) < t.dim {
		return
	}
	s := weight * float64(t.scales[i])
	q := t.q[i*t.dim : (i+1)*t.dim]
	for j := range t.dim {
		acc[j] += s * float64(int8(q[j]))
	}
}

// checksum is the CRC-32 (IEEE) of s, computed through a small buffer so
// that the 11 MB embedded string is not copied whole.
func checksum(s string) uint32 {
	var buf [64 << 10]byte
	var c uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		c = crc32.Update(c, crc32.IEEETable, buf[:n])
		s = s[n:]
	}
	return c
}
