package score

// scratch holds the per-query working arrays of the classic sweeps and of
// MMR, reused across queries through the Index's pool: a query then
// allocates little beyond the Scores it returns, which keeps the garbage
// collector out of the tight loops. Every user initialises what it takes,
// so reuse cannot change a result.
type scratch struct {
	st                     [][4]float64 // sweeps
	base, tel, p, x        []float64    // sweeps
	m1, m2, m3, m4, m5, f3 []float64    // mmr
	i1, i2, idx, cold      []int32      // mmr
	picked                 []bool       // mmr
}

// grow returns s resliced to n values, reallocated when too short; the
// values are unspecified.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (ix *Index) getScratch() *scratch {
	if b, ok := ix.scratch.Get().(*scratch); ok {
		return b
	}
	return &scratch{}
}

func (ix *Index) putScratch(b *scratch) { ix.scratch.Put(b) }
