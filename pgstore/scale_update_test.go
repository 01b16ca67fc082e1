package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// TestScaleUpdate times Store.Update on a graph file made by flowreader
// bench scale: bench store's update (the first document replaced by 100
// new nodes), then back, each made by graph.Builder.Update from the
// graph before (untimed), FLOWREADER_STORE_UPDATES times (default 2), with
// the Diff graph.Builder.Update returned and without one (only with it
// when FLOWREADER_STORE_DIFF=only). It runs only when
// FLOWREADER_STORE_GRAPH names the file; FLOWREADER_STORE_URL names a
// server to keep the collection in between runs (imported once):
//
//	flowreader bench scale --nodes 100000 --dim 768 --int8 --out /tmp/100k.graph
//	FLOWREADER_STORE_GRAPH=/tmp/100k.graph go test -run TestScaleUpdate -v -timeout 1h ./pgstore/
func TestScaleUpdate(t *testing.T) {
	path := os.Getenv("FLOWREADER_STORE_GRAPH")
	if path == "" {
		t.Skip("set FLOWREADER_STORE_GRAPH to a graph file of flowreader bench scale")
	}
	rounds := 2
	if v := os.Getenv("FLOWREADER_STORE_UPDATES"); v != "" {
		rounds, _ = strconv.Atoi(v)
	}
	ctx := context.Background()
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := synth.NewCollection(len(g.Nodes), g.Dim, 32, 1)
	docs := c.Documents()
	b := &graph.Builder{Embedder: c.Embedder(), Concurrency: runtime.GOMAXPROCS(0), NoMentionLinks: true, Int8Embeddings: g.Int8Embeddings()}
	docs2 := synth.SecondEdition(docs)
	var s *Store
	if url := os.Getenv("FLOWREADER_STORE_URL"); url != "" {
		if s, err = Open(ctx, url); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	} else {
		s, _ = openTest(t)
	}
	const name = "scale-update"
	t0 := time.Now()
	if err := s.Import(ctx, name, g, docs...); err == nil {
		fmt.Printf("import-seconds %.1f\n", time.Since(t0).Seconds())
		if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, ErrExists) {
		t.Fatal(err)
	} else if _, err := s.Update(ctx, name, version(t, s, name), g, nil, docs...); err != nil {
		// A collection kept from an earlier run holds that run's last
		// graph: brought to g (untimed) by comparing everything.
		t.Fatal(err)
	}
	var stages []string
	last := time.Now()
	s.trace = func(stage string) {
		stages = append(stages, fmt.Sprintf("%s %.0f", stage, float64(time.Since(last).Microseconds())/1000))
		last = time.Now()
	}
	// Each step updates the graph the collection holds (cur) with
	// graph.Builder.Update, untimed, and commits its result with its Diff
	// (a Diff describes the graph it came with: on the HNSW path updating
	// back does not give g again).
	v := version(t, s, name)
	cur := g
	for r := range rounds {
		modes := []bool{true, false}
		if os.Getenv("FLOWREADER_STORE_DIFF") == "only" {
			modes = modes[:1]
		}
		for _, withDiff := range modes {
			for k, ds := range [][]graph.Document{docs2, docs} {
				ng, diff, err := b.Update(ctx, cur, ds)
				if err != nil {
					t.Fatal(err)
				}
				var d *graph.Diff
				if withDiff {
					d = &diff
				}
				t0 := time.Now()
				stages, last = stages[:0], t0
				if v, err = s.Update(ctx, name, v, ng, d, ds...); err != nil {
					t.Fatal(err)
				}
				fmt.Printf("update-ms %.1f (round %d, diff %v, step %d): %s\n", float64(time.Since(t0).Microseconds())/1000, r, withDiff, k, strings.Join(stages, ", "))
				cur = ng
			}
		}
	}
}
