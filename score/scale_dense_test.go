package score

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/llm"
)

// TestScaleDenseRecall measures, on a graph file of flowreader bench scale
// and bench's 32 questions, how many of the m nodes most similar to each
// question (the exact ranking: every node's cosine) each approximate dense
// pass finds:
//   - the in-process index's beam search over the kNN adjacency (denseTop,
//     used above exactKeep nodes);
//   - the sign bits of each embedding ranked by Hamming distance to the
//     question's (ties by lower index), the max(4m, 1024) nearest re-ranked
//     by the exact cosine (what a pgstore replica ranks);
//   - denseTop, which re-ranks both together.
//
// It also checks sketchNearest against a sorting oracle. It runs only when FLOWREADER_SCALE_GRAPH names the file (at 1M ×
// 768 int8 about 2.5 GB of memory, no database):
//
//	FLOWREADER_SCALE_GRAPH=/tmp/1m.graph go test -run 'TestScaleDenseRecall$' -v ./score/
func TestScaleDenseRecall(t *testing.T) {
	path := os.Getenv("FLOWREADER_SCALE_GRAPH")
	if path == "" {
		t.Skip("set FLOWREADER_SCALE_GRAPH to a graph file of flowreader bench scale")
	}
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	n := len(g.Nodes)
	c := synth.NewCollection(n, g.Dim, 32, 1)
	qv, err := c.Embedder().Embed(context.Background(), c.Questions, llm.KindQuery)
	if err != nil {
		t.Fatal(err)
	}
	const m = 256 // the default candidates (the root's defaultCandidates)
	k := max(sketchOversample*m, sketchFloor)
	t0 := time.Now()
	ix := NewIndex(g)
	built := time.Since(t0)
	t0 = time.Now()
	sketchesOf(g)
	fmt.Printf("NewIndex %.1f s, of which the sketches about %.1f s (made again)\n", built.Seconds(), time.Since(t0).Seconds())
	if ix.sketches == nil {
		t.Fatalf("%d nodes: no sketches (exactKeep %d)", n, exactKeep)
	}
	var sum, least [3]float64 // beam alone, sketches alone, denseTop (both)
	least = [3]float64{1, 1, 1}
	var took [2][]float64 // ms a question: beam alone, denseTop (interleaved)
	for qi, q := range qv {
		qu := unit(q)
		want := map[int32]bool{}
		for _, v := range topByDot(g, qu, m, nil) {
			want[v] = true
		}
		st := ix.getCand()
		sk := ix.sketches
		ix.sketches = nil
		t0 := time.Now()
		beam, _ := ix.denseTop(st, qu, m, nil)
		took[0] = append(took[0], time.Since(t0).Seconds()*1000)
		ix.sketches = sk
		qs := make([]uint64, ix.sketchWords)
		signBits(qs, qu)
		near := ix.sketchNearest(qs, k, nil)
		if oracle := hammingNearest(sk, ix.sketchWords, qs, k); !slices.Equal(near, slices.Sorted(slices.Values(oracle))) {
			t.Fatalf("question %d: sketchNearest differs from the sorting oracle", qi)
		}
		t0 = time.Now()
		both, _ := ix.denseTop(st, qu, m, nil)
		took[1] = append(took[1], time.Since(t0).Seconds()*1000)
		ix.cands.Put(st)
		r := [3]float64{recall(want, beam), recall(want, topByDot(g, qu, m, near)), recall(want, both)}
		for i := range r {
			sum[i] += r[i]
			least[i] = min(least[i], r[i])
		}
		t.Logf("question %2d: beam %.4f, sketches %.4f, both %.4f", qi, r[0], r[1], r[2])
	}
	nq := float64(len(qv))
	fmt.Printf("nodes %d, m %d, sketch neighbours re-ranked %d: recall of the exact %d nearest, mean (least) over %d questions: beam search %.4f (%.4f), sketches %.4f (%.4f), denseTop (both) %.4f (%.4f)\n",
		n, m, k, m, len(qv), sum[0]/nq, least[0], sum[1]/nq, least[1], sum[2]/nq, least[2])
	p50 := func(xs []float64) float64 { return slices.Sorted(slices.Values(xs))[len(xs)/2] }
	fmt.Printf("dense pass p50, interleaved: beam search %.2f ms, denseTop (both) %.2f ms; sketches %.1f MB\n",
		p50(took[0]), p50(took[1]), float64(8*len(ix.sketches))/1e6)
}

// hammingNearest is the k sketches nearest q by Hamming distance, ties by
// lower index: the oracle, a full sort.
func hammingNearest(sk []uint64, words int, q []uint64, k int) []int32 {
	n := len(sk) / words
	type hd struct {
		d int
		i int32
	}
	all := make([]hd, n)
	for i := range n {
		d := 0
		for j, w := range sk[i*words : (i+1)*words] {
			d += bits.OnesCount64(w ^ q[j])
		}
		all[i] = hd{d, int32(i)}
	}
	slices.SortFunc(all, func(a, b hd) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return int(a.i - b.i)
	})
	out := make([]int32, 0, k)
	for _, h := range all[:min(k, n)] {
		out = append(out, h.i)
	}
	return out
}

// topByDot is the m nodes of among (every node when nil) with the greatest
// g.Dot with qu, ties by lower index.
func topByDot(g *graph.Graph, qu []float32, m int, among []int32) []int32 {
	var h candHeap
	if among == nil {
		for v := range int32(len(g.Nodes)) {
			h.push(cand{v, g.Dot(int(v), qu)}, m)
		}
	} else {
		for _, v := range among {
			h.push(cand{v, g.Dot(int(v), qu)}, m)
		}
	}
	out := make([]int32, len(h))
	for i, c := range h {
		out[i] = c.id
	}
	return out
}

func recall(want map[int32]bool, got []int32) float64 {
	hit := 0
	for _, v := range got {
		if want[v] {
			hit++
		}
	}
	return float64(hit) / float64(max(len(want), 1))
}
