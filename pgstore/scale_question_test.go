package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/cputime"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// TestScaleQuestion takes one question's time over the store apart on a
// graph file made by flowreader bench scale, as bench store asks it
// (Score + Route + Select, one client, interleaved with the in-process
// index): per question the wall time, this process's CPU time and the
// database backend's CPU time (read from /proc; the pool holds one
// connection), with the fetch's stages and bytes. CPU time is what a
// loaded machine does not inflate; it says where the work is. It runs
// only when FLOWREADER_STORE_GRAPH names the file and FLOWREADER_STORE_URL
// a server of the caller's on this machine (the collection is imported
// once, as "scale-question"); FLOWREADER_STORE_ROUNDS sets the rounds of
// the 32 questions (default 2), FLOWREADER_STORE_ONLY=store or =inprocess
// asks only one of them (for a CPU profile of its side):
//
//	flowreader bench scale --nodes 100000 --dim 768 --int8 --out /tmp/100k.graph
//	FLOWREADER_STORE_URL=postgres://… FLOWREADER_STORE_GRAPH=/tmp/100k.graph \
//	  go test -run 'TestScaleQuestion$' -v -timeout 1h ./pgstore/
func TestScaleQuestion(t *testing.T) {
	path, url := os.Getenv("FLOWREADER_STORE_GRAPH"), os.Getenv("FLOWREADER_STORE_URL")
	if path == "" || url == "" {
		t.Skip("set FLOWREADER_STORE_GRAPH to a graph file of flowreader bench scale and FLOWREADER_STORE_URL to a server on this machine")
	}
	rounds := 2
	if v, err := strconv.Atoi(os.Getenv("FLOWREADER_STORE_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	only := os.Getenv("FLOWREADER_STORE_ONLY")
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := synth.NewCollection(len(g.Nodes), g.Dim, 32, 1)
	ctx := context.Background()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	s, err := Open(ctx, url+sep+"pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const name = "scale-question"
	t0 := time.Now()
	if err := s.Import(ctx, name, g, c.Documents()...); err == nil {
		fmt.Printf("import-seconds %.1f\n", time.Since(t0).Seconds())
		if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, ErrExists) {
		t.Fatal(err)
	}
	var backend int
	if err := s.pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		t.Fatal(err)
	}
	p, err := flowreader.New(flowreader.Config{Embedder: c.Embedder()})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	over, err := p.OpenStore(ctx, s, name)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(ix *flowreader.Index, q string) {
		sc, err := ix.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ix.Route(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Select(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var wall, cpu, db [2][]float64 // [in process, store]
	var bytes []float64
	for k := -1; k < rounds*len(c.Questions); k++ { // the first question twice: warm-up
		q := c.Questions[max(k, 0)%len(c.Questions)]
		for i, ix := range []*flowreader.Index{mem, over} {
			if i == 0 && only == "store" || i == 1 && only == "inprocess" {
				continue
			}
			w0, c0, d0, b0 := time.Now(), cputime.Now(), backendCPU(backend), s.read.Load()+s.written.Load()
			ask(ix, q)
			if k < 0 {
				continue
			}
			wall[i] = append(wall[i], float64(time.Since(w0).Microseconds())/1000)
			cpu[i] = append(cpu[i], (cputime.Now()-c0).Seconds()*1000)
			db[i] = append(db[i], (backendCPU(backend)-d0).Seconds()*1000)
			if i == 1 {
				bytes = append(bytes, float64(s.read.Load()+s.written.Load()-b0))
			}
		}
	}
	mean := func(xs []float64) float64 {
		t := 0.0
		for _, x := range xs {
			t += x
		}
		return t / float64(max(len(xs), 1))
	}
	p50 := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		s := slices.Sorted(slices.Values(xs))
		return s[len(s)/2]
	}
	for i, nm := range []string{"inprocess", "store"} {
		fmt.Printf("%s: wall p50 %.1f ms, mean %.1f ms; this process's CPU mean %.1f ms; database backend CPU mean %.1f ms (%d questions)\n",
			nm, p50(wall[i]), mean(wall[i]), mean(cpu[i]), mean(db[i]), len(wall[i]))
	}
	fmt.Printf("store bytes per question %.0f\n", mean(bytes))
}

// backendCPU is the database backend's CPU time, 0 where it cannot be
// read (/proc counts in ticks of 10 ms: a mean over many questions).
func backendCPU(pid int) time.Duration {
	d, _ := cputime.Of(pid)
	return d
}
