// Command flowreader answers questions over document collections with
// evidence routed by minimum-cost flow. It is a set of subcommands:
//
//	flowreader <command> [flags] [args]
//	flowreader help
//
// Each command lives in its own file as a constructor returning a command
// value; main assembles the list, so adding a command is one new file and
// one line in commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/flowreader/flowreader/internal/termsafe"
)

// command is one subcommand. run receives the arguments after the command
// name; it returns flag.ErrHelp after printing help for --help, and any
// other error for a failure (printed as one line by main).
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands in the order help shows them.
func commands() []command {
	return []command{
		buildCommand(),
		askCommand(),
		inspectCommand(),
		mcfCommand(),
		evalCommand(),
		serveCommand(),
		mcpServeCommand(),
		benchCommand(),
	}
}

func main() {
	// SIGTERM as well as SIGINT: serve shuts down gracefully on either.
	// The first signal cancels ctx (a build stops within a second, its
	// previous output intact); then the default handlers are back, so a
	// second Ctrl-C kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	code := run(ctx, os.Args[1:], commands(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches args to a command and returns the process exit code:
// 0 success, 1 failure, 2 usage error, 3 no answer (ask), 130 interrupted.
func run(ctx context.Context, args []string, cmds []command, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr, cmds)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := find(cmds, args[1]); ok {
				_ = c.run(ctx, []string{"--help"}, stdout, stdout)
				return 0
			}
		}
		usage(stdout, cmds)
		return 0
	}
	c, ok := find(cmds, args[0])
	if !ok {
		fmt.Fprintf(stderr, "flowreader: unknown command %q (run \"flowreader help\")\n", args[0])
		return 2
	}
	err := c.run(ctx, args[1:], stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "flowreader %s: interrupted\n", c.name)
		return 130
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "flowreader %s: %s\n", c.name, oneLine(err.Error()))
		return 2
	case errors.Is(err, errNoAnswer):
		fmt.Fprintf(stderr, "flowreader %s: %s\n", c.name, oneLine(err.Error()))
		return exitNoAnswer
	case errors.Is(err, errNotSure):
		fmt.Fprintf(stderr, "flowreader %s: %s\n", c.name, oneLine(err.Error()))
		return exitNotSure
	default:
		fmt.Fprintf(stderr, "flowreader %s: %s\n", c.name, oneLine(err.Error()))
		return 1
	}
}

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

func find(cmds []command, name string) (command, bool) {
	for _, c := range cmds {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer, cmds []command) {
	fmt.Fprintln(w, "usage: flowreader <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"flowreader <command> --help\" for a command's flags.")
}

// oneLine keeps error messages on one line, as scripts expect, and escapes
// what else a terminal would act on (an error may quote a file name or a
// server's message).
func oneLine(s string) string { return termsafe.Text(strings.ReplaceAll(s, "\n", " ")) }
