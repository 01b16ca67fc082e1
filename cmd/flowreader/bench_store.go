package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/pgtest"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/pgstore"
)

const benchStoreUsage = `usage: flowreader bench store --nodes N --dim D [--store URL] [--seed S] [--int8]
                              [--replicas R] [--clients C] [--rounds K] [--graph FILE]
                              [--shared-buffers SIZE]

Builds a synthetic collection (as bench scale), imports it into a
PostgreSQL store (--store URL, else a throwaway server started here with
Debian's postgresql-15, with PostgreSQL's default shared_buffers of 128MB
unless --shared-buffers sets it), and prints one figure a line:
  import-seconds X               Import of the built graph, one transaction
  db-bytes-per-node X            the database's size over the node count
  inprocess-ms-p50 X, -p99 X     a question (Index.Retrieve: Score, Route,
                                 Select, the selected nodes' text) over the
                                 graph in this process (sequential)
  store-ms-p50 X, -p99 X         the same over the store, one client,
                                 interleaved with the in-process questions
  evidence-overlap X             share of the nodes the in-process index
                                 reads that the store's index also reads
  steps-inprocess-ms-p50 X, -p99 X
  steps-store-ms-p50 X, -p99 X   Score, Route and Select called one by one
                                 (Select reads the chains' text, as
                                 Retrieve does), interleaved the same
                                 way, the store's from
                                 a second store handle (its caches as cold);
                                 the two passes take turns asking first
  loaded-store-ms-p50 X, -p99 X  over the store with R replica processes ×
                                 C concurrent clients, K rounds of the
                                 questions each (after one warm-up round)
  loaded-inprocess-ms-p50 X, -p99 X
                                 the in-process index under the same load
                                 right after: R × C concurrent clients in
                                 this process, K rounds each
  replica-rss-bytes X            the largest replica process's peak RSS
  replica-qps X                  questions per second, all replicas
  inprocess-qps X                questions per second, in process, loaded
  update-commit-ms X             Update of one document replaced by 100
                                 new nodes (one transaction)
  update-to-visible-ms X         from that commit to the first answer from
                                 the new version, by a replica that asked
                                 before it

flags:`

// benchStoreQuestions is the number of questions bench store asks.
const benchStoreQuestions = 32

