package graph_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/cputime"
	"github.com/flowreader/flowreader/llm/fake"
)

// BenchmarkUpdate10k compares, side by side, a full rebuild of a
// 10,000-node collection (100 documents of 100 items, offline analysis,
// hashing embedder at d = 100) with Update applying a change of one
// document to the built graph: replacing one, adding one, removing one.
// k = 14 before and after, so only the kNN lists the document touches are
// recomputed. cpu-ns/op is the process CPU time per operation, steadier
// than wall time on a shared machine.
func BenchmarkUpdate10k(b *testing.B) {
	for _, dim := range []int{100, 768} {
		all := synthCollection(101, 100)
		base := all[:100]
		replaced := append([]graph.Document(nil), base...)
		replaced[50] = graph.Document{ID: base[50].ID, Items: all[100].Items}
		removed := append(append([]graph.Document(nil), base[:50]...), base[51:]...)
		bld := &graph.Builder{Embedder: &fake.Embedder{Dim: dim}, Concurrency: runtime.GOMAXPROCS(0)}
		var g *graph.Graph
		for _, c := range []struct {
			name string
			docs []graph.Document
		}{{"rebuild", base}, {"replace1", replaced}, {"add1", all}, {"remove1", removed}} {
			b.Run(fmt.Sprintf("d=%d/%s", dim, c.name), func(b *testing.B) {
				if g == nil {
					var err error
					if g, err = bld.Build(context.Background(), base); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				c0 := cputime.Now()
				for b.Loop() {
					var err error
					if c.name == "rebuild" {
						_, err = bld.Build(context.Background(), c.docs)
					} else {
						_, _, err = bld.Update(context.Background(), g, c.docs)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, c0)
			})
		}
	}
}
