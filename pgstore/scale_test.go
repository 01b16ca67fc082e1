package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

// TestScale measures a graph file made by flowreader bench scale (its
// questions are regenerated from the same seed): import time, the
// database's size, and per question the fetch's time, round trips and
// bytes beside the in-process candidate scoring, the sketch pass's recall
// of the exact dense candidates and the overlap of the candidate
// subgraphs. It runs only when FLOWREADER_STORE_GRAPH names the file:
//
//	flowreader bench scale --nodes 100000 --dim 768 --int8 --out /tmp/100k.graph
//	FLOWREADER_STORE_GRAPH=/tmp/100k.graph go test -run TestScale -v -timeout 2h ./pgstore/
func TestScale(t *testing.T) {
	path := os.Getenv("FLOWREADER_STORE_GRAPH")
	if path == "" {
		t.Skip("set FLOWREADER_STORE_GRAPH to a graph file of flowreader bench scale")
	}
	seed := uint64(1)
	if v := os.Getenv("FLOWREADER_STORE_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t0 := time.Now()
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := synth.NewCollection(len(g.Nodes), g.Dim, 32, seed)
	t0 = time.Now()
	ctx := context.Background()
	var s *Store
	if url := os.Getenv("FLOWREADER_STORE_URL"); url != "" {
		// A server of the caller's: the collection is imported once.
		if s, err = Open(ctx, url); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	} else {
		s, _ = openTest(t)
	}
	if err := s.Import(ctx, "scale", g); err == nil {
		fmt.Printf("import-seconds %.1f (%d nodes × %d, int8 %v)\n", time.Since(t0).Seconds(), len(g.Nodes), g.Dim, g.Int8Embeddings())
		if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, ErrExists) {
		t.Fatal(err)
	}
	var total int64
	for _, tb := range []string{"nodes", "cands", "sketches", "terms", "postings", "refs", "titles", "documents", "changes"} {
		var b int64
		if err := s.pool.QueryRow(ctx, `SELECT pg_total_relation_size('flowreader.`+tb+`')`).Scan(&b); err != nil {
			t.Fatal(err)
		}
		total += b
		fmt.Printf("table-bytes %s %d (%.0f per node)\n", tb, b, float64(b)/float64(len(g.Nodes)))
	}
	fmt.Printf("database-bytes-per-node %.0f\n", float64(total)/float64(len(g.Nodes)))

	ix := score.NewIndex(g)
	cfg := score.Config{}
	const m = 256
	var tStore, tMem []float64
	trips := 0
	var stages [4][]float64
	recall, overlap, bytes := 0.0, 0.0, int64(0)
	for k, question := range c.Questions {
		q := score.Query{Text: question, Embedding: c.QueryEmb[k*g.Dim : (k+1)*g.Dim]}
		t1 := time.Now()
		want, err := ix.ScoreCandidates(cfg, q, m)
		if err != nil {
			t.Fatal(err)
		}
		tMem = append(tMem, float64(time.Since(t1).Microseconds())/1000)
		b0 := s.read.Load() + s.written.Load()
		t1 = time.Now()
		f, err := s.fetch(ctx, "scale", q, m, cfg, fetchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tStore = append(tStore, float64(time.Since(t1).Microseconds())/1000)
		trips = f.trips
		for i, d := range f.stages {
			stages[i] = append(stages[i], float64(d.Microseconds())/1000)
		}
		bytes += s.read.Load() + s.written.Load() - b0
		// The exact m nearest, by brute force.
		qu := vec.Unit(q.Embedding)
		type cs struct {
			v int
			s float64
		}
		all := make([]cs, len(g.Nodes))
		for v := range all {
			all[v] = cs{v, g.Dot(v, qu)}
		}
		slices.SortFunc(all, func(a, b cs) int {
			if a.s != b.s {
				if a.s > b.s {
					return -1
				}
				return 1
			}
			return a.v - b.v
		})
		exact := map[int64]bool{}
		for _, x := range all[:m] {
			exact[int64(x.v)] = true
		}
		hit := 0
		for _, v := range f.dense {
			if exact[v] {
				hit++
			}
		}
		recall += float64(hit) / m
		in := map[int64]bool{}
		for _, v := range want.Candidates {
			in[int64(v)] = true
		}
		same := 0
		for _, v := range f.seqs {
			if in[v] {
				same++
			}
		}
		overlap += float64(same) / float64(max(len(f.seqs), len(want.Candidates)))
	}
	n := float64(len(c.Questions))
	slices.Sort(tStore)
	slices.Sort(tMem)
	fmt.Printf("fetch-ms p50 %.1f p99 %.1f (%d round trips)\n", tStore[len(tStore)/2], tStore[len(tStore)*99/100], trips)
	for i, name := range []string{"round-trip-1", "dense-pass", "seeds", "round-trip-2"} {
		slices.Sort(stages[i])
		fmt.Printf("fetch-stage-ms %s p50 %.1f\n", name, stages[i][len(stages[i])/2])
	}
	fmt.Printf("in-process-candidates-ms p50 %.1f p99 %.1f\n", tMem[len(tMem)/2], tMem[len(tMem)*99/100])
	fmt.Printf("bytes-per-question %.0f\n", float64(bytes)/n)
	fmt.Printf("sketch-dense-recall %.4f (of the exact %d nearest)\n", recall/n, m)
	fmt.Printf("candidate-overlap %.4f (store vs in-process subgraph nodes)\n", overlap/n)
}