func runBenchStore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench store", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.Int("nodes", 10000, "number of nodes")
	dim := fs.Int("dim", 768, "embedding dimension")
	seed := fs.Uint64("seed", 1, "seed of the synthetic collection")
	useInt8 := fs.Bool("int8", false, "store the embeddings as int8 with a scale per row")
	url := fs.String("store", "", "PostgreSQL URL to import into (default: a throwaway server started here)")
	replicas := fs.Int("replicas", 2, "replica processes for the loaded figures")
	clients := fs.Int("clients", 8, "concurrent clients per replica")
	rounds := fs.Int("rounds", 2, "rounds of the questions per client")
	sharedBuffers := fs.String("shared-buffers", "", "shared_buffers of the throwaway server, e.g. 6GB (PostgreSQL's docs suggest about 25% of RAM for a dedicated server; default: PostgreSQL's, 128MB)")
	graphFile := fs.String("graph", "", "the collection's graph as flowreader bench scale --out wrote it with the same --nodes, --dim, --seed and --int8 (skips the build)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), benchStoreUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if fs.NArg() != 0 || *nodes < 400 || *dim < 1 || *replicas < 1 || *clients < 1 || *rounds < 1 {
		fs.Usage()
		return fmt.Errorf("want --nodes ≥ 400, --dim ≥ 1, --replicas, --clients and --rounds ≥ 1 and no arguments: %w", errUsage)
	}
	var settings []string
	if *sharedBuffers != "" {
		if *url != "" {
			return fmt.Errorf("--shared-buffers sets the throwaway server's, not one given with --store: %w", errUsage)
		}
		if !validSize(*sharedBuffers) {
			return fmt.Errorf("--shared-buffers %q: want a size such as 512MB or 6GB: %w", *sharedBuffers, errUsage)
		}
		settings = append(settings, "shared_buffers = '"+*sharedBuffers+"'")
	}
	if *url == "" {
		h := &benchTB{}
		defer h.cleanup()
		srv, err := h.startServer(settings...)
		if err != nil {
			return err
		}
		*url = srv.URL()
	}

	c := synth.NewCollection(*nodes, *dim, benchStoreQuestions, *seed)
	emb := c.Embedder()
	docs := c.Documents()
	b := &graph.Builder{Embedder: emb, Concurrency: runtime.GOMAXPROCS(0), NoMentionLinks: true, Int8Embeddings: *useInt8}
	t0 := time.Now()
	var g *graph.Graph
	var err error
	if *graphFile != "" {
		if g, err = graph.Load(*graphFile); err != nil {
			return err
		}
		if len(g.Nodes) != len(c.Nodes) || g.Dim != *dim || g.Int8Embeddings() != *useInt8 {
			return fmt.Errorf("bench store: %s has %d nodes × %d (int8 %v), not the collection of --nodes %d --dim %d --int8=%v: %w",
				*graphFile, len(g.Nodes), g.Dim, g.Int8Embeddings(), *nodes, *dim, *useInt8, errUsage)
		}
		fmt.Fprintf(stderr, "bench store: loaded %d nodes × %d in %.1f s\n", len(g.Nodes), g.Dim, time.Since(t0).Seconds())
	} else {
		if g, err = b.Build(ctx, docs); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench store: built %d nodes × %d in %.1f s\n", len(g.Nodes), g.Dim, time.Since(t0).Seconds())
	}

	s, err := pgstore.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer s.Close()
	name := fmt.Sprintf("bench-%d-%d-%d", *nodes, *dim, time.Now().UnixNano())
	t0 = time.Now()
	if err := s.Import(ctx, name, g, docs...); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "import-seconds %.1f\n", time.Since(t0).Seconds())
	defer s.Drop(context.WithoutCancel(ctx), name)
	if size, err := dbSize(ctx, *url); err == nil {
		fmt.Fprintf(stdout, "db-bytes-per-node %d\n", size/int64(len(g.Nodes)))
	} else {
		fmt.Fprintf(stderr, "bench store: database size: %v\n", err)
	}

	// Sequential, interleaved: in-process, then the store, per question.
	p, err := flowreader.New(flowreader.Config{Embedder: emb})
	if err != nil {
		return err
	}
	mem, err := p.Open(ctx, g)
	if err != nil {
		return err
	}
	over, err := p.OpenStore(ctx, s, name)
	if err != nil {
		return err
	}
	// The steps' figures over a store handle of their own, so that each of
	// its questions finds the replica's caches (keyword frequencies) as
	// cold as the first pass's does.
	s2, err := pgstore.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer s2.Close()
	over2, err := p.OpenStore(ctx, s2, name)
	if err != nil {
		return err
	}
	var memMS, storeMS, memSteps, storeSteps []float64
	same, all := 0, 0
	for k := -1; k < len(c.Questions); k++ { // the first twice: warm-up
		q := c.Questions[max(k, 0)]
		var (
			mt, st, ms, ss float64
			mread, sread   []int
		)
		ask := func() (err error) {
			if mt, mread, err = askQuestion(ctx, mem, q); err == nil {
				st, sread, err = askQuestion(ctx, over, q)
			}
			return err
		}
		steps := func() (err error) {
			if ms, _, err = timeQuestion(ctx, mem, q); err == nil {
				ss, _, err = timeQuestion(ctx, over2, q)
			}
			return err
		}
		// The pass that asks a question second finds the database's
		// buffers holding its rows: the two passes take turns going first.
		first, second := ask, steps
		if k%2 != 0 {
			first, second = steps, ask
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
		if k < 0 {
			continue
		}
		memMS, storeMS = append(memMS, mt), append(storeMS, st)
		memSteps, storeSteps = append(memSteps, ms), append(storeSteps, ss)
		all += len(mread)
		for _, v := range mread {
			if slices.Contains(sread, v) {
				same++
			}
		}
	}
	fmt.Fprintf(stdout, "inprocess-ms-p50 %.2f\ninprocess-ms-p99 %.2f\n", pct(memMS, 0.5), pct(memMS, 0.99))
	fmt.Fprintf(stdout, "store-ms-p50 %.2f\nstore-ms-p99 %.2f\n", pct(storeMS, 0.5), pct(storeMS, 0.99))
	fmt.Fprintf(stdout, "evidence-overlap %.4f\n", float64(same)/float64(max(all, 1)))
	fmt.Fprintf(stdout, "steps-inprocess-ms-p50 %.2f\nsteps-inprocess-ms-p99 %.2f\n", pct(memSteps, 0.5), pct(memSteps, 0.99))
	fmt.Fprintf(stdout, "steps-store-ms-p50 %.2f\nsteps-store-ms-p99 %.2f\n", pct(storeSteps, 0.5), pct(storeSteps, 0.99))

	// Replica processes under load.
	qfile := filepath.Join(os.TempDir(), name+".questions.json")
	if err := writeQuestions(qfile, c); err != nil {
		return err
	}
	defer os.Remove(qfile)
	loaded, rss, qps, err := runReplicas(ctx, *url, name, qfile, *replicas, *clients, *rounds, stderr)
	if err != nil {
		return err
	}
	// The in-process index under the same load, right after: R × C
	// clients in this process asking the same questions as often, so that
	// the loaded ratio compares like with like (the two cores are shared
	// by the clients either way).
	memLoaded, memQPS, err := loadIndex(ctx, mem, c.Questions, *replicas**clients, *rounds)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "loaded-store-ms-p50 %.2f\nloaded-store-ms-p99 %.2f\n", pct(loaded, 0.5), pct(loaded, 0.99))
	fmt.Fprintf(stdout, "loaded-inprocess-ms-p50 %.2f\nloaded-inprocess-ms-p99 %.2f\n", pct(memLoaded, 0.5), pct(memLoaded, 0.99))
	fmt.Fprintf(stdout, "replica-rss-bytes %d\n", rss)
	fmt.Fprintf(stdout, "replica-qps %.1f\n", qps)
	fmt.Fprintf(stdout, "inprocess-qps %.1f\n", memQPS)

	// An update: the first document replaced by one of 100 new nodes.
	docs2 := synth.SecondEdition(docs)
	g2, diff, err := b.Update(ctx, g, docs2)
	if err != nil {
		return err
	}
	base := int64(0)
	cs, err := s.Collections(ctx)
	if err != nil {
		return err
	}
	for _, col := range cs {
		if col.Name == name {
			base = col.Version
		}
	}
	// A replica that has answered before the update (its sketches loaded).
	rs, err := pgstore.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer rs.Close()
	rix, err := p.OpenStore(ctx, rs, name)
	if err != nil {
		return err
	}
	only := flowreader.Options{Filter: flowreader.Filter{IDs: []string{docs2[0].ID}}}
	if _, err := rix.Retrieve(ctx, c.Questions[0], only); err != nil {
		return err
	}
	t0 = time.Now()
	if _, err := s.Update(ctx, name, base, g2, &diff, docs2...); err != nil {
		return err
	}
	committed := time.Now()
	fmt.Fprintf(stdout, "update-commit-ms %.1f\n", float64(committed.Sub(t0).Microseconds())/1000)
	for {
		ev, err := rix.Retrieve(ctx, c.Questions[0], only)
		if err != nil {
			return err
		}
		if fresh(ev) {
			break
		}
		if time.Since(committed) > time.Minute {
			return errors.New("bench store: the update was not visible within a minute")
		}
	}
	fmt.Fprintf(stdout, "update-to-visible-ms %.1f\n", float64(time.Since(committed).Microseconds())/1000)
	return nil
}

