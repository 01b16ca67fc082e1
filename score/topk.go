package score

// topK returns the indexes of the k largest values of x in descending order,
// ties broken by lower index, appended to dst. It keeps a sorted buffer of k
// entries, so it costs O(n) for small k (no full sort).
func topK(x []float64, k int, dst []int) []int {
	k = min(k, len(x))
	if k <= 0 {
		return dst
	}
	base := len(dst)
	for i, v := range x {
		m := len(dst) - base
		if m == k && v <= x[dst[len(dst)-1]] {
			continue
		}
		if m < k {
			dst = append(dst, i)
		}
		// Insert i after every entry that is ≥ v (earlier indexes win ties).
		j := len(dst) - 1
		for j > base && x[dst[j-1]] < v {
			dst[j] = dst[j-1]
			j--
		}
		dst[j] = i
	}
	return dst
}
