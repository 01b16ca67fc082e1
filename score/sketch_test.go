package score

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// sketchIndex is an Index holding only sketches: n random ones of words
// words, drawn from few distinct values when dup so that distances tie.
func sketchIndex(rng *rand.Rand, n, words int, dup bool) *Index {
	ix := &Index{n: n, sketchWords: words, sketches: make([]uint64, n*words)}
	for i := range ix.sketches {
		if dup {
			ix.sketches[i] = uint64(rng.IntN(4)) << uint(rng.IntN(64))
		} else {
			ix.sketches[i] = rng.Uint64()
		}
	}
	return ix
}

// TestSketchNearest checks sketchNearest against hammingNearest (a full
// sort by distance, then index) on random sketches with and without ties,
// with and without a keep filter, for k below, at and above the kept count.
func TestSketchNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		words := 1 + rng.IntN(3)
		ix := sketchIndex(rng, n, words, trial%2 == 0)
		var keep bitset
		kept := make([]int32, 0, n)
		if trial%3 == 0 {
			keep = make(bitset, (n+63)/64)
			for v := range n {
				if rng.IntN(3) > 0 {
					keep[v/64] |= 1 << (v % 64)
				}
			}
		}
		for v := range int32(n) {
			if keep.has(v) {
				kept = append(kept, v)
			}
		}
		q := make([]uint64, words)
		for j := range q {
			q[j] = rng.Uint64()
		}
		k := 1 + rng.IntN(n+10)
		got := ix.sketchNearest(q, k, keep)
		// The oracle over the kept nodes only, mapped back to indexes.
		sub := make([]uint64, 0, len(kept)*words)
		for _, v := range kept {
			sub = append(sub, ix.sketches[int(v)*words:int(v+1)*words]...)
		}
		var want []int32
		for _, i := range hammingNearest(sub, words, q, k) {
			want = append(want, kept[i])
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n %d, words %d, k %d, keep %v): got %v, want %v", trial, n, words, k, keep != nil, got, want)
		}
	}
}

// BenchmarkSketchNearest is one question's sketch scan at 1M nodes of 768
// dimensions (12 words a node), k = 1,024.
func BenchmarkSketchNearest(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ix := sketchIndex(rng, 1_000_000, 12, false)
	q := make([]uint64, 12)
	for j := range q {
		q[j] = rng.Uint64()
	}
	for b.Loop() {
		ix.sketchNearest(q, 1024, nil)
	}
}

