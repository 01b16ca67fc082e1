package graph

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowreader/flowreader/internal/vec"
)

// int8Graph returns g with its embeddings quantised as the Builder's
// Int8Embeddings stores them.
func int8Graph(g *Graph) *Graph { return g.WithInt8Embeddings() }

func TestInt8RoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 7, 40} {
		g := int8Graph(randomGraph(t, n, 8, uint64(n)))
		if !g.Int8Embeddings() || g.Emb != nil {
			t.Fatal("int8Graph kept float32 embeddings")
		}
		data := encode(t, g)
		h, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		sameGraph(t, g, h)
		if !bytes.Equal(encode(t, h), data) {
			t.Fatalf("n=%d: re-encoding differs", n)
		}
		loadMatchesDecode(t, data)
		p := filepath.Join(t.TempDir(), "g.flwg")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, g, l)
		// A quarter of the float32 file's embedding bytes, plus the scales.
		f := encode(t, randomGraph(t, n, 8, uint64(n)))
		if want := len(f) - n*8*4 + n*(8+4); len(data) != want {
			t.Fatalf("n=%d: int8 file %d bytes, want %d", n, len(data), want)
		}
	}
}

// TestInt8Refused: a file whose scales are not finite, or whose rows decode
// to other than unit length, is refused by Read and Load, and Write refuses
// such a graph before writing.
func TestInt8Refused(t *testing.T) {
	g := int8Graph(randomGraph(t, 5, 8, 3))
	data := encode(t, g)
	l, err := parseLayout(data[headerSize:], len(data)-headerSize, flagInt8|flagRecord)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		scale float32
	}{{"nan", float32(math.NaN())}, {"inf", float32(math.Inf(1))}, {"double", 2 * g.qscale[2]}, {"tiny", g.qscale[2] / 3}} {
		b := append([]byte(nil), data...)
		binary.LittleEndian.PutUint32(b[headerSize+l.emb+4*2:], math.Float32bits(c.scale))
		rechecksum(b)
		if _, err := Read(bytes.NewReader(b)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Read err = %v, want ErrFormat", c.name, err)
		}
		loadMatchesDecode(t, b)
		h := int8Graph(randomGraph(t, 5, 8, 3))
		h.qscale[2] = c.scale
		if err := Write(new(bytes.Buffer), h); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Write err = %v, want ErrFormat", c.name, err)
		}
	}
	// A zero row (scale 0) is a valid zero embedding.
	h := int8Graph(randomGraph(t, 5, 8, 3))
	clear(h.q8[8:16])
	h.qscale[1] = 0
	if _, err := Read(bytes.NewReader(encode(t, h))); err != nil {
		t.Fatal(err)
	}
}

// TestInt8Similarities: int8 rows keep cosines within the bound of
// vec.Quantize, and Dot, Cos and AppendEmbedding agree with one another.
func TestInt8Similarities(t *testing.T) {
	const n, d = 60, 96
	r := rand.New(rand.NewPCG(4, 4))
	emb := make([]float32, n*d)
	for i := range emb {
		emb[i] = float32(r.NormFloat64())
	}
	f, err := New(make([]Node, n), d, emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := int8Graph(f)
	// Each row is within angle asin(√d·max|v|/254) of the original: the
	// cosine of two rows moves by at most the sum of their two angles.
	angle := func(i int) float64 {
		m := 0.0
		for _, x := range f.Embedding(i) {
			m = math.Max(m, math.Abs(float64(x)))
		}
		return math.Asin(math.Min(1, math.Sqrt(d)*m/254))
	}
	query := f.Embedding(0)
	for i := 0; i < n; i++ {
		if c := q.Cos(i, i); math.Abs(c-1) > 1e-5 {
			t.Fatalf("Cos(%d,%d) = %v", i, i, c)
		}
		row := q.AppendEmbedding(nil, i)
		if got, want := q.Dot(i, query), vec.Dot(query, row); math.Abs(got-want) > 1e-5 {
			t.Fatalf("Dot(%d) = %v, decoded row gives %v", i, got, want)
		}
		for j := 0; j < n; j++ {
			exact, got := f.Cos(i, j), q.Cos(i, j)
			// cos is 1-Lipschitz in the angle.
			if math.Abs(got-exact) > angle(i)+angle(j)+1e-6 {
				t.Fatalf("Cos(%d,%d) = %v, float32 %v: beyond the bound %v", i, j, got, exact, angle(i)+angle(j))
			}
			if q.Cos(i, j) != q.Cos(j, i) {
				t.Fatal("Cos not symmetric")
			}
		}
	}
	// The subgraph keeps the format and the rows.
	s := q.Subgraph([]int32{3, 9, 40})
	if !s.Int8Embeddings() || s.Cos(0, 2) != q.Cos(3, 40) || s.Dot(1, query) != q.Dot(9, query) {
		t.Fatal("subgraph of an int8 graph changed its rows")
	}
}

// TestInt8KNNDeterministic: both kNN paths on int8 rows give the same lists
// whatever the worker count, and nearly the float32 rows' lists.
func TestInt8KNNDeterministic(t *testing.T) {
	ctx := context.Background()
	const n, d, k = 1500, 64, 10
	v := probeVecsSmall(n, d)
	f := rows{dim: d, f: v}
	q := newRows(n, d, true)
	for i := 0; i < n; i++ {
		q.set(i, v[i*d:(i+1)*d])
	}
	exact, err := topK(ctx, f, n, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	e1, _ := topK(ctx, q, n, k, 1)
	e3, _ := topK(ctx, q, n, k, 3)
	a1, _ := approxTopK(ctx, q, n, k, 1, nil)
	a3, _ := approxTopK(ctx, q, n, k, 3, nil)
	for i := range e1 {
		if e1[i] != e3[i] || a1[i] != a3[i] {
			t.Fatal("int8 kNN depends on the worker count")
		}
	}
	for name, got := range map[string][]int32{"exact": e1, "hnsw": a1} {
		if rec := listRecall(exact, got, n, k); rec < 0.9 {
			t.Errorf("int8 %s kNN recall vs float32 exact %.3f, want ≥ 0.9", name, rec)
		}
	}
}

// probeVecsSmall is unit rows of a few noisy topics.
func probeVecsSmall(n, d int) []float32 {
	r := rand.New(rand.NewPCG(9, 9))
	centres := make([]float64, 20*d)
	for i := range centres {
		centres[i] = r.NormFloat64()
	}
	v := make([]float32, n*d)
	for i := 0; i < n; i++ {
		c := r.IntN(20)
		row := v[i*d : (i+1)*d]
		for j := range row {
			row[j] = float32(centres[c*d+j] + 0.8*r.NormFloat64())
		}
		normalize(row)
	}
	return v
}

func listRecall(want, got []int32, n, k int) float64 {
	hit := 0
	for i := 0; i < n; i++ {
		set := map[int32]bool{}
		for _, j := range want[i*k : (i+1)*k] {
			set[j] = true
		}
		for _, j := range got[i*k : (i+1)*k] {
			if set[j] {
				hit++
			}
		}
	}
	return float64(hit) / float64(n*k)
}
