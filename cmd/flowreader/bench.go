package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/cputime"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

func benchCommand() command {
	return command{
		name:    "bench",
		summary: "measure build and question cost on a synthetic collection (bench scale), a server under load and attack (bench serve), or a collection in PostgreSQL with replicas (bench store)",
		run:     runBench,
	}
}

// benchQuestions is the fixed number of questions bench scale asks;
// benchRecallSample the nodes whose kNN edges it checks against exact.
const (
	benchQuestions    = 32
	benchRecallSample = 200
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "serve" {
		return runBenchServe(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "store" {
		return runBenchStore(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "store-replica" { // bench store's replica processes
		return runBenchStoreReplica(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "scale" {
		fmt.Fprintln(stderr, "usage: flowreader bench scale --nodes N --dim D [--seed S] [--int8]\n       flowreader bench serve -g GRAPHFILE [--clients 64] [--duration 60s] [-- SERVE FLAGS]\n       flowreader bench store --nodes N --dim D [--store URL] [--int8] [--replicas 2] [--clients 8]")
		return fmt.Errorf("want the benchmark name scale, serve or store: %w", errUsage)
	}
	fs := flag.NewFlagSet("bench scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.Int("nodes", 10000, "number of nodes")
	dim := fs.Int("dim", 768, "embedding dimension")
	seed := fs.Uint64("seed", 1, "seed of the synthetic collection")
	useInt8 := fs.Bool("int8", false, "store the embeddings as int8 with a scale per row (graph.Builder.Int8Embeddings); knn-recall stays against the float32 rows")
	out := fs.String("out", "", "also save the built graph to this `file` (after the build's figures are taken)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: flowreader bench scale --nodes N --dim D [--seed S] [--int8] [--out FILE]

Generates a topic-clustered synthetic collection (short texts from a
vocabulary, embeddings around topic centres), builds its graph without a
model (offline analysis, the embeddings given directly), asks a fixed set
of questions and prints one figure a line:
  build-seconds X               wall time of the build
  build-cpu-seconds X           CPU time of the build, all threads
  copies-seconds X              wall time of finding the content classes (graph.Graph.Copies), which Open does
  copies-cpu-seconds X          its CPU time (on a shared machine the CPU
                                times are the steadier ratio)
  peak-rss-bytes X              the process's peak resident memory up to the
                                end of the build (under a soft memory limit of
                                1.2 × (float32 embedding bytes + text) unless
                                GOMEMLIMIT is set)
  knn-recall X                  share of a sample of nodes' exact k nearest
                                neighbours that are kNN edges of them
  query-ms-median X             warm Score + Route + Select, the default
  bruteforce-query-ms-median X  the same, scoring every node
  evidence-overlap X            share of the nodes the default reads that
                                scoring every node also reads

flags:`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if fs.NArg() != 0 || *nodes < 2 || *dim < 1 {
		fs.Usage()
		return fmt.Errorf("want --nodes ≥ 2 and --dim ≥ 1 and no arguments: %w", errUsage)
	}
	return benchScale(ctx, *nodes, *dim, *seed, *useInt8, *out, stdout)
}

func benchScale(ctx context.Context, n, dim int, seed uint64, useInt8 bool, out string, stdout io.Writer) error {
	c := synth.NewCollection(n, dim, benchQuestions, seed)
	emb := c.Embedder()
	docs := c.Documents()
	c.Nodes = nil // the builder makes its own; keep one copy of the texts
	// The goal is a peak of 1.25 × (embedding bytes + text), the embedding
	// bytes counted as float32 with --int8 too. Go's collector
	// lets the heap grow to twice the live heap by default (GOGC = 100),
	// whatever the program holds; a soft memory limit below the goal makes
	// it collect sooner instead. The limit covers the runtime's memory, not
	// the binary's pages or freed pages not yet returned, which the peak RSS
	// also counts: at the goal itself, a live heap far below it (--int8)
	// still ends a few percent above. GOMEMLIMIT, when set, is left as it is.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(1.2 * float64(4*n*dim+c.TextBytes)))
	}
	runtime.GC()

	t0, c0 := time.Now(), cputime.Now()
	b := &graph.Builder{Embedder: emb, Concurrency: runtime.GOMAXPROCS(0), NoMentionLinks: true, Int8Embeddings: useInt8}
	g, err := b.Build(ctx, docs)
	if err != nil {
		return err
	}
	build, buildCPU := time.Since(t0), cputime.Now()-c0
	peak := peakRSS() // the build's peak: the questions' indexes come after
	docs = nil
	fmt.Fprintf(stdout, "build-seconds %.3f\n", build.Seconds())
	fmt.Fprintf(stdout, "build-cpu-seconds %.3f\n", buildCPU.Seconds())
	// Content classes (graph.Graph.Copies) are found on first use, by Open;
	// timed here on their own, against the build.
	t1, c1 := time.Now(), cputime.Now()
	g.Copies(0)
	fmt.Fprintf(stdout, "copies-seconds %.3f\n", time.Since(t1).Seconds())
	fmt.Fprintf(stdout, "copies-cpu-seconds %.3f\n", (cputime.Now() - c1).Seconds())
	fmt.Fprintf(stdout, "peak-rss-bytes %d\n", peak)
	if out != "" {
		if err := graph.Save(out, g); err != nil {
			return err
		}
	}

	recall := knnEdgeRecall(g, c, benchRecallSample, seed)

	def, err := flowreader.New(flowreader.Config{Embedder: emb})
	if err != nil {
		return err
	}
	full, err := flowreader.New(flowreader.Config{Embedder: emb, Candidates: -1})
	if err != nil {
		return err
	}
	di, err := def.Open(ctx, g)
	if err != nil {
		return err
	}
	fi, err := full.Open(ctx, g)
	if err != nil {
		return err
	}
	dt, dread, err := askAll(ctx, di, c.Questions)
	if err != nil {
		return err
	}
	ft, fread, err := askAll(ctx, fi, c.Questions)
	if err != nil {
		return err
	}
	same, all := 0, 0
	for q := range dread {
		all += len(dread[q])
		for _, v := range dread[q] {
			if slices.Contains(fread[q], v) {
				same++
			}
		}
	}
	overlap := 1.0
	if all > 0 {
		overlap = float64(same) / float64(all)
	}
	fmt.Fprintf(stdout, "knn-recall %.4f\n", recall)
	fmt.Fprintf(stdout, "query-ms-median %.3f\n", dt)
	fmt.Fprintf(stdout, "bruteforce-query-ms-median %.3f\n", ft)
	fmt.Fprintf(stdout, "evidence-overlap %.4f\n", overlap)
	return nil
}

// askAll runs Score + Route + Select for every question (the first twice,
// to warm up) and returns the median time in ms and, per question, the
// distinct nodes read (indexes of the index's graph).
func askAll(ctx context.Context, ix *flowreader.Index, qs []string) (float64, [][]int, error) {
	var times []float64
	read := make([][]int, len(qs))
	for k := -1; k < len(qs); k++ {
		ms, nodes, err := timeQuestion(ctx, ix, qs[max(k, 0)])
		if err != nil {
			return 0, nil, err
		}
		if k < 0 {
			continue
		}
		times = append(times, ms)
		read[k] = nodes
	}
	slices.Sort(times)
	return times[len(times)/2], read, nil
}

func readNodes(s *score.Scores, chains []flow.Chain) []int {
	var out []int
	for _, ch := range chains {
		for _, v := range ch.Nodes {
			if s.Candidates != nil {
				v = s.Candidates[v]
			}
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// knnEdgeRecall is the share of the exact k nearest neighbours of sample
// nodes (evenly spaced, offset by seed) that are kNN edges of them. Exact
// means on the collection's float32 embeddings (normalised), whatever the
// graph stores: with --int8 the figure includes the quantisation's effect.
func knnEdgeRecall(g *graph.Graph, c *synth.Collection, sample int, seed uint64) float64 {
	n := len(g.Nodes)
	k := min(max(bitsLen(n), 3), 32, n-1)
	step := max(1, n/sample)
	var at []int
	var sv [][]float32
	for i := int(seed % uint64(step)); i < n; i += step {
		v := make([]float32, c.Dim)
		c.Embedding(i, v)
		unitInPlace(v)
		at, sv = append(at, i), append(sv, v)
	}
	// Each worker keeps its own top-k per sample over a share of the rows;
	// the lists merge under the same order (similarity desc, index asc).
	type top struct {
		ids  []int
		sims []float64
	}
	offer := func(t *top, j int, s float64) {
		p := len(t.ids)
		if p == k && !(s > t.sims[k-1] || s == t.sims[k-1] && j < t.ids[k-1]) {
			return
		}
		if p < k {
			t.ids, t.sims = append(t.ids, 0), append(t.sims, 0)
		} else {
			p = k - 1
		}
		for p > 0 && (s > t.sims[p-1] || s == t.sims[p-1] && j < t.ids[p-1]) {
			t.ids[p], t.sims[p] = t.ids[p-1], t.sims[p-1]
			p--
		}
		t.ids[p], t.sims[p] = j, s
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	lists := make([][]top, workers)
	var wg sync.WaitGroup
	for w := range lists {
		lists[w] = make([]top, len(at))
		wg.Go(func() {
			row := make([]float32, c.Dim)
			for j := w; j < n; j += workers {
				c.Embedding(j, row)
				unitInPlace(row)
				for s, i := range at {
					if j != i {
						offer(&lists[w][s], j, vec.Dot(sv[s], row))
					}
				}
			}
		})
	}
	wg.Wait()
	hit, all := 0, 0
	for s, i := range at {
		t := &lists[0][s]
		for w := 1; w < workers; w++ {
			for x, j := range lists[w][s].ids {
				offer(t, j, lists[w][s].sims[x])
			}
		}
		nb, eid := g.Neighbors(i)
		for _, j := range t.ids {
			all++
			if p, ok := slices.BinarySearch(nb, int32(j)); ok && g.Edges[eid[p]].Kind&graph.EdgeKNN != 0 {
				hit++
			}
		}
	}
	return float64(hit) / float64(max(all, 1))
}

func unitInPlace(v []float32) {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s > 0 {
		inv := 1 / math.Sqrt(s)
		for i := range v {
			v[i] = float32(float64(v[i]) * inv)
		}
	}
}

// bitsLen is ⌈log2 n⌉, the Builder's default k before clipping.
func bitsLen(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// procStatusBytes is a kilobyte field of a /proc/PID/status file ("VmRSS:",
// "VmHWM:") in bytes, or 0 when it cannot be read.
func procStatusBytes(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// peakRSS is the process's peak resident set in bytes: VmHWM from
// /proc/self/status, else getrusage's maximum (kilobytes on Linux).
func peakRSS() int64 {
	if n := procStatusBytes("/proc/self/status", "VmHWM:"); n > 0 {
		return n
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		return ru.Maxrss << 10
	}
	return 0
}
