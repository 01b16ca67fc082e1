package flowreader_test

import (
	"context"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/llm/fake"
)

// BenchmarkTwoGraphs is one pipeline serving two 16k-node graphs in turn
// (Score + Route + Select per question) against the same pipeline serving
// one of them: with the per-graph state in each Index, the second graph
// costs nothing per question. docs/performance.md has the ratio.
func BenchmarkTwoGraphs(b *testing.B) {
	ctx := context.Background()
	const n, dim = 16384, 100
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{Dim: dim}})
	if err != nil {
		b.Fatal(err)
	}
	open := func(g *graph.Graph) *flowreader.Index {
		ix, err := p.Open(ctx, g)
		if err != nil {
			b.Fatal(err)
		}
		return ix
	}
	a, c := open(synth.Topics(b, n, dim)), open(synth.Topics(b, n+1, dim))
	// Questions made of the graphs' own words, so that BM25 and the
	// relevance floor see real matches.
	questions := []string{"w7 w8 w9 w40", "w301 w302 w12", "w1500 w77 w78"}
	ask := func(ix *flowreader.Index, q string) {
		s, err := ix.Score(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		r, err := ix.Route(ctx, s)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Select(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("one", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ask(a, questions[i%len(questions)])
		}
	})
	b.Run("two", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ix := a
			if i%2 == 1 {
				ix = c
			}
			ask(ix, questions[i%len(questions)])
		}
	})
}
