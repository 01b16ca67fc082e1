package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/flowreader/flowreader/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	timeout := fs.Duration("call-timeout", 0, "longest retrieve or ask; past it the call fails (0 = 2m)")
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
	ix, err := f.open(ctx, getenv, stderr, "mcp")
	if err != nil {
		return err
	}
	s, err := server.NewMCP(ix, server.Options{Timeout: *timeout})
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	fmt.Fprintf(stderr, "mcp: serving %s (%d nodes) on stdio\n", f.graphFile, ix.Graph().Len())
	err = s.Run(ctx, &mcp.IOTransport{Reader: nopReadCloser{stdin}, Writer: nopWriteCloser{stdout}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// The process's stdin and stdout outlive the session: closing them is the
// process's business.
type (
	nopReadCloser  struct{ io.Reader }
	nopWriteCloser struct{ io.Writer }
)

func (nopReadCloser) Close() error  { return nil }
func (nopWriteCloser) Close() error { return nil }
