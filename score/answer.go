package score

// answerability computes a_i = r_i · ρ_i with
// ρ_i = min(1, len(s_i)/max_j len(s_j) + β_v·1[visual]) (paper v1 §3.4), where
// len counts characters of the summary (of the content when a node has no
// summary, so that graphs analysed offline still rank).
func (ix *Index) answerability(r []float64, bonus float64) []float64 {
	a := make([]float64, len(r))
	for i := range a {
		rho := ix.sumLen[i]
		if ix.visual[i] {
			rho += bonus
		}
		a[i] = r[i] * min(1, rho)
	}
	return a
}
