package score

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
	"github.com/flowreader/flowreader/internal/vec"
)

// The dense pass above exactKeep nodes has two sources of candidates: the
// beam search over the kNN adjacency and a scan of sign-bit sketches. The
// beam search alone cannot reach a region of the embedding space that is
// joined to the rest of the graph by no kNN edge and holds none of the
// evenly spaced entry nodes: on bench scale's 1M-node collection (2,000
// topics, 1,024 entries) it found none of the 256 nearest nodes for 14 of
// 32 questions and all of them for the other 18, while the sketches
// re-ranked found all 256 for every question (TestScaleDenseRecall). The
// sketch scan is one pass of XOR and popcount over d/8 bytes a node, and
// it is what pgstore's replicas rank (the same sketches, the same k, ties
// by the lower index), so an index over the store and the in-process index
// start from the same dense candidates.
const (
	// sketchOversample is how many sketch neighbours per dense candidate
	// the scan keeps for the exact re-rank, at least sketchFloor.
	sketchOversample = 4
	sketchFloor      = 1024
)

// sketchesOf is the sign bits of every node's embedding, words words a
// node: bit j of a node's words is set when component j is positive (the
// bit order does not change a Hamming distance). Int8 rows are read as
// they are stored: a component is positive when its int8 and the row's
// scale are.
func sketchesOf(g *graph.Graph) (words int, sk []uint64) {
	d := g.Dim
	words = (d + 63) / 64
	n := len(g.Nodes)
	sk = make([]uint64, n*words)
	f, q, s := graphhook.Rows(g)
	var b []byte // q's bytes
	if len(q) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(&q[0])), len(q))
	}
	for i := range n {
		dst := sk[i*words : (i+1)*words]
		switch {
		case q == nil:
			signBits(dst, f[i*d:(i+1)*d])
		case s[i] > 0:
			int8Signs(dst, b[i*d:(i+1)*d])
		}
	}
	return words, sk
}

// int8Signs sets bit j of dst when row[j], an int8, is positive, eight
// components at a time: in each byte of a little-endian word, positive is
// "not zero and sign bit clear" (high bit of (x&0x7f)+0x7f, or the sign,
// without the sign); the eight high bits are gathered by one multiply.
// Random signs would make a branch per component miss half the time.
func int8Signs(dst []uint64, row []byte) {
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	for w := range dst {
		var acc uint64
		chunk := row[64*w : min(64*w+64, len(row))]
		k := 0
		for ; k+8 <= len(chunk); k += 8 {
			x := binary.LittleEndian.Uint64(chunk[k:])
			pos := ((x&lo7 + lo7) | x) &^ x & hi // high bit: byte > 0
			// Bit 7 of byte i moves to bit 56+i: gather them.
			acc |= ((pos >> 7) * 0x0102040810204080 >> 56) << k
		}
		for ; k < len(chunk); k++ {
			acc |= uint64(-int32(int8(chunk[k]))>>31&1) << k
		}
		dst[w] = acc
	}
}

// signBits sets bit j of dst (cleared first) when v[j] > 0.
func signBits(dst []uint64, v []float32) {
	for w := range dst {
		var acc uint64
		for j, x := range v[64*w : min(64*w+64, len(v))] {
			var b uint64
			if x > 0 {
				b = 1
			}
			acc |= b << j
		}
		dst[w] = acc
	}
}

// sketchNearest returns the k nodes of keep whose sketches are nearest q
// by Hamming distance, ties by the lower index, in ascending index order
// (every node of keep when it has fewer): vec.NearestSketches, the ranking
// a pgstore replica makes of the same sketches.
func (ix *Index) sketchNearest(q []uint64, k int, keep bitset) []int32 {
	var allow func(int) bool
	if keep != nil {
		allow = func(i int) bool { return keep.has(int32(i)) }
	}
	out := vec.NearestSketches(ix.sketches[:ix.n*ix.sketchWords], ix.sketchWords, q, k, allow)
	slices.Sort(out)
	return out
}
