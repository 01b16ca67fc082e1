package vec

import "math"

// Int8 rows: a unit vector v is stored as q = round(v · 127 / max|v|) (int8)
// and one float32 scale s = 1/‖q‖, so that the decoded row s·q is again of
// unit length (up to float32 rounding) and only its direction carries the
// quantisation error: each component of q is off by at most ½ before
// rescaling, ‖q − v·127/max|v|‖ ≤ √d/2, hence an angle of at most
// asin(√d · max|v| / 254) between v and s·q. A zero row is all zeros with
// scale 0.

// Quantize writes v's int8 row into dst (len(dst) ≥ len(v)) and returns its
// scale.
func Quantize(dst []int8, v []float32) float32 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(float64(x)))
	}
	if m == 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		clear(dst[:len(v)])
		return 0
	}
	f := 127 / m
	var ss int64
	for i, x := range v {
		q := int8(math.Round(float64(x) * f))
		dst[i] = q
		ss += int64(q) * int64(q)
	}
	return float32(1 / math.Sqrt(float64(ss)))
}

// DotInt8 is the dot product of two int8 rows, exact in int32 (a row of
// at most 2^16 components of magnitude ≤ 127 cannot overflow it: 2^16 ·
// 127² < 2^31). b is at least as long as a.
func DotInt8(a, b []int8) int32 {
	var s0, s1, s2, s3 int32
	b = b[:len(a)]
	for len(a) >= 16 {
		x, y := a[:16:16], b[:16:16]
		s0 += int32(x[0])*int32(y[0]) + int32(x[4])*int32(y[4]) + int32(x[8])*int32(y[8]) + int32(x[12])*int32(y[12])
		s1 += int32(x[1])*int32(y[1]) + int32(x[5])*int32(y[5]) + int32(x[9])*int32(y[9]) + int32(x[13])*int32(y[13])
		s2 += int32(x[2])*int32(y[2]) + int32(x[6])*int32(y[6]) + int32(x[10])*int32(y[10]) + int32(x[14])*int32(y[14])
		s3 += int32(x[3])*int32(y[3]) + int32(x[7])*int32(y[7]) + int32(x[11])*int32(y[11]) + int32(x[15])*int32(y[15])
		a, b = a[16:], b[16:]
	}
	for i := range a {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// DotFloatInt8 is the dot product of a float32 vector a with an int8 row b
// (before scaling), summed in four float32 lanes in a fixed order, as Dot.
// b is at least as long as a.
func DotFloatInt8(a []float32, b []int8) float64 {
	var s0, s1, s2, s3 float32
	b = b[:len(a)]
	for len(a) >= 8 {
		x, y := a[:8:8], b[:8:8]
		s0 += x[0]*float32(y[0]) + x[4]*float32(y[4])
		s1 += x[1]*float32(y[1]) + x[5]*float32(y[5])
		s2 += x[2]*float32(y[2]) + x[6]*float32(y[6])
		s3 += x[3]*float32(y[3]) + x[7]*float32(y[7])
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += a[i] * float32(b[i])
	}
	return float64(s0) + float64(s1) + float64(s2) + float64(s3)
}