// fresh reports whether evidence reads the updated document's new text.
func fresh(ev *flowreader.Evidence) bool {
	for _, ch := range ev.Chains {
		for _, n := range ch.Nodes {
			if strings.Contains(n.Text, "edition2") {
				return true
			}
		}
	}
	return false
}

// askQuestion asks q as a service does (Index.Retrieve: Score, Route,
// Select and the selected nodes' text) and returns the time in ms and the
// distinct nodes read (positions in the collection).
func askQuestion(ctx context.Context, ix *flowreader.Index, q string) (float64, []int, error) {
	t := time.Now()
	ev, err := ix.Retrieve(ctx, q, flowreader.Options{})
	if err != nil {
		return 0, nil, err
	}
	ms := float64(time.Since(t).Microseconds()) / 1000
	var read []int
	for _, ch := range ev.Chains {
		for _, n := range ch.Nodes {
			if !slices.Contains(read, n.Node) {
				read = append(read, n.Node)
			}
		}
	}
	return ms, read, nil
}

// timeQuestion runs Score + Route + Select and returns the time in ms and
// the distinct nodes read (positions in the collection).
func timeQuestion(ctx context.Context, ix *flowreader.Index, q string) (float64, []int, error) {
	t := time.Now()
	s, err := ix.Score(ctx, q)
	if err != nil {
		return 0, nil, err
	}
	r, err := ix.Route(ctx, s)
	if err != nil {
		return 0, nil, err
	}
	chains, err := ix.Select(ctx, r)
	if err != nil {
		return 0, nil, err
	}
	return float64(time.Since(t).Microseconds()) / 1000, readNodes(s, chains), nil
}

