package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/flowreader/flowreader/internal/mcpstdio"
	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/server"
)

func mcpServeCommand() command {
	return command{
		name:    "mcp",
		summary: "serve a graph file to an agent over MCP on stdin/stdout: tools retrieve, ask",
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runMCP(ctx, args, os.Stdin, stdout, stderr, os.Getenv)
		},
	}
}

func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f indexFlags
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: flowreader mcp -g GRAPHFILE [flags]

Serves the graph to an agent over the Model Context Protocol on stdin and
stdout (newline-delimited JSON-RPC); diagnostics go to stderr. Tools:
retrieve (the evidence chains for a question) and ask (the answer with
citations), both taking {"question": "...", "budget": 16}. An agent's
configuration runs it as: flowreader mcp -g /path/to/collection.graph

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
	ix, flush, err := f.open(ctx, getenv, stderr, "mcp")
	if err != nil {
		return err
	}
	defer flush()
	log, _ := f.tel.logger(stderr)
	s, err := server.NewMCP(ix, f.options(log))
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	fmt.Fprintf(stderr, "mcp: serving %s (%d nodes) on stdio\n", termsafe.Text(f.graphFile), len(ix.Graph().Nodes))
	// A malformed line is answered with a JSON-RPC error; the session goes
	// on, and ends when stdin does, after the calls read are answered.
	return mcpstdio.Serve(ctx, s, stdin, stdout)
}
