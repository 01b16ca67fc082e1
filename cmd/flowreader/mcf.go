package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/internal/dimacs"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
)

func mcfCommand() command {
	return command{
		name:    "mcf",
		summary: "solve a DIMACS minimum-cost flow file and print the solution",
		run:     runMCF,
	}
}

func runMCF(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	solverName := fs.String("solver", "ssp", "solver: ssp (successive shortest paths) or lp (gonum simplex, tiny inputs only)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the solve to this file")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: flowreader mcf [flags] FILE

Reads a DIMACS minimum-cost flow problem (p min N M / n ID SUPPLY /
a U V LOW CAP COST / c comments; FILE "-" is standard input) and prints
the DIMACS solution:
  s <optimal cost>
  f <u> <v> <flow>     for every arc with nonzero flow, in input order
  c solve-seconds <t>  time of the solve alone (no reading or printing)
Malformed input or an infeasible problem exits 1 with a one-line message
naming the input line at fault.

flags:`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("want exactly one FILE, got %d arguments: %w", fs.NArg(), errUsage)
	}
	var solver mcf.Solver
	switch *solverName {
	case "ssp":
		solver = &mcf.SSP{}
	case "lp":
		solver = mcftest.LP{}
	default:
		return fmt.Errorf("unknown solver %q: %w", *solverName, errUsage)
	}
	name := fs.Arg(0)
	var in io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	} else {
		name = "stdin"
	}
	p, err := dimacs.Read(in)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	start := time.Now()
	sol, err := solver.Solve(ctx, p.Network)
	elapsed := time.Since(start)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	var cycle *mcf.NegativeCycleError
	if errors.As(err, &cycle) {
		return fmt.Errorf("%s: %w", name, cycleAtLines(p, cycle))
	}
	if errors.Is(err, mcf.ErrInvalid) {
		// dimacs.Read checked every line, so what is left is the problem
		// as a whole (supplies that do not balance).
		return fmt.Errorf("%s: line %d (problem line): %w", name, p.ProblemLine, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if sol.Partial {
		return fmt.Errorf("%s: %w", name, infeasibility(p, sol))
	}
	if err := dimacs.WriteSolution(stdout, p, sol); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "c solve-seconds %.6f\n", elapsed.Seconds())
	return err
}

// cycleAtLines names the input lines of a negative cycle's arcs.
func cycleAtLines(p *dimacs.Problem, e *mcf.NegativeCycleError) error {
	lines := make([]string, 0, min(len(e.Arcs), 8))
	for i, a := range e.Arcs {
		if i == 8 {
			lines = append(lines, "...")
			break
		}
		lines = append(lines, strconv.Itoa(p.ArcLine[a]))
	}
	return fmt.Errorf("line %d: negative-cost cycle (cost %g) through the arcs on lines %s",
		p.ArcLine[e.Arcs[0]], e.Cost, strings.Join(lines, ", "))
}

// infeasibility names the first node (by id) whose supply or demand the
// maximum flow leaves unmet, with the line that set it.
func infeasibility(p *dimacs.Problem, sol *mcf.Solution) error {
	net := p.Network
	out := make([]float64, net.NumNodes())
	for a, f := range sol.Flow {
		u, v, _, _ := net.Arc(a)
		out[u] += f
		out[v] -= f
	}
	for v := range out {
		b := net.Supply(v)
		if (b > 0 && b-out[v] > mcf.Eps) || (b < 0 && out[v]-b > mcf.Eps) {
			line := p.NodeLine[v]
			if line == 0 {
				line = p.ProblemLine
			}
			return fmt.Errorf("line %d: infeasible: node %d needs net outflow %g but at most %g can be routed (max flow %g of demand %g)",
				line, v+1, b, out[v], sol.Routed, sol.Demand)
		}
	}
	return fmt.Errorf("line %d: infeasible: max flow %g of demand %g", p.ProblemLine, sol.Routed, sol.Demand)
}
