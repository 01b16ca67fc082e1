// Package vec holds the vector arithmetic the library's packages share, so
// that every cosine in a build and a query is summed the same way.
package vec

import "math"

// Dot is the dot product of a and b (b at least as long as a), summed in
// four float32 lanes in a fixed order: results are deterministic, and equal
// wherever the same two vectors meet (graph edge weights, query scores).
func Dot(a, b []float32) float64 {
	var s0, s1, s2, s3 float32
	n := len(a)
	b = b[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0) + float64(s1) + float64(s2) + float64(s3)
}

// Unit returns q scaled to unit length in float64 arithmetic (a copy), or
// a zero vector: the query direction every scorer of a collection uses,
// in process or over a store.
func Unit(q []float32) []float32 {
	u := make([]float32, len(q))
	s := 0.0
	for _, x := range q {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return u
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range q {
		u[i] = float32(float64(x) * inv)
	}
	return u
}
