package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestQuantize(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 3, 16, 100, 768} {
		for range 50 {
			v := make([]float32, d)
			var s float64
			for i := range v {
				v[i] = float32(r.NormFloat64())
				s += float64(v[i]) * float64(v[i])
			}
			m := 0.0
			for i := range v {
				v[i] = float32(float64(v[i]) / math.Sqrt(s))
				m = math.Max(m, math.Abs(float64(v[i])))
			}
			q := make([]int8, d)
			sc := Quantize(q, v)
			var norm, cos float64
			for i, x := range q {
				y := float64(x) * float64(sc)
				norm += y * y
				cos += y * float64(v[i])
				if x < -127 {
					t.Fatalf("d=%d: value %d", d, x)
				}
			}
			if math.Abs(math.Sqrt(norm)-1) > 1e-6 {
				t.Fatalf("d=%d: decoded norm %v", d, math.Sqrt(norm))
			}
			if bound := math.Cos(math.Asin(math.Min(1, math.Sqrt(float64(d))*m/254))); cos < bound-1e-6 {
				t.Fatalf("d=%d: cos(v, decoded) %v below the bound %v", d, cos, bound)
			}
		}
	}
	q := []int8{5, 5}
	if s := Quantize(q, []float32{0, 0}); s != 0 || q[0] != 0 || q[1] != 0 {
		t.Fatal("zero row not zero")
	}
}

func TestDotInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 15, 16, 17, 768, 1 << 16} {
		a, b, f := make([]int8, n), make([]int8, n), make([]float32, n)
		var want int64
		var wantF float64
		for i := range a {
			a[i], b[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
			if n == 1<<16 { // the overflow bound
				a[i], b[i] = -127, -127
			}
			f[i] = float32(r.NormFloat64())
			want += int64(a[i]) * int64(b[i])
			wantF += float64(f[i]) * float64(b[i])
		}
		if got := DotInt8(a, b); int64(got) != want {
			t.Fatalf("n=%d: DotInt8 = %d, want %d", n, got, want)
		}
		if got := DotFloatInt8(f, b); math.Abs(got-wantF) > 1e-4*math.Max(1, math.Abs(wantF))*math.Sqrt(float64(n)) {
			t.Fatalf("n=%d: DotFloatInt8 = %v, want %v", n, got, wantF)
		}
	}
}

func BenchmarkDot768(b *testing.B) {
	x, y := make([]float32, 768), make([]float32, 768)
	qx, qy := make([]int8, 768), make([]int8, 768)
	for i := range x {
		x[i], y[i] = float32(i%7), float32(i%5)
		qx[i], qy[i] = int8(i%7), int8(i%5)
	}
	b.Run("float32", func(b *testing.B) {
		for b.Loop() {
			Dot(x, y)
		}
	})
	b.Run("int8", func(b *testing.B) {
		for b.Loop() {
			DotInt8(qx, qy)
		}
	})
	b.Run("float32-int8", func(b *testing.B) {
		for b.Loop() {
			DotFloatInt8(x, qy)
		}
	})
}
