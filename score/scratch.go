package score

// scratch holds the per-query working arrays of the classic signals and
// MMR, reused across queries through Index.scratch: a query then allocates
// little beyond the Scores it returns, which keeps the garbage collector
// (and the pauses it forces on the tight loops) out of the way. Every user
// initialises what it takes, so reuse cannot change a result.
type scratch struct {
	st             [][4]float64
	st2            [][2]float64
	nc             []nodeConst
	f1, f2, f3     []float64
	m1, m2, m3, m4 []float64
	m5             []float64
	pers           []float64 // PageRank's personalisation
	i1, i2         []int32
	idx, cold      []int32
	cand           []int
	picked         []bool
}

// grow returns s resliced to n values, reallocated when too short; the
// values are unspecified.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// getScratch takes a scratch from the index's pool (a fresh one for a nil
// index).
func (ix *Index) getScratch() *scratch {
	if ix == nil {
		return &scratch{}
	}
	if b, ok := ix.scratch.Get().(*scratch); ok {
		return b
	}
	return &scratch{}
}

func (ix *Index) putScratch(b *scratch) {
	if ix != nil {
		ix.scratch.Put(b)
	}
}