// clusteredGraph is n nodes of dimension dim in clusters of 100 around
// random centres, with order edges inside each cluster only (no kNN edge
// joins two clusters, so a beam search cannot leave the clusters its
// entry nodes are in), and q questions near random nodes.
func clusteredGraph(t *testing.T, n, dim, q int) (*graph.Graph, [][]float32) {
	rng := rand.New(rand.NewPCG(3, 5))
	emb := make([]float32, n*dim)
	nodes := make([]graph.Node, n)
	var centre []float32
	var edges []graph.Edge
	for i := range n {
		if i%100 == 0 {
			centre = make([]float32, dim)
			for j := range centre {
				centre[j] = float32(rng.NormFloat64())
			}
		} else {
			edges = append(edges, graph.Edge{U: int32(i - 1), V: int32(i), Kind: graph.EdgeOrder})
		}
		for j := range dim {
			emb[i*dim+j] = centre[j] + float32(0.3*rng.NormFloat64())
		}
		nodes[i] = graph.Node{ID: fmt.Sprint(i), Doc: fmt.Sprint(i / 100), Order: i % 100, Content: "x"}
	}
	g, err := graph.New(nodes, dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	var qs [][]float32
	for range q {
		row := g.AppendEmbedding(nil, rng.IntN(n))
		for j := range row {
			row[j] += float32(0.1 * rng.NormFloat64())
		}
		qs = append(qs, unit(row))
	}
	return g, qs
}

// TestDenseTopSketches checks, on a graph above exactKeep whose clusters
// no kNN edge joins, that the dense pass finds at least what each of its
// two sources finds of the exact m nearest (the beam search alone, the
// sketches alone: it re-ranks their union), that it finds questions the
// beam search alone misses, that it is deterministic, and that the
// sketches are the signs of the embeddings, float32 and int8 alike.
func TestDenseTopSketches(t *testing.T) {
	if testing.Short() {
		t.Skip("a graph of 33,000 nodes")
	}
	const m = 32
	g, qs := clusteredGraph(t, exactKeep+200, 128, 24)
	for _, h := range []*graph.Graph{g, g.WithInt8Embeddings()} {
		words, sk := sketchesOf(h)
		want := make([]uint64, words)
		for i := range h.Nodes {
			signBits(want, h.AppendEmbedding(nil, i))
			if !slices.Equal(sk[i*words:(i+1)*words], want) {
				t.Fatalf("int8 %v: node %d's sketch is not the signs of its embedding", h.Int8Embeddings(), i)
			}
		}
	}
	ix := NewIndex(g)
	if ix.sketches == nil {
		t.Fatal("no sketches above exactKeep")
	}
	beamMissed := 0
	for qi, qu := range qs {
		exact := map[int32]bool{}
		for _, v := range topByDot(g, qu, m, nil) {
			exact[v] = true
		}
		st := ix.getCand()
		sk := ix.sketches
		ix.sketches = nil
		beam, _ := ix.denseTop(st, qu, m, nil)
		ix.sketches = sk
		q := make([]uint64, ix.sketchWords)
		signBits(q, qu)
		sketch := topByDot(g, qu, m, ix.sketchNearest(q, max(sketchOversample*m, sketchFloor), nil))
		both, _ := ix.denseTop(st, qu, m, nil)
		again, _ := ix.denseTop(st, qu, m, nil)
		ix.cands.Put(st)
		if !slices.Equal(both, again) {
			t.Fatalf("question %d: denseTop is not deterministic", qi)
		}
		rb, rs, r := recall(exact, beam), recall(exact, sketch), recall(exact, both)
		if r < rb || r < rs {
			t.Errorf("question %d: recall %.3f below a source's (beam %.3f, sketches %.3f)", qi, r, rb, rs)
		}
		if rb < 0.5 {
			beamMissed++
			if r < 0.9 {
				t.Errorf("question %d: the beam search missed (%.3f) and so did the sketches (%.3f)", qi, rb, r)
			}
		}
	}
	t.Logf("%d of %d questions the beam search alone misses", beamMissed, len(qs))
	if beamMissed == 0 {
		t.Error("no question the beam search alone misses: the test does not exercise the sketches")
	}
}

// BenchmarkSketchesOf makes the sketches of 100k int8 rows of 768.
func BenchmarkSketchesOf(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 100_000, 768
	emb := make([]float32, n*d)
	for i := range emb {
		emb[i] = float32(rng.NormFloat64())
	}
	g, err := graph.New(make([]graph.Node, n), d, emb, nil)
	if err != nil {
		b.Fatal(err)
	}
	g = g.WithInt8Embeddings()
	for b.Loop() {
		sketchesOf(g)
	}
}

// TestInt8Signs checks int8Signs against a component-by-component oracle
// on rows of every length up to 200, zeros and both extremes included.
func TestInt8Signs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for d := range 200 {
		row := make([]byte, d)
		for j := range row {
			row[j] = byte([]int8{0, 1, -1, 127, -128, int8(rng.IntN(256) - 128)}[rng.IntN(6)])
		}
		words := (d + 63) / 64
		got, want := make([]uint64, words), make([]uint64, words)
		int8Signs(got, row)
		for j, x := range row {
			if int8(x) > 0 {
				want[j/64] |= 1 << (j % 64)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("d %d: got %x, want %x", d, got, want)
		}
	}
}
