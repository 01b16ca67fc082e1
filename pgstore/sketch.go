package pgstore

import (
	"context"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/jackc/pgx/v5/pgtype"
)

// A replica ranks a large collection's nodes for the dense first pass by
// the Hamming distance of their sign sketches, in memory: d/8 bytes a node
// (96 MB for a million of dimension 768), not the embeddings, held outside
// the Go heap where the platform allows (newSketchSet). The sketches
// are loaded with a question's first snapshot and brought up to date with
// each later question's from the changes log, in that question's snapshot;
// a collection whose sketches would pass the store's budget is ranked by
// the database instead (the same order, by a scan of the sketches table).

// sketchBudget is the most bytes of sketches a store keeps in memory, over
// all collections.
const sketchBudget = 192 << 20

// sketchMinNodes is the collection size from which sketches are kept in
// memory: below it the database's scan costs a few milliseconds.
const sketchMinNodes = 20000

// sketchSet is one collection's sketches at one version; it is never
// modified once made (an update makes a new one), so questions read it
// without a lock.
type sketchSet struct {
	id      int32
	version int64
	words   int       // uint64 words per sketch
	seqs    []int64   // ascending
	bits    []uint64  // words per seq, first component in the high bit of word 0
	entries []byte    // the entry nodes' embeddings at version
	escale  []float32 // and their scales
	// mem owns seqs' and bits' memory when they are outside the Go heap
	// (newSketchSet): it is unmapped once mem is unreachable, so every
	// reader of seqs or bits keeps mem alive until it is done. Copies of
	// the set share it.
	mem *sketchMem
}

// sketchMem stands for a set's mappings: a cleanup attached to it unmaps
// them (it holds nothing itself, so that the cleanup can run).
type sketchMem struct{ _ int }

// newSketchSet makes an empty set with room for n sketches of words
// words each, held outside the Go heap where the platform maps anonymous
// memory. Held on the heap, a million sketches (96 MB at dimension 768)
// would count towards the collector's target and, at the default GOGC,
// let the heap grow by as much again before a collection; outside it, a
// replica's resident memory is the sketches plus its questions' working
// memory. Appends past n move to the heap, correctly.
func newSketchSet(words, n int) *sketchSet {
	n = max(n, 0)
	sq, m1 := mapWords(n)
	bs, m2 := mapWords(n * words)
	s := &sketchSet{words: words, seqs: unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(sq))), len(sq))[:0], bits: bs[:0]}
	var maps [][]byte
	for _, m := range [][]byte{m1, m2} {
		if m != nil {
			maps = append(maps, m)
		}
	}
	if len(maps) > 0 {
		s.mem = &sketchMem{}
		runtime.AddCleanup(s.mem, unmap, maps)
	}
	return s
}

func (s *sketchSet) bytes() int { return 8*len(s.seqs) + 8*len(s.bits) + len(s.entries) }

// sketchCache holds the sketch sets by collection name.
type sketchCache struct {
	mu   sync.Mutex
	sets map[string]*sketchSet
	used int
	// loading is held by the question loading a whole set: the questions
	// that find no set while one loads wait for it rather than each
	// loading a copy (a replica's first questions arrive together).
	loading chan struct{}
}

// lockLoad waits until no other question loads a whole set (or ctx ends)
// and returns the function that lets the next one load; it may be called
// more than once.
func (c *sketchCache) lockLoad(ctx context.Context) (func(), error) {
	c.mu.Lock()
	if c.loading == nil {
		c.loading = make(chan struct{}, 1)
	}
	l := c.loading
	c.mu.Unlock()
	select {
	case l <- struct{}{}:
		return sync.OnceFunc(func() { <-l }), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// get returns the cached set of a collection, or nil.
func (c *sketchCache) get(name string) *sketchSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sets[name]
}

// put keeps set for name when it is newer than the one kept and the
// budget allows; it reports whether it is kept.
func (c *sketchCache) put(name string, set *sketchSet) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.sets[name]
	if old != nil && old.id == set.id && old.version >= set.version {
		return old.version == set.version
	}
	used := c.used + set.bytes()
	if old != nil {
		used -= old.bytes()
	}
	if used > sketchBudget {
		return false
	}
	if c.sets == nil {
		c.sets = map[string]*sketchSet{}
	}
	c.sets[name], c.used = set, used
	return true
}

// drop forgets a collection's set.
func (c *sketchCache) drop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.sets[name]; old != nil {
		c.used -= old.bytes()
		delete(c.sets, name)
	}
}

// sketchWords converts a stored sketch (PostgreSQL bit order: the first
// bit is the high bit of the first byte) into words, the first bit the
// high bit of word 0, appended to dst.
func sketchWords(dst []uint64, b pgtype.Bits, words int) []uint64 {
	for w := 0; w < words; w++ {
		var x uint64
		for k := 0; k < 8; k++ {
			x <<= 8
			if i := 8*w + k; i < len(b.Bytes) {
				x |= uint64(b.Bytes[i])
			}
		}
		dst = append(dst, x)
	}
	return dst
}

// withChanges returns the set at a later version: the removed seqs taken
// out and the added ones (greater than every kept seq) appended.
func (s *sketchSet) withChanges(version int64, removed map[int64]bool, added []int64, addedBits []uint64) *sketchSet {
	kept := len(s.seqs)
	for q := range removed {
		if _, ok := slices.BinarySearch(s.seqs, q); ok {
			kept--
		}
	}
	n := newSketchSet(s.words, kept+len(added))
	n.id, n.version = s.id, version
	for i, q := range s.seqs {
		if !removed[q] {
			n.seqs = append(n.seqs, q)
			n.bits = append(n.bits, s.bits[i*s.words:(i+1)*s.words]...)
		}
	}
	n.seqs = append(n.seqs, added...)
	n.bits = append(n.bits, addedBits...)
	runtime.KeepAlive(s.mem)
	return n
}

// nearest returns the k seqs (of those allow passes, every one when allow
// is nil) whose sketches are nearest q in Hamming distance, ties by lower
// seq: the order of the database's ORDER BY bit_count(bits # q), seq
// LIMIT k.
//
// One pass over the sketches, in seq order, keeping the hits that may
// still be among the k: a bound t such that k hits already seen are at
// distance t or less (every later node farther than t is skipped after
// its distance, and one at t once k are held: it loses the tie to the
// earlier seqs). The hits are few (about k·ln(n/k) when the near nodes
// are spread over the seqs) and compacted when their buffer fills, so a
// question holds O(k) memory, not a distance per node.
func (s *sketchSet) nearest(q []uint64, k int, allow func(int64) bool) []int64 {
	defer runtime.KeepAlive(s.mem)
	n, w := len(s.seqs), s.words
	if k <= 0 || n == 0 || w == 0 {
		return nil
	}
	q = q[:w]
	bs, seqs := s.bits[:n*w], s.seqs[:n]
	type hit struct {
		d int32
		i int32 // index in seqs
	}
	hist := make([]int32, 64*w+1) // the held hits by distance, up to t
	t := int32(64 * w)
	held := 0 // hits at distance t or less
	hits := make([]hit, 0, 4*k+64)
	for i := range seqs {
		if allow != nil && !allow(seqs[i]) {
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
	// Every hit nearer than t is taken, and the first (by seq) of those
	// at t up to k; then by distance, seqs ascending within one (a
	// counting sort, stable).
	below := held - int(hist[t])
	atT := min(k-below, int(hist[t]))
	count := make([]int32, t+2)
	res := make([]int64, 0, min(k, held))
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
		res[count[h.d]] = seqs[h.i]
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
