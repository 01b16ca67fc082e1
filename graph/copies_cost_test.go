package graph_test

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/cputime"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// TestCopiesCost times the content-class detection against its oracle
// (the implementation with a slice per node and text) on one synthetic
// collection, side by side in one process, under bench scale's soft memory
// limit (1.2 × (float32 embeddings + text), which the built graph's live
// heap exceeds, so that the collector runs all the time, as in bench
// scale). A measurement, not a check: it runs only with
// FLOWREADER_COPIES_COST_N set (nodes; FLOWREADER_COPIES_COST_DIM, default
// 768), and logs CPU and wall time of each, twice, interleaved:
//
//	FLOWREADER_COPIES_COST_N=50000 go test ./graph -run TestCopiesCost -v -timeout 1h
func TestCopiesCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FLOWREADER_COPIES_COST_N"))
	if n < 2 {
		t.Skip("a measurement: set FLOWREADER_COPIES_COST_N")
	}
	dim := 768
	if d, err := strconv.Atoi(os.Getenv("FLOWREADER_COPIES_COST_DIM")); err == nil && d > 0 {
		dim = d
	}
	c := synth.NewCollection(n, dim, 4, 1)
	docs, emb := c.Documents(), c.Embedder()
	c.Nodes = nil
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(1.2 * float64(4*n*dim+c.TextBytes))))
	b := &graph.Builder{Embedder: emb, Concurrency: runtime.GOMAXPROCS(0), NoMentionLinks: true}
	c0, t0 := cputime.Now(), time.Now()
	g, err := b.Build(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("build: cpu %.2fs wall %.2fs, %d nodes, %d edges", (cputime.Now() - c0).Seconds(), time.Since(t0).Seconds(), len(g.Nodes), len(g.Edges))
	for range 2 {
		for _, f := range []struct {
			name string
			find func(*graph.Graph)
		}{{"oracle", graph.OldFindCopiesForTest}, {"findCopies", graph.FindCopiesForTest}} {
			c0, t0 := cputime.Now(), time.Now()
			f.find(g)
			t.Logf("%s: cpu %.3fs wall %.3fs", f.name, (cputime.Now() - c0).Seconds(), time.Since(t0).Seconds())
		}
	}
}
