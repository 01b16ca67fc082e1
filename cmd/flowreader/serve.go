package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/flowreader/flowreader"
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
	graphFile   string
	preset      string
	images      string
	concurrency int
	budget      int
	ep          endpoints
}

func (f *indexFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.graphFile, "g", "", "graph file written by flowreader build (required)")
	fs.StringVar(&f.preset, "preset", "aspects", presetUsage)
	fs.StringVar(&f.images, "images", ".", "folder the graph's image paths are relative to (what build used as --root)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "model calls in flight per answer (0 = the reader's default)")
	fs.IntVar(&f.budget, "budget", 0, "default chains to read when a request gives none (0 = the preset's: 16 aspects, 11 classic)")
	f.ep.register(fs)
	f.ep.registerRerank(fs)
}

// open loads the graph once and opens it with the configured pipeline.
func (f *indexFlags) open(ctx context.Context, getenv func(string) string, stderr io.Writer, cmd string) (*flowreader.Index, error) {
	switch {
	case f.graphFile == "":
		return nil, fmt.Errorf("-g GRAPHFILE is required: %w", errUsage)
	case f.concurrency < 0:
		return nil, fmt.Errorf("--concurrency %d is negative: %w", f.concurrency, errUsage)
	case f.budget < 0:
		return nil, fmt.Errorf("--budget %d is negative: %w", f.budget, errUsage)
	}
	if _, err := os.Stat(f.graphFile); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("graph file %s does not exist (make one with: flowreader build -o %s PATH...)", f.graphFile, f.graphFile)
	}
	cfg, err := presetConfig(f.preset)
	if err != nil {
		return nil, err
	}
	ms, err := f.ep.resolve(getenv)
	if err != nil {
		return nil, err
	}
	cfg.Embedder, cfg.Model, cfg.Concurrency, cfg.ImageRoot = ms.embedder, ms.model, f.concurrency, f.images
	cfg.Reranker = ms.reranker
	if f.budget > 0 {
		cfg.Budget = f.budget
	}
	p, err := flowreader.New(cfg)
	if err != nil {
		return nil, err
	}
	g, err := loadForEmbedder(ctx, f.graphFile, p.Embedder(), "dimension probe")
	if err != nil {
		return nil, err
	}
	if name := embedderName(p.Embedder()); g.Embedder != "" && strings.TrimSuffix(name, ":latest") != strings.TrimSuffix(g.Embedder, ":latest") {
		fmt.Fprintf(stderr, "%s: warning: %s was built with embedder %q, questions are embedded with %q (same dimension %d; answers may be poor)\n", cmd, f.graphFile, g.Embedder, name, g.Dim)
	}
	if ms.model != nil {
		warnMissingImages(stderr, g, f.images)
	}
	for _, n := range p.Notes() {
		fmt.Fprintf(stderr, "%s: note: %s\n", cmd, n)
	}
	return p.Open(ctx, g)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f indexFlags
	f.register(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on (port 0 picks a free port; the address is printed)")
	inFlight := fs.Int("max-inflight", 0, "retrieve and ask calls running at once; more are refused with 503 busy (0 = the number of CPUs)")
	maxBody := fs.Int64("max-body", 0, "largest request body in bytes (0 = 64 KiB)")
	timeout := fs.Duration("call-timeout", 0, "longest retrieve or ask; past it the call is cancelled with 504 (0 = 2m)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: flowreader serve -g GRAPHFILE [--addr HOST:PORT] [flags]

Loads the graph once and serves it over HTTP, JSON in and out
(docs/server.md):

  POST /v1/retrieve  {"question": "...", "budget": 16}  the evidence chains
  POST /v1/ask       {"question": "...", "budget": 16}  the answer, citations, evidence
  GET  /v1/graph     nodes, documents, embedder, dimension
  GET  /healthz
  /mcp               Model Context Protocol (streamable HTTP): tools retrieve, ask

SIGINT or SIGTERM stops accepting connections and lets calls in flight
finish (at most 10 s) before exiting.

flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("unexpected argument %q: %w", pos[0], errUsage)
	}
	ix, err := f.open(ctx, getenv, stderr, "serve")
	if err != nil {
		return err
	}
	h, err := server.New(ix, server.Options{MaxInFlight: *inFlight, MaxBodyBytes: *maxBody, Timeout: *timeout})
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// No WriteTimeout: an ask with a remote model may take minutes, and the
	// handler bounds each call itself (--call-timeout).
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stderr, "serve: listening on http://%s (%s: %d nodes)\n", ln.Addr(), f.graphFile, ix.Graph().Len())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "serve: shutting down: finishing the calls in flight")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(stderr, "serve: stopped")
	return nil
}
