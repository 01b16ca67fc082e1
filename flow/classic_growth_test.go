package flow_test

import (
	"context"
	"fmt"
	"github.com/flowreader/flowreader"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/internal/lab/cputime"
	"github.com/flowreader/flowreader/score"
)

// BenchmarkClassicGrowth is classic scoring and routing (warm router, d =
// 100) from 4k to 64k nodes, for the growth of its cost with N; set
// FLOWREADER_CLASSIC_N (comma-separated) to pick sizes. docs/scale.md has
// the figures.
func BenchmarkClassicGrowth(b *testing.B) {
	sizes := []int{4000, 8000, 16000, 32000, 64000}
	if s := os.Getenv("FLOWREADER_CLASSIC_N"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			if v, err := strconv.Atoi(f); err == nil {
				sizes = append(sizes, v)
			}
		}
	}
	ctx := context.Background()
	for _, n := range sizes {
		b.Run(fmt.Sprintf("candidates/n=%d", n), func(b *testing.B) {
			// Bounded by candidates: scored, opened and routed on the
			// subgraph of m = 256 candidates (at most 2,048 nodes).
			g := benchGraph(b, n, 100)
			ix := score.NewIndex(g)
			q := append([]float32(nil), g.Embedding(1)...)
			question := g.Nodes[1].Summary[:40]
			b.ResetTimer()
			c0 := cputime.Now()
			for range b.N {
				s, err := ix.ScoreCandidates(flowreader.Classic().Scoring, score.Query{Text: question, Embedding: q}, 256)
				if err != nil {
					b.Fatal(err)
				}
				gr, err := (&flow.Classic{}).Open(ctx, s.Graph)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := gr.Route(ctx, s, 11); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Now()-c0)/float64(b.N)/1e6, "cpu-ms")
		})
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			g := benchGraph(b, n, 100)
			ix := score.NewIndex(g)
			q := append([]float32(nil), g.Embedding(1)...)
			gr, err := (&flow.Classic{}).Open(ctx, g)
			if err != nil {
				b.Fatal(err)
			}
			question := g.Nodes[1].Summary[:40]
			b.ResetTimer()
			c0 := cputime.Now()
			for range b.N {
				s, err := ix.Score(flowreader.Classic().Scoring, score.Query{Text: question, Embedding: q})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := gr.Route(ctx, s, 11); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time: wall time on a shared machine measures the others.
			b.ReportMetric(float64(cputime.Now()-c0)/float64(b.N)/1e6, "cpu-ms")
		})
	}
}
