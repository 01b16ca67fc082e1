package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/pgstore"
	"github.com/flowreader/flowreader/server"
)

func serveCommand() command {
	return command{
		name:    "serve",
		summary: "serve a graph file over HTTP: retrieve, ask, graph summary, MCP at /mcp",
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runServe(ctx, args, stdout, stderr, os.Getenv)
		},
	}
}

// indexFlags are the flags serve and mcp share: the graph file and how to
// read it (the pipeline preset, models, images, budget).
type indexFlags struct {
	cmd         string // the command's name, for messages
	graphFile   string
	preset      string
	images      string
	concurrency int
	budget      int
	ep          endpoints
	tel         telemetryFlags
	// limits shared by serve and mcp
	inFlight, queue, maxBudget int
	timeout                    time.Duration
}

func (f *indexFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.graphFile, "g", "", "graph file written by flowreader build (required unless serve --store)")
	fs.StringVar(&f.preset, "preset", "aspects", presetUsage)
	fs.StringVar(&f.images, "images", "", "folder the graph's image paths are relative to (default: the folder build recorded in the graph file, else the current folder)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "model calls in flight per answer (0 = the reader's default)")
	fs.IntVar(&f.budget, "budget", 0, "default chains to read when a request gives none (0 = the preset's: 16 aspects, 11 classic)")
	f.ep.register(fs)
	f.ep.registerRerank(fs)
	f.tel.register(fs)
	fs.IntVar(&f.inFlight, "max-inflight", 0, "retrieve and ask calls running at once (0 = the number of CPUs)")
	fs.IntVar(&f.queue, "max-queue", 0, "calls waiting for a slot, in arrival order; more are refused with busy (0 = 256, -1 = none)")
	fs.IntVar(&f.maxBudget, "max-budget", 0, "largest budget a request may ask for; larger ones are refused (0 = 256)")
	fs.DurationVar(&f.timeout, "call-timeout", 0, "longest retrieve or ask, the wait for a slot included; past it the call is cancelled (0 = 2m)")
}

// options are the server.Options of the shared flags.
func (f *indexFlags) options(log *slog.Logger) server.Options {
	return server.Options{MaxInFlight: f.inFlight, MaxQueue: f.queue, MaxBudget: f.maxBudget, Timeout: f.timeout, Logger: log}
}

// open loads the graph once and opens it with the configured pipeline,
// logging and tracing as --log-level and --trace say. The returned flush
// ends the trace; call it once on the way out.
func (f *indexFlags) open(ctx context.Context, getenv func(string) string, stderr io.Writer, cmd string) (_ *flowreader.Index, flush func() error, err error) {
	if f.graphFile == "" {
		return nil, nil, fmt.Errorf("-g GRAPHFILE is required: %w", errUsage)
	}
	f.cmd = cmd
	p, ms, flush, err := f.pipeline(getenv, stderr)
	if err != nil {
		return nil, nil, err
	}
	ix, err := f.load(ctx, p, ms, stderr, cmd)
	if err != nil {
		flush()
		return nil, nil, err
	}
	return ix, flush, nil
}

// pipeline makes the configured pipeline (preset, models, logging and
// tracing); flush ends the trace.
func (f *indexFlags) pipeline(getenv func(string) string, stderr io.Writer) (_ *flowreader.Pipeline, _ models, flush func() error, err error) {
	switch {
	case f.concurrency < 0:
		return nil, models{}, nil, fmt.Errorf("--concurrency %d is negative: %w", f.concurrency, errUsage)
	case f.budget < 0:
		return nil, models{}, nil, fmt.Errorf("--budget %d is negative: %w", f.budget, errUsage)
	}
	if _, err := os.Stat(f.graphFile); f.graphFile != "" && errors.Is(err, os.ErrNotExist) {
		return nil, models{}, nil, fmt.Errorf("graph file %s does not exist (make one with: flowreader build -o %s PATH...)", f.graphFile, f.graphFile)
	}
	cfg, err := presetConfig(f.preset)
	if err != nil {
		return nil, models{}, nil, err
	}
	if cfg.Logger, err = f.tel.logger(stderr); err != nil {
		return nil, models{}, nil, err
	}
	f.ep.log = cfg.Logger
	ms, err := f.ep.resolve(getenv)
	if err != nil {
		return nil, models{}, nil, err
	}
	// The image root: --images, else the graph's own (cfg.ImageRoot "").
	cfg.Embedder, cfg.Model, cfg.Concurrency, cfg.ImageRoot = ms.embedder, ms.model, f.concurrency, f.images
	cfg.Reranker = ms.reranker
	if f.budget > 0 {
		cfg.Budget = f.budget
	}
	flush, err = f.tel.streamTrace(&cfg)
	if err != nil {
		return nil, models{}, nil, err
	}
	p, err := flowreader.New(cfg)
	if err != nil {
		flush()
		return nil, models{}, nil, err
	}
	for _, n := range p.Notes() {
		fmt.Fprintf(stderr, "%s: note: %s\n", f.cmd, n)
	}
	return p, ms, flush, nil
}

// load reads the graph file and opens it with p.
func (f *indexFlags) load(ctx context.Context, p *flowreader.Pipeline, ms models, stderr io.Writer, cmd string) (*flowreader.Index, error) {
	g, err := loadForEmbedder(ctx, f.graphFile, p.Embedder(), "dimension probe")
	if err != nil {
		return nil, err
	}
	if name := embedderName(p.Embedder()); g.Embedder != "" && strings.TrimSuffix(name, ":latest") != strings.TrimSuffix(g.Embedder, ":latest") {
		fmt.Fprintf(stderr, "%s: warning: %s was built with embedder %q, questions are embedded with %q (same dimension %d; answers may be poor)\n", cmd, termsafe.Text(f.graphFile), g.Embedder, name, g.Dim)
	}
	// As ask: --images, else the root build recorded in the graph file,
	// else the current folder.
	switch {
	case f.images != "":
		g.ImageRoot = f.images
	case g.ImageRoot == "":
		g.ImageRoot = "."
	}
	if ms.model != nil {
		warnMissingImages(stderr, cmd, g, g.ImageRoot)
	}
	return p.Open(ctx, g)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) (err error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := indexFlags{cmd: "serve"}
	f.register(fs)
	storeURL := fs.String("store", "", "PostgreSQL URL of a flowreader store: serve its collections (each request names its \"collection\") instead of a graph file")
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on (port 0 picks a free port; the address is printed)")
	maxBody := fs.Int64("max-body", 0, "largest request body in bytes (0 = 64 KiB)")
	writeTimeout := fs.Duration("write-timeout", 0, "longest write of one response, from its first byte; a client that does not read is cut off (0 = 30s)")
	grace := fs.Duration("shutdown-grace", 10*time.Second, "on SIGINT or SIGTERM, how long calls in flight may run on before they are cut")
	tokenFile := fs.String("token-file", "", "file of bearer tokens, one a line: every request but /healthz must carry one (also "+envServeTokens+", comma-separated)")
	var allowHosts listFlag
	fs.Var(&allowHosts, "allow-host", "a host name clients may use in the Host header besides localhost and IP addresses (repeat or comma-separate)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: flowreader serve -g GRAPHFILE [--addr HOST:PORT] [flags]
       flowreader serve --store URL [--addr HOST:PORT] [flags]

Loads the graph once and serves it over HTTP, JSON in and out
(docs/server.md). A replaced graph file (flowreader build -o writes
atomically) is loaded and swapped in within a second; calls in flight
finish on the old graph. With --store it serves every collection of a
PostgreSQL store (docs/store.md), holding none of them: each request names
its "collection", and each question reads the collection's latest
committed version. Requests may carry a "filter" ({"ids": [...],
"metadata": {"key": "value"}}).

  POST /v1/retrieve  {"question": "...", "budget": 16}  the evidence chains
  POST /v1/ask       {"question": "...", "budget": 16}  the answer, citations, evidence
  GET  /v1/graph     nodes, documents, embedder, dimension
  GET  /healthz
  GET  /metrics      Prometheus text: calls in flight, queued, refused, durations
  /mcp               Model Context Protocol (streamable HTTP): tools retrieve, ask

It listens on loopback unless --addr says otherwise; beyond loopback, set
--token-file (or %s) so that only clients with a token get in.
SIGINT or SIGTERM stops accepting connections and lets calls in flight
finish (at most --shutdown-grace, 10 s) before exiting with status 0.

flags:
`, envServeTokens)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("unexpected argument %q: %w", pos[0], errUsage)
	}
	if *grace < 0 {
		return fmt.Errorf("--shutdown-grace %s is negative: %w", *grace, errUsage)
	}
	switch {
	case *storeURL != "" && f.graphFile != "":
		return fmt.Errorf("-g and --store exclude each other: %w", errUsage)
	case *storeURL != "" && f.images != "":
		return fmt.Errorf("--images reads a graph file's images, not --store's: %w", errUsage)
	case *storeURL == "" && f.graphFile == "":
		return fmt.Errorf("-g GRAPHFILE is required (or --store URL): %w", errUsage)
	}
	tokens, err := serveTokens(*tokenFile, getenv)
	if err != nil {
		return err
	}
	p, ms, flush, err := f.pipeline(getenv, stderr)
	if err != nil {
		return err
	}
	defer func() {
		if ferr := flush(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	log, _ := f.tel.logger(stderr)
	opt := f.options(log)
	opt.MaxBodyBytes, opt.WriteTimeout, opt.Tokens = *maxBody, *writeTimeout, tokens
	opt.AllowedHosts = append([]string{"localhost"}, allowHosts...)
	var what string // what is served, for the listening line
	if *storeURL != "" {
		st, err := pgstore.Open(ctx, *storeURL)
		if err != nil {
			return err
		}
		defer st.Close()
		opt.Collections = storeCollections(p, st)
		cs, err := st.Collections(ctx)
		if err != nil {
			return err
		}
		what = fmt.Sprintf("a store of %d collections", len(cs))
	} else {
		fi, err := openFileIndex(ctx, f.graphFile, func(ctx context.Context) (*flowreader.Index, error) {
			return f.load(ctx, p, ms, stderr, "serve")
		})
		if err != nil {
			return err
		}
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		go fi.watch(wctx, fileCheckInterval, stderr)
		opt.Collections = fi.index
		what = fmt.Sprintf("%s: %d nodes", termsafe.Text(f.graphFile), len(fi.cur.Load().Graph().Nodes))
	}
	h, err := server.New(nil, opt)
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// The calls' base context: cancelled when the grace period is over, so
	// that calls still running stop computing.
	base, cut := context.WithCancel(context.Background())
	defer cut()
	// No server-wide WriteTimeout: the handler bounds each response's
	// write from its first byte (--write-timeout), which a call that
	// computes for minutes, or a streamed answer that extends it per
	// event, needs.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		BaseContext: func(net.Listener) context.Context { return base }}
	if !loopback(ln.Addr()) && len(tokens) == 0 {
		fmt.Fprintf(stderr, "serve: warning: listening on %s, beyond loopback, without tokens: anyone who reaches it can read the documents and spend the model's calls (set --token-file or %s)\n", ln.Addr(), envServeTokens)
	}
	fmt.Fprintf(stderr, "serve: listening on http://%s (%s)\n", ln.Addr(), what)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintf(stderr, "serve: shutting down: finishing the calls in flight (at most %s)\n", *grace)
	sctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// The grace period is over: stop what still runs, close every
		// connection, and exit as a shutdown does.
		cut()
		srv.Close()
		fmt.Fprintf(stderr, "serve: grace period over: calls still in flight were cut\n")
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(stderr, "serve: stopped")
	return nil
}

// envServeTokens holds serve's bearer tokens, comma-separated.
const envServeTokens = "FLOWREADER_SERVE_TOKENS"

// serveTokens reads the bearer tokens of --token-file (one a line; blank
// lines and lines starting with # are skipped) and $FLOWREADER_SERVE_TOKENS.
func serveTokens(file string, getenv func(string) string) ([]string, error) {
	var tokens []string
	for _, t := range strings.Split(getenv(envServeTokens), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tokens = append(tokens, t)
		}
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		n := 0
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if strings.ContainsAny(line, " \t") {
				return nil, fmt.Errorf("--token-file %s: a token holds white space: %w", termsafe.Text(file), errUsage)
			}
			tokens = append(tokens, line)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("--token-file %s holds no token: %w", termsafe.Text(file), errUsage)
		}
	}
	return tokens, nil
}

// loopback reports whether a listener's address is a loopback one.
func loopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
