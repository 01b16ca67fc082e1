package flowreader_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/llm"
)

// synthQueries embeds the questions of a synth.Collection.
type synthQueries struct {
	c  *synth.Collection
	at map[string]int
}

func (e synthQueries) Dimension() int { return e.c.Dim }

func (e synthQueries) Embed(_ context.Context, texts []string, _ llm.Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		q := e.at[t]
		out[i] = slices.Clone(e.c.QueryEmb[q*e.c.Dim : (q+1)*e.c.Dim])
	}
	return out, nil
}

// TestOpenLargeGraph loads the graph file FLOWREADER_OPEN_FILE saved by
// `flowreader bench scale --out` (seed 1) and logs Load + Open and the
// first and median Score + Route + Select of the collection's 32
// questions, in a fresh process. It runs only when the variable is set;
// docs/scale.md has the figures.
func TestOpenLargeGraph(t *testing.T) {
	path := os.Getenv("FLOWREADER_OPEN_FILE")
	if path == "" {
		t.Skip("set FLOWREADER_OPEN_FILE to a graph saved by bench scale --out")
	}
	h, err := graph.Load(path) // only for its size: the timed Load is below
	if err != nil {
		t.Fatal(err)
	}
	n, dim := len(h.Nodes), h.Dim
	h = nil
	c := synth.NewCollection(n, dim, 32, 1)
	c.Nodes = nil
	e := synthQueries{c, map[string]int{}}
	for i, q := range c.Questions {
		e.at[q] = i
	}
	p, err := flowreader.New(flowreader.Config{Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Now()
	ix, err := p.Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	open := time.Since(t0)
	var ts []time.Duration
	for _, q := range c.Questions {
		t1 := time.Now()
		s, err := ix.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ix.Route(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Select(ctx, r); err != nil {
			t.Fatal(err)
		}
		ts = append(ts, time.Since(t1))
	}
	first := ts[0]
	slices.Sort(ts)
	t.Logf("%d nodes × %d: Load + Open %v; Score + Route + Select: first question %v, median of %d %v", n, dim, open, first, len(ts), ts[len(ts)/2])
}
