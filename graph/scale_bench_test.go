package graph

import (
	"context"
	"math"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/coder/hnsw"
)

// probeVecs makes n unit rows around n/500 topic centres (at least 8),
// each row its centre plus a point of the topic's rank-12 subspace plus
// noise: the model of internal/lab/synth.NewCollection.
func probeVecs(n, dim int, seed int64) []float32 {
	rng := rand.New(rand.NewSource(seed))
	topics := max(8, n/500)
	per := (n + topics - 1) / topics
	const rank = 12
	centre := make([]float64, dim)
	basis := make([]float64, rank*dim)
	z := make([]float64, rank)
	v := make([]float32, n*dim)
	for i := 0; i < n; i++ {
		if i%per == 0 {
			for j := range centre {
				centre[j] = rng.NormFloat64()
			}
			for j := range basis {
				basis[j] = rng.NormFloat64() / math.Sqrt(rank)
			}
		}
		for r := range z {
			z[r] = rng.NormFloat64()
		}
		for j := 0; j < dim; j++ {
			x := centre[j] + 0.3*rng.NormFloat64()
			for r, zr := range z {
				x += zr * basis[r*dim+j]
			}
			v[i*dim+j] = float32(x)
		}
		normalize(v[i*dim : (i+1)*dim])
	}
	return v
}

// The scale anchors, side by side on the same vectors (N × 768 around
// N/500 topics): brute-force exact kNN (topK), this package's HNSW kNN
// (approxTopK), github.com/coder/hnsw's own insert and search, and
// brute-force scoring of one query (a dot product with every row and a
// top-16, what a user writes by hand). docs/scale.md gives the command and
// the figures. FLOWREADER_SCALE_N sets N (default 20,000).
func scaleVecs(b *testing.B) ([]float32, int, int) {
	n := 20000
	if s := os.Getenv("FLOWREADER_SCALE_N"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 1 {
			n = v
		}
	}
	const dim = 768
	key := [2]int{n, dim}
	if scaleCache.key != key {
		scaleCache.key, scaleCache.v = key, probeVecs(n, dim, 11)
	}
	return scaleCache.v, n, dim
}

var scaleCache struct {
	key [2]int
	v   []float32
}

func BenchmarkScaleExactKNN(b *testing.B) {
	v, n, dim := scaleVecs(b)
	b.ResetTimer()
	for range b.N {
		if _, err := topK(context.Background(), rows{dim: dim, f: v}, n, knnSize(n), 2); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkScaleHNSWKNN(b *testing.B) {
	v, n, dim := scaleVecs(b)
	b.ResetTimer()
	for range b.N {
		if _, err := approxTopK(context.Background(), rows{dim: dim, f: v}, n, knnSize(n), 2, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkScaleCoderHNSWInsert is coder/hnsw v0.6.1 inserting every row
// (M = 16, EfSearch = 96, seeded level RNG), one goroutine: its Add is not
// safe for concurrent use.
func BenchmarkScaleCoderHNSWInsert(b *testing.B) {
	v, n, dim := scaleVecs(b)
	b.ResetTimer()
	for range b.N {
		coderGraph(v, n, dim)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}

func coderGraph(v []float32, n, dim int) *hnsw.Graph[int32] {
	g := hnsw.NewGraph[int32]()
	g.Rng = rand.New(rand.NewSource(7))
	g.M, g.EfSearch = 16, 96
	for i := 0; i < n; i++ {
		g.Add(hnsw.MakeNode(int32(i), v[i*dim:(i+1)*dim]))
	}
	return g
}

// BenchmarkScaleCoderHNSWSearch is coder/hnsw's search for the k nearest
// neighbours of a row, with its recall against exact reported.
func BenchmarkScaleCoderHNSWSearch(b *testing.B) {
	v, n, dim := scaleVecs(b)
	g := coderGraph(v, n, dim)
	k := knnSize(n)
	ex, _ := topK(context.Background(), rows{dim: dim, f: v}, n, k, 2)
	b.ResetTimer()
	hit, searches := 0, 0
	for range b.N {
		for r := 0; r < n; r += max(1, n/1000) { // 1,000 searches per op
			searches++
			res := g.Search(v[r*dim:(r+1)*dim], k+1)
			for _, c := range res {
				if slices.Contains(ex[r*k:(r+1)*k], c.Key) {
					hit++
				}
			}
		}
	}
	b.ReportMetric(float64(hit)/float64(searches*k), "recall")
	b.ReportMetric(float64(searches)/b.Elapsed().Seconds(), "searches/s")
}

// BenchmarkScaleBruteForceScore is one query scored against every row:
// dot products and the top 16.
func BenchmarkScaleBruteForceScore(b *testing.B) {
	v, n, dim := scaleVecs(b)
	var l topList
	l.init(1, 16)
	queries := 0
	b.ResetTimer()
	for range b.N {
		for r := 0; r < 20; r++ { // 20 queries per op
			queries++
			q := v[r*dim : (r+1)*dim]
			for t := range l.ids {
				l.ids[t] = -1
			}
			for j := 0; j < n; j++ {
				l.offer(0, int32(j), sdot(q, v[j*dim:(j+1)*dim]))
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(queries), "ms/query")
}

// TestHNSWRecallLarge measures the HNSW path's kNN recall against exact on
// a sample of rows at FLOWREADER_SCALE_N (it runs only when that is set).
func TestHNSWRecallLarge(t *testing.T) {
	if os.Getenv("FLOWREADER_SCALE_N") == "" {
		t.Skip("set FLOWREADER_SCALE_N")
	}
	n, _ := strconv.Atoi(os.Getenv("FLOWREADER_SCALE_N"))
	dim := 768
	v := probeVecs(n, dim, 11)
	k := knnSize(n)
	t0 := time.Now()
	ap, err := approxTopK(context.Background(), rows{dim: dim, f: v}, n, k, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("HNSW kNN of %d × %d in %v", n, dim, time.Since(t0))
	var l topList
	l.init(1, k)
	hit := 0
	rows := 0
	for r := 0; r < n; r += max(1, n/200) {
		rows++
		for t := range l.ids {
			l.ids[t] = -1
		}
		for j := 0; j < n; j++ {
			if j != r {
				l.offer(0, int32(j), sdot(v[r*dim:(r+1)*dim], v[j*dim:(j+1)*dim]))
			}
		}
		for _, j := range l.ids {
			if slices.Contains(ap[r*k:(r+1)*k], j) {
				hit++
			}
		}
	}
	t.Logf("kNN recall %.4f over %d rows (k = %d)", float64(hit)/float64(rows*k), rows, k)
}
