package pgstore

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/flowreader/flowreader/internal/vec"
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
// LIMIT k (vec.NearestSketches over the set's positions, which follow the
// seqs).
func (s *sketchSet) nearest(q []uint64, k int, allow func(int64) bool) []int64 {
	defer runtime.KeepAlive(s.mem)
	seqs := s.seqs
	var ok func(int) bool
	if allow != nil {
		ok = func(i int) bool { return allow(seqs[i]) }
	}
	pos := vec.NearestSketches(s.bits[:len(seqs)*s.words], s.words, q, k, ok)
	res := make([]int64, len(pos))
	for i, p := range pos {
		res[i] = seqs[p]
	}
	return res
}