// pct is the p-quantile of xs (nearest rank).
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// dbSize is the database's size in bytes.
func dbSize(ctx context.Context, url string) (int64, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n)
	return n, err
}

// benchQuestionsFile is what a replica process reads: the questions and
// their embeddings.
type benchQuestionsFile struct {
	Dim       int         `json:"dim"`
	Questions []string    `json:"questions"`
	Emb       [][]float32 `json:"emb"`
}

func writeQuestions(path string, c *synth.Collection) error {
	f := benchQuestionsFile{Dim: c.Dim, Questions: c.Questions}
	for k := range c.Questions {
		f.Emb = append(f.Emb, c.QueryEmb[k*c.Dim:(k+1)*c.Dim])
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// runReplicas starts n replica processes (this binary, bench
// store-replica), each asking every question rounds times from each of its
// clients, and returns every question's time, the largest peak RSS and
// the questions per second of all replicas together.
func runReplicas(ctx context.Context, url, name, qfile string, n, clients, rounds int, stderr io.Writer) ([]float64, int64, float64, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, 0, 0, err
	}
	var (
		mu    sync.Mutex
		times []float64
		rss   int64
		qps   float64
		wg    sync.WaitGroup
		errs  = make([]error, n)
	)
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, self, "bench", "store-replica", "--store", url, "--collection", name, "--questions", qfile,
				"--clients", strconv.Itoa(clients), "--rounds", strconv.Itoa(rounds))
			cmd.Stderr = stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				errs[r] = err
				return
			}
			if err := cmd.Start(); err != nil {
				errs[r] = err
				return
			}
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) != 2 {
					continue
				}
				x, err := strconv.ParseFloat(f[1], 64)
				if err != nil {
					continue
				}
				mu.Lock()
				switch f[0] {
				case "ms":
					times = append(times, x)
				case "hwm-bytes":
					rss = max(rss, int64(x))
				case "qps":
					qps += x
				}
				mu.Unlock()
			}
			if err := cmd.Wait(); err != nil {
				errs[r] = fmt.Errorf("replica %d: %w", r, err)
			}
		}()
	}
	wg.Wait()
	return times, rss, qps, errors.Join(errs...)
}

