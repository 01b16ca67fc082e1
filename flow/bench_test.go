package flow_test

import (
	"context"
	"fmt"
	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/lab/cputime"
	"math"
	"testing"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/baselines"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
	"github.com/flowreader/flowreader/selector"
)

// benchGraph is the synthetic topic graph of package fixture.
func benchGraph(b *testing.B, n, dim int) *graph.Graph { return synth.Topics(b, n, dim) }

// cosinePass is the brute-force baseline: one cosine per node.
func cosinePass(g *graph.Graph, q []float32, out []float64) {
	for v := 0; v < len(g.Nodes); v++ {
		out[v] = vec.Dot(g.Embedding(v), q)
	}
}

// cosineTime is the fastest of 15 cosine passes, and the least mean CPU
// time of 10 passes over 5 rounds (the least disturbed, as for the wall
// time: a round that a collection or another process lands in says
// nothing about the pass, and taking the least makes the ratios
// conservative).
func cosineTime(g *graph.Graph, q []float32) (wall, cpu time.Duration) {
	out := make([]float64, len(g.Nodes))
	wall = time.Duration(math.MaxInt64)
	for i := 0; i < 15; i++ {
		t := time.Now()
		cosinePass(g, q, out)
		wall = min(wall, time.Since(t))
	}
	cpu = time.Duration(math.MaxInt64)
	for r := 0; r < 5; r++ {
		c0 := cputime.Now()
		for i := 0; i < 10; i++ {
			cosinePass(g, q, out)
		}
		cpu = min(cpu, (cputime.Now()-c0)/10)
	}
	return wall, cpu
}

// BenchmarkCosinePass is the brute-force cosine pass the pipeline is
// compared with.
func BenchmarkCosinePass(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("n=%d/d=100", n), func(b *testing.B) {
			g := benchGraph(b, n, 100)
			q := g.Embedding(0)
			out := make([]float64, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cosinePass(g, q, out)
			}
		})
	}
}

// BenchmarkPipeline times Score + Route + Select for one query per
// formulation and reports the ratio to one brute-force cosine pass in wall
// time ("x-cosine") and in process CPU time ("cpu-x-cosine", which includes
// the garbage collector's work) and the stage split in milliseconds (score,
// network, svd, solve, decompose, select). d = 100 is the local embedder's
// dimension; d = 768 (nomic) runs at 1k and 10k nodes. Forms open their
// router on the graph inside the timed loop (one query per graph, the
// paper's setting), except aspects-warm, the default preset as a pipeline
// runs it: opened once before the timer, so the graph's content pairs,
// bridge terms and pair index are built once, like the BM25 index every
// form gets, and only per-query work is timed.
func BenchmarkPipeline(b *testing.B) {
	type size struct{ n, dim int }
	sizes := []size{{1000, 100}, {10000, 100}, {100000, 100}, {1000, 768}, {10000, 768}}
	type form struct {
		name   string
		config score.Config
		router flow.Router
		warm   bool
		sel    selector.Selector
	}
	forms := []form{
		{"aspects", score.Config{}, &flow.Aspects{}, false, selector.Annealed()},
		{"aspects-warm", score.Config{}, &flow.Aspects{}, true, selector.Annealed()},
		{"aspects-paper", flowreader.PaperAspects().Scoring, flowreader.PaperAspects().Router, false, selector.Annealed()},
		// The default preset on the candidate subgraph of the 256 highest-h
		// nodes and their neighbours.
		{"candidates256", score.Config{}, &baselines.Candidates{M: 256}, false, selector.Annealed()},
		{"classic", flowreader.Classic().Scoring, &flow.Classic{}, false, selector.Replicator()},
	}
	ctx := context.Background()
	for _, sz := range sizes {
		if testing.Short() && sz.n > 1000 {
			continue
		}
		var g *graph.Graph
		for _, f := range forms {
			b.Run(fmt.Sprintf("%s/n=%d/d=%d", f.name, sz.n, sz.dim), func(b *testing.B) {
				if g == nil {
					g = benchGraph(b, sz.n, sz.dim)
				}
				q := append([]float32(nil), g.Embedding(1)...)
				for j := range q {
					q[j] += g.Embedding(2)[j]
				}
				ix := score.NewIndex(g)
				question := g.Nodes[1].Summary[:40]
				var warm flow.GraphRouter
				if f.warm {
					var err error
					if warm, err = f.router.Open(ctx, g); err != nil {
						b.Fatal(err)
					}
				}
				base, baseCPU := cosineTime(g, q)
				st := map[string]time.Duration{}
				var scoreT, selT time.Duration
				b.ResetTimer()
				c0 := cputime.Now()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					s, err := ix.Score(f.config, score.Query{Text: question, Embedding: q})
					if err != nil {
						b.Fatal(err)
					}
					scoreT += time.Since(t0)
					gr := warm
					if gr == nil {
						if gr, err = f.router.Open(ctx, g); err != nil {
							b.Fatal(err)
						}
					}
					r, err := gr.Route(ctx, s, 16)
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if _, err := f.sel.Select(ctx, r, 16); err != nil {
						b.Fatal(err)
					}
					selT += time.Since(t1)
					for k, d := range r.Stages {
						st[k] += d
					}
				}
				cpu := (cputime.Now() - c0) / time.Duration(b.N)
				b.StopTimer()
				per := b.Elapsed() / time.Duration(b.N)
				if baseCPU > 0 {
					// CPU time is far less disturbed by other processes than
					// wall time on a shared machine.
					b.ReportMetric(float64(cpu)/float64(baseCPU), "cpu-x-cosine")
					b.ReportMetric(float64(cpu)/1e6, "cpu-ms")
				}
				ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
				b.ReportMetric(float64(per)/float64(base), "x-cosine")
				b.ReportMetric(float64(base)/1e6, "cosine-ms")
				b.ReportMetric(ms(scoreT), "score-ms")
				b.ReportMetric(ms(st["network"]), "network-ms")
				b.ReportMetric(ms(st["svd"]), "svd-ms")
				b.ReportMetric(ms(st["solve"]), "solve-ms")
				b.ReportMetric(ms(st["decompose"]), "decomp-ms")
				b.ReportMetric(ms(selT), "select-ms")
			})
		}
	}
}

