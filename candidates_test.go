package flowreader_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/llm"
)

// vecEmbedder embeds a question by the node it names ("q<i> ..."): the
// node's embedding.
type vecEmbedder struct{ g *graph.Graph }

func (e vecEmbedder) Dimension() int { return e.g.Dim }
func (e vecEmbedder) Embed(_ context.Context, texts []string, _ llm.Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		var v int
		fmt.Sscanf(t, "q%d", &v)
		out[i] = append([]float32(nil), e.g.Embedding(v%len(e.g.Nodes))...)
	}
	return out, nil
}

// BenchmarkCandidates is Score + Route + Select with candidates forced on
// and off on one synthetic graph.
func BenchmarkCandidates(b *testing.B) {
	g := synth.Topics(b, 50000, 256)
	ctx := context.Background()
	for _, c := range []int{256, -1} {
		b.Run(fmt.Sprintf("candidates=%d", c), func(b *testing.B) {
			p, err := flowreader.New(flowreader.Config{Embedder: vecEmbedder{g}, Candidates: c})
			if err != nil {
				b.Fatal(err)
			}
			ix, err := p.Open(ctx, g)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				v := (i * 7919) % len(g.Nodes)
				s, err := ix.Score(ctx, fmt.Sprintf("q%d %s", v, g.Nodes[v].Summary[:30]))
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
		})
	}
}

// TestCandidatesAsk runs Ask with candidates forced on and off: the forced
// run scores a bounded subgraph whose nodes are the graph's, and answers
// from it; off (and automatic, on a graph this small) scores every node.
func TestCandidatesAsk(t *testing.T) {
	g := synth.Topics(t, 3000, 32)
	for i := range g.Nodes { // the extractive reader answers from Content
		g.Nodes[i].Content = g.Nodes[i].Summary + "."
	}
	ctx := context.Background()
	q := "q17 " + g.Nodes[17].Summary[:30]
	for _, c := range []int{-1, 0, 64} {
		p, err := flowreader.New(flowreader.Config{Embedder: vecEmbedder{g}, Candidates: c})
		if err != nil {
			t.Fatal(err)
		}
		ix, err := p.Open(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.Ask(ctx, q, flowreader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Scores
		t.Logf("Candidates %d: answer %q (%d citations)", c, res.Answer.Text, len(res.Answer.Citations))
		if c <= 0 {
			if s.Candidates != nil || s.Graph != nil || len(s.H) != len(g.Nodes) {
				t.Fatalf("Candidates %d: scored %d of %d nodes", c, len(s.H), len(g.Nodes))
			}
			continue
		}
		if s.Graph == nil || len(s.Candidates) == 0 || len(s.Candidates) > 8*c || len(s.H) != len(s.Graph.Nodes) {
			t.Fatalf("Candidates %d: %d candidates, %d scores", c, len(s.Candidates), len(s.H))
		}
		if len(res.Evidence.Chains) == 0 {
			t.Fatal("no chains")
		}
		// The evidence names nodes of the graph the index holds, each a
		// candidate.
		for _, ch := range res.Evidence.Chains {
			for _, n := range ch.Nodes {
				if _, ok := slices.BinarySearch(s.Candidates, n.Node); !ok || g.Nodes[n.Node].ID != n.ID {
					t.Fatalf("evidence node %d (%s) is not a candidate of the graph", n.Node, n.ID)
				}
			}
		}
		if res.Answer == nil || res.Answer.Text == "" || len(res.Answer.Citations) == 0 {
			t.Fatal("no answer from the candidate subgraph")
		}
	}
}