// loadIndex asks the questions of ix from clients concurrent clients,
// rounds times each (in the order a replica's clients ask them), and
// returns every question's time and the questions per second.
func loadIndex(ctx context.Context, ix *flowreader.Index, questions []string, clients, rounds int) ([]float64, float64, error) {
	var mu sync.Mutex
	var times []float64
	errs := make([]error, clients)
	var wg sync.WaitGroup
	t0 := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for k := range questions {
					ms, _, err := askQuestion(ctx, ix, questions[(k+c*7+r)%len(questions)])
					if err != nil {
						errs[c] = err
						return
					}
					mu.Lock()
					times = append(times, ms)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return times, float64(len(times)) / time.Since(t0).Seconds(), errors.Join(errs...)
}

// runBenchStoreReplica is one replica of bench store: it opens the
// collection over the store (holding no copy), warms up with one round,
// then each client asks every question rounds times; it prints each
// question's time (Index.Retrieve, "ms X"), its questions per
// second ("qps X") and its peak RSS ("hwm-bytes X").
func runBenchStoreReplica(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench store-replica", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("store", "", "PostgreSQL URL")
	coll := fs.String("collection", "", "collection")
	qfile := fs.String("questions", "", "questions file")
	clients := fs.Int("clients", 8, "concurrent clients")
	rounds := fs.Int("rounds", 2, "rounds of the questions per client")
	memProfile := fs.String("memprofile", "", "write a heap profile at the end to this file, and the Go heap's figures to stderr")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if *memProfile != "" {
		stop := sampleMemory(stderr)
		defer func() {
			stop()
			if f, err := os.Create(*memProfile); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	b, err := os.ReadFile(*qfile)
	if err != nil {
		return err
	}
	var qf benchQuestionsFile
	if err := json.Unmarshal(b, &qf); err != nil {
		return err
	}
	s, err := pgstore.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := flowreader.New(flowreader.Config{Embedder: questionEmbedder(qf)})
	if err != nil {
		return err
	}
	ix, err := p.OpenStore(ctx, s, *coll)
	if err != nil {
		return err
	}
	for _, q := range qf.Questions { // warm-up: the sketches, the pool
		if _, _, err := askQuestion(ctx, ix, q); err != nil {
			return err
		}
	}
	times, qps, err := loadIndex(ctx, ix, qf.Questions, *clients, *rounds)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	for _, t := range times {
		fmt.Fprintf(w, "ms %.3f\n", t)
	}
	fmt.Fprintf(w, "qps %.2f\n", qps)
	fmt.Fprintf(w, "hwm-bytes %d\n", peakRSS())
	return w.Flush()
}

// sampleMemory samples the Go heap and the RSS every 10 ms until the
// returned function is called, which prints the peaks to w.
func sampleMemory(w io.Writer) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		var inuse, sys, next, stack, rss uint64
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			inuse, sys, next = max(inuse, ms.HeapInuse), max(sys, ms.HeapSys-ms.HeapReleased), max(next, ms.NextGC)
			stack, rss = max(stack, ms.StackInuse), max(rss, uint64(currentRSS()))
			select {
			case <-done:
				fmt.Fprintf(w, "replica memory peaks: heap in use %d, heap held %d, next GC %d, stacks %d, RSS %d; at end: heap in use %d, RSS %d, VmHWM %d, GCs %d\n",
					inuse, sys, next, stack, rss, ms.HeapInuse, currentRSS(), peakRSS(), ms.NumGC)
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// currentRSS is the process's resident set size (VmRSS), or 0.
func currentRSS() int64 { return procStatusBytes("/proc/self/status", "VmRSS:") }

// questionEmbedder embeds the questions of a questions file.
type questionEmbedder benchQuestionsFile

func (e questionEmbedder) Dimension() int { return e.Dim }

func (e questionEmbedder) Embed(_ context.Context, texts []string, _ llm.Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		k := slices.Index(e.Questions, t)
		if k < 0 {
			return nil, fmt.Errorf("bench: not one of the questions: %q", t)
		}
		out[i] = slices.Clone(e.Emb[k])
	}
	return out, nil
}

// benchTB runs pgtest's helpers outside a test: a failure or skip is an
// error, cleanups run at the end.
type benchTB struct {
	err      error
	cleanups []func()
}

func (b *benchTB) Helper()                   {}
func (b *benchTB) Logf(string, ...any)       {}
func (b *benchTB) Cleanup(f func())          { b.cleanups = append(b.cleanups, f) }
func (b *benchTB) Skipf(f string, a ...any)  { b.fail(f, a...) }
func (b *benchTB) Fatalf(f string, a ...any) { b.fail(f, a...) }

// startServer runs pgtest.Start on a goroutine of its own, which a
// failure ends (as testing's Fatalf ends a test's).
func (b *benchTB) startServer(settings ...string) (*pgtest.Server, error) {
	done := make(chan *pgtest.Server)
	go func() {
		var s *pgtest.Server
		defer func() { done <- s }()
		s = pgtest.Start(b, settings...)
	}()
	s := <-done
	if b.err != nil || s == nil {
		return nil, fmt.Errorf("bench store: starting PostgreSQL: %w", errors.Join(b.err, errors.New("no server")))
	}
	return s, nil
}

// fail records the error and ends the calling goroutine (startServer's).
func (b *benchTB) fail(f string, a ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(f, a...)
	}
	runtime.Goexit()
}

func (b *benchTB) cleanup() {
	for i := len(b.cleanups) - 1; i >= 0; i-- {
		b.cleanups[i]()
	}
}

// validSize reports whether s is a PostgreSQL memory size: digits and a
// unit of kB, MB, GB or TB (what a setting line may hold, nothing more).
func validSize(s string) bool {
	for _, u := range []string{"kB", "MB", "GB", "TB"} {
		if d, ok := strings.CutSuffix(s, u); ok && d != "" && strings.Trim(d, "0123456789") == "" {
			return true
		}
	}
	return false
}