// BenchmarkTwoGraphs serves two ~16k-node graphs with one Router: both are
// opened once, then questions alternate between them. It reports the time
// per Route against routing each graph's question on that graph alone,
// averaged over the two ("ratio"): per-graph state lives in the opened
// routers, so serving a second graph costs nothing per query.
func BenchmarkTwoGraphs(b *testing.B) {
	ctx := context.Background()
	const n, dim = 16384, 100
	g1, g2 := benchGraph(b, n, dim), benchGraph(b, n+1, dim)
	rt := &flow.Aspects{}
	scores := func(g *graph.Graph) *score.Scores {
		q := append([]float32(nil), g.Embedding(1)...)
		for j := range q {
			q[j] += g.Embedding(2)[j]
		}
		s, err := score.NewIndex(g).Score(score.Config{}, score.Query{Text: g.Nodes[1].Summary[:40], Embedding: q})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	s1, s2 := scores(g1), scores(g2)
	open := func(g *graph.Graph) flow.GraphRouter {
		gr, err := rt.Open(ctx, g)
		if err != nil {
			b.Fatal(err)
		}
		return gr
	}
	r1, r2 := open(g1), open(g2)
	route := func(gr flow.GraphRouter, s *score.Scores) {
		if _, err := gr.Route(ctx, s, 16); err != nil {
			b.Fatal(err)
		}
	}
	// Each iteration times 9 interleaved rounds of 20 Routes per pattern and
	// keeps each pattern's least mean (the least disturbed round).
	round := func(do func(i int)) time.Duration {
		t := time.Now()
		for i := 0; i < 20; i++ {
			do(i)
		}
		return time.Since(t) / 20
	}
	b.ResetTimer()
	var one, two time.Duration
	for i := 0; i < b.N; i++ {
		best1, best1b, best2 := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		for r := 0; r < 9; r++ {
			best1 = min(best1, round(func(int) { route(r1, s1) }))
			best1b = min(best1b, round(func(int) { route(r2, s2) }))
			best2 = min(best2, round(func(i int) {
				if i%2 == 0 {
					route(r1, s1)
				} else {
					route(r2, s2)
				}
			}))
		}
		one += (best1 + best1b) / 2
		two += best2
	}
	b.ReportMetric(float64(one)/float64(b.N)/1e6, "one-graph-ms")
	b.ReportMetric(float64(two)/float64(b.N)/1e6, "two-graphs-ms")
	b.ReportMetric(float64(two)/float64(one), "ratio")
}
