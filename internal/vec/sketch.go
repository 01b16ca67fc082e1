package vec

import (
	"math/bits"
	"slices"
)

// NearestSketches returns the positions of the k sketches of sk (words
// uint64s each; of those allow passes, every one when allow is nil)
// nearest q in Hamming distance, nearest first, ties by lower position.
//
// One pass over the sketches, keeping the hits that may still be among the
// k: a bound t such that k hits already seen are at distance t or less
// (every later sketch farther than t is skipped after its distance, and one
// at t once k are held: it loses the tie to the earlier positions). The
// hits are few (about k·ln(n/k) when the near ones are spread out) and
// compacted when their buffer fills, so a call holds O(k) memory, not a
// distance per sketch; the pass reads the sketches once, so memory
// bandwidth bounds it.
func NearestSketches(sk []uint64, w int, q []uint64, k int, allow func(i int) bool) []int32 {
	if w <= 0 {
		return nil
	}
	n := len(sk) / w
	if k <= 0 || n == 0 || w == 0 {
		return nil
	}
	q = q[:w]
	bs := sk[:n*w]
	type hit struct {
		d int32
		i int32 // index in seqs
	}
	hist := make([]int32, 64*w+1) // the held hits by distance, up to t
	t := int32(64 * w)
	held := 0 // hits at distance t or less
	hits := make([]hit, 0, 4*k+64)
	for i := range n {
		if allow != nil && !allow(i) {
			continue
		}
		d := hamming(bs[i*w:i*w+w:i*w+w], q)
		if d > t || d == t && held >= k {
			continue
		}
		if len(hits) == cap(hits) {
			// Drop the hits now farther than t; grow only when most
			// remain.
			j := 0
			for _, h := range hits {
				if h.d <= t {
					hits[j] = h
					j++
				}
			}
			hits = hits[:j]
			if 2*j > cap(hits) {
				hits = slices.Grow(hits, cap(hits))
			}
		}
		hits = append(hits, hit{d, int32(i)})
		hist[d]++
		held++
		// Lower t while k hits are nearer than it.
		for t > 0 && held-int(hist[t]) >= k {
			held -= int(hist[t])
			hist[t] = 0
			t--
		}
	}
	// Every hit nearer than t is taken, and the first (by position) of those
	// at t up to k; then by distance, positions ascending within one (a
	// counting sort, stable).
	below := held - int(hist[t])
	atT := min(k-below, int(hist[t]))
	count := make([]int32, t+2)
	res := make([]int32, 0, min(k, held))
	for _, h := range hits {
		switch {
		case h.d < t:
			count[h.d+1]++
		case h.d == t && atT > 0:
			count[t+1]++
			atT--
		}
	}
	for d := int32(1); d <= t+1; d++ {
		count[d] += count[d-1]
	}
	res = res[:count[t+1]]
	atT = min(k-below, int(hist[t]))
	for _, h := range hits {
		switch {
		case h.d < t:
		case h.d == t && atT > 0:
			atT--
		default:
			continue
		}
		res[count[h.d]] = h.i
		count[h.d]++
	}
	return res
}

// hamming is the Hamming distance of two sketches of equal length: a
// loop without bounds checks (q is resliced to a's length), four words a
// step.
func hamming(a, q []uint64) int32 {
	q = q[:len(a)]
	var d0, d1, d2, d3 int
	j := 0
	for ; j+4 <= len(a); j += 4 {
		d0 += bits.OnesCount64(a[j] ^ q[j])
		d1 += bits.OnesCount64(a[j+1] ^ q[j+1])
		d2 += bits.OnesCount64(a[j+2] ^ q[j+2])
		d3 += bits.OnesCount64(a[j+3] ^ q[j+3])
	}
	for ; j < len(a); j++ {
		d0 += bits.OnesCount64(a[j] ^ q[j])
	}
	return int32(d0 + d1 + d2 + d3)
}
