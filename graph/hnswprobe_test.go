package graph

import (
	"context"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/coder/hnsw"
)

// probeVecs makes n unit rows around n/500 topic centres (at least 8),
// each row its centre plus a point of the topic's rank-12 subspace plus
// noise: the model of internal/synth.NewCollection.
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

func TestProbeCoderHNSW(t *testing.T) {
	n, dim, k := 20000, 256, 15
	v := probeVecs(n, dim, 1)
	t0 := time.Now()
	ex, _ := topK(context.Background(), v, n, dim, k, 2)
	t.Logf("exact %v", time.Since(t0))
	var lists [2][][]int
	for run := 0; run < 2; run++ {
		g := hnsw.NewGraph[int32]()
		g.Rng = rand.New(rand.NewSource(7))
		g.EfSearch = 400; g.M = 32
		t0 = time.Now()
		for i := 0; i < n; i++ {
			g.Add(hnsw.MakeNode(int32(i), v[i*dim:(i+1)*dim]))
		}
		t.Logf("insert %v (%.0f/s)", time.Since(t0), float64(n)/time.Since(t0).Seconds())
		t0 = time.Now()
		hit := 0
		for i := 0; i < 2000; i++ {
			res := g.Search(v[i*dim:(i+1)*dim], k+1)
			var l []int
			set := map[int32]bool{}
			for _, r := range res {
				if r.Key != int32(i) {
					set[r.Key] = true
					l = append(l, int(r.Key))
				}
			}
			lists[run] = append(lists[run], l)
			for _, j := range ex[i*k : (i+1)*k] {
				if set[j] {
					hit++
				}
			}
		}
		t.Logf("search %v recall %.3f", time.Since(t0)/2000, float64(hit)/float64(2000*k))
	}
	diff := 0
	for i := range lists[0] {
		if len(lists[0][i]) != len(lists[1][i]) {
			diff++
			continue
		}
		for j := range lists[0][i] {
			if lists[0][i][j] != lists[1][i][j] {
				diff++
				break
			}
		}
	}
	t.Logf("lists differing between two seeded builds: %d of 2000", diff)
}

func TestProbeCrossover(t *testing.T) {
	for _, n := range []int{5000, 10000, 20000, 40000} {
		dim := 768
		v := probeVecs(n, dim, 5)
		k := knnSize(n)
		t0 := time.Now()
		ex, _ := topK(context.Background(), v, n, dim, k, 2)
		te := time.Since(t0)
		t0 = time.Now()
		ap, _ := approxTopK(context.Background(), v, n, dim, k, 2, nil)
		ta := time.Since(t0)
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		t.Logf("n=%d exact %v approx %v recall %.4f", n, te, ta, knnRecall(ex, ap, rows, k))
	}
}
