package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/reader"
)

func askCommand() command {
	return command{
		name:    "ask",
		summary: "answer a question against a graph file, with citations",
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runAsk(ctx, args, stdout, stderr, os.Getenv)
		},
	}
}

func runAsk(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) (err error) {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(stderr)
	graphFile := fs.String("g", "", "graph file written by flowreader build (required unless --store)")
	storeURL := fs.String("store", "", "PostgreSQL URL of a flowreader store to answer from instead of a graph file (with --collection)")
	collection := fs.String("collection", "", "the store's collection to answer from (with --store)")
	filterJSON := fs.String("filter", "", `only the documents this filter passes, as JSON: {"ids": ["DOC", ...], "metadata": {"KEY": "VALUE", ...}}`)
	preset := fs.String("preset", "aspects", presetUsage)
	explain := fs.Bool("explain", false, "also print the routing: demand, routed flow, saturation, κ, aspects with capacities, and every chain with flow and cost")
	dotFile := fs.String("dot", "", "write the evidence subgraph (the chains read and the two nearest neighbours of each node, at most 60 nodes) with its routed flow as a Graphviz DOT file (render: dot -Tpng FILE -o flow.png)")
	dotAll := fs.Bool("dot-all", false, "draw every node of the graph in --dot and --mermaid, not only the evidence subgraph")
	mermaidFile := fs.String("mermaid", "", "write the evidence subgraph with its routed flow as a Mermaid flowchart (as --dot)")
	asJSON := fs.Bool("json", false, "print one JSON object (schema_version, question, budget, chains with their nodes, routing, answer, citations, trace, notes; docs/server.md) instead of text")
	images := fs.String("images", "", "folder the graph's image paths are relative to (default: the folder build recorded in the graph file, else the current folder)")
	concurrency := fs.Int("concurrency", 0, "model calls in flight (0 = the reader's default)")
	budget := fs.Int("budget", 0, "chains to read, and the aspects flow's demand (0 = the preset's: 16 aspects, 11 classic)")
	stream := fs.Bool("stream", false, "print the answer as it is written: the reading's progress on stderr, the answer's tokens on stdout as the model streams them (with --json: one JSON event per line)")
	var ep endpoints
	ep.register(fs)
	ep.registerRerank(fs)
	var tel telemetryFlags
	tel.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: flowreader ask -g GRAPHFILE [flags] "QUESTION"
       flowreader ask --store URL --collection NAME [--json] [flags] "QUESTION"

Scores every node of the graph for the question, routes the evidence flow,
selects the chains to read and answers with citations. Use the same
embedder as build: a graph whose embedding dimension differs from the
embedder's is refused. With no model configured (flags or %s/%s)
the answer comes from the extractive reader: verbatim spans, not generated
text; the output says so. When there is no answer (the extractive reader
abstains, "no answer in the collection", or the answer is empty), ask prints
what it has, says why on stderr and exits with status 3. When the
extractive reader's confidence is below %.2f, ask says it is not sure,
prints the best passage with the span it would answer with between » and
«, and exits with status 4 (--json: "low_confidence": true, "confidence",
and the first citation's "span"). Exit status: 0 an answer, 1 a failure, 2
a usage error, 3 no answer, 4 not sure.

With --store and --collection the question is answered from a collection
of a PostgreSQL store (flowreader build --store): its candidates are read
from the latest committed version, then scored, routed and read here.
--filter restricts the question to the documents it passes (their IDs, and
metadata key/values given at build time), over a file or a store alike.

Examples:
  flowreader ask -g harbour.frg "Which breakwater lost most nests in 2025?"
  flowreader ask --store postgres://localhost/flowreader --collection harbour --json "What was the peak gust?"
  flowreader ask -g harbour.frg --explain --dot flow.dot "What was the peak gust?"

flags:
`, envLLMURL, envLLMModel, reader.ConfidenceThreshold)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	switch {
	case *storeURL != "" && *graphFile != "":
		return fmt.Errorf("-g and --store exclude each other: %w", errUsage)
	case *storeURL != "" && *collection == "":
		return fmt.Errorf("--store needs --collection NAME: %w", errUsage)
	case *storeURL == "" && *collection != "":
		return fmt.Errorf("--collection needs --store URL: %w", errUsage)
	case *storeURL != "" && (*dotFile != "" || *mermaidFile != "" || *images != ""):
		return fmt.Errorf("--dot, --mermaid and --images read a graph file, not --store: %w", errUsage)
	case *graphFile == "" && *storeURL == "":
		return fmt.Errorf("-g GRAPHFILE is required (or --store URL --collection NAME): %w", errUsage)
	case question == "":
		return fmt.Errorf("no QUESTION given: %w", errUsage)
	case *concurrency < 0:
		return fmt.Errorf("--concurrency %d is negative: %w", *concurrency, errUsage)
	}
	filter, err := parseFilter(*filterJSON)
	if err != nil {
		return err
	}
	if _, err := os.Stat(*graphFile); *storeURL == "" && errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("graph file %s does not exist (make one with: flowreader build -o %s PATH...)", *graphFile, *graphFile)
	}
	for flag, out := range map[string]string{"--dot": *dotFile, "--mermaid": *mermaidFile} {
		if out == "" {
			continue
		}
		if err := checkOutput(flag, out, []string{*graphFile}); err != nil {
			return err
		}
	}
	cfg, err := presetConfig(*preset)
	if err != nil {
		return err
	}
	if cfg.Logger, err = tel.logger(stderr); err != nil {
		return err
	}
	ep.log = cfg.Logger
	ms, err := ep.resolve(getenv)
	if err != nil {
		return err
	}
	cfg.Embedder, cfg.Model, cfg.Reranker = ms.embedder, ms.model, ms.reranker
	cfg.Concurrency = *concurrency
	flush, err := tel.tracing(&cfg)
	if err != nil {
		return err
	}
	defer func() {
		if ferr := flush(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	if *budget < 0 {
		return fmt.Errorf("--budget %d is negative: %w", *budget, errUsage)
	}
	cfg.ImageRoot = *images
	p, err := flowreader.New(cfg)
	if err != nil {
		return err
	}
	if *storeURL != "" {
		return askStore(ctx, p, *storeURL, *collection, question, flowreader.Options{Budget: *budget, Filter: filter}, askOutput{json: *asJSON, explain: *explain, stream: *stream}, stdout, stderr)
	}
	g, err := loadForEmbedder(ctx, *graphFile, p.Embedder(), question)
	if err != nil {
		return err
	}
	if name := embedderName(p.Embedder()); g.Embedder != "" && strings.TrimSuffix(name, ":latest") != strings.TrimSuffix(g.Embedder, ":latest") {
		fmt.Fprintf(stderr, "ask: warning: %s was built with embedder %q, questions are embedded with %q (same dimension %d; answers may be poor)\n", termsafe.Text(*graphFile), g.Embedder, name, g.Dim)
	}
	// Images: --images, else the root build recorded in the graph file,
	// else the current folder (graphs written before the root was
	// recorded). The VLM reader falls back to the graph's root.
	switch {
	case *images != "":
		g.ImageRoot = *images
	case g.ImageRoot == "":
		g.ImageRoot = "."
	}
	if ms.model != nil {
		warnMissingImages(stderr, "ask", g, g.ImageRoot)
	}
	opt := flowreader.Options{Budget: *budget, Filter: filter} // budget 0: the preset's
	if *budget > len(g.Nodes) && len(g.Nodes) > 0 {
		// More chains than nodes can add nothing but work and memory.
		fmt.Fprintf(stderr, "ask: --budget %d clamped to the graph's %d nodes\n", *budget, len(g.Nodes))
		opt.Budget = len(g.Nodes)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		return err
	}
	var sp *streamPrinter
	if *stream {
		sp = &streamPrinter{out: stdout, log: stderr, json: *asJSON, g: g}
		if !*asJSON {
			fmt.Fprintf(stdout, "Q: %s\nA: ", termsafe.Text(question))
		}
		opt.Stream = sp.event
	}
	res, err := ix.Ask(ctx, question, opt)
	if sp != nil && !*asJSON && sp.answer.Len() > 0 {
		fmt.Fprintln(stdout)
	}
	if err != nil {
		return err
	}
	full := g // citations index the index's graph
	if res.Scores != nil && res.Scores.Graph != nil {
		// Candidates (large graphs): the routing and chains index the
		// candidate subgraph.
		g = res.Scores.Graph
	}
	title := "Q: " + question
	read := readChains(res)
	if *dotFile != "" {
		pic := newPicture(g, res.Routing, read, *dotAll, title)
		if err := writeFileAtomic(*dotFile, func(w io.Writer) error { return writeDOT(w, pic) }); err != nil {
			return err
		}
	}
	if *mermaidFile != "" {
		pic := newPicture(g, res.Routing, read, *dotAll, title)
		if err := writeFileAtomic(*mermaidFile, func(w io.Writer) error { return writeMermaid(w, pic) }); err != nil {
			return err
		}
	}
	if sp != nil {
		if sp.err != nil {
			return sp.err
		}
		if !*asJSON {
			sp.finish(res)
			if *explain {
				printExplain(stdout, g, res)
			}
		}
		return noAnswer(res)
	}
	if *asJSON {
		// The library's JSON contract (flowreader.SchemaVersion), as the
		// server's /v1/ask answers.
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
		return noAnswer(res)
	}
	printAnswer(stdout, full, question, res)
	if *explain {
		printExplain(stdout, g, res)
	}
	return noAnswer(res)
}

// streamPrinter prints a streamed answer (ask --stream): the answer's
// pieces on out as they come, the reading's progress on log; with json,
// every event as one JSON line on out instead.
type streamPrinter struct {
	out, log     io.Writer
	json         bool
	chains, seen int
	answer       strings.Builder
	err          error        // the first failed write
	g            *graph.Graph // the index's graph: citations' pages
}

func (p *streamPrinter) event(e flowreader.Event) {
	if p.err != nil {
		return
	}
	if p.json {
		b, err := json.Marshal(e)
		if err == nil {
			_, err = fmt.Fprintf(p.out, "%s\n", b)
		}
		p.err = err
		return
	}
	switch e.Kind {
	case "evidence":
		p.chains = len(e.Evidence.Chains)
		fmt.Fprintf(p.log, "ask: reading %d chains\n", p.chains)
	case "draft":
		p.seen++
		pass := ""
		if e.Pass > 1 {
			pass = " (System 2)"
		}
		fmt.Fprintf(p.log, "ask: chain %d read%s (%d of %d): %s\n", e.Draft.Chain+1, pass, p.seen, p.chains, e.Draft.Status)
	case "delta":
		if e.Thought {
			return
		}
		p.answer.WriteString(e.Text)
		_, p.err = io.WriteString(p.out, termsafe.Text(e.Text))
	}
}

// finish prints what follows the answer: the answer again when the one
// that stands is not the text streamed (the reasoner wrote no <output>
// block, or System 2 replaced it), then the citations and notes.
func (p *streamPrinter) finish(res *flowreader.Result) {
	if strings.TrimSpace(p.answer.String()) != strings.TrimSpace(res.Text) {
		fmt.Fprintf(p.out, "A (final): %s\n", termsafe.Text(res.Text))
	}
	if res.Answer != nil && res.LowConfidence() && len(res.Citations) > 0 {
		// The text streamed is the best passage, not an answer: say so,
		// with the span the reader would answer with, as printAnswer does.
		c := res.Citations[0]
		fmt.Fprintf(p.out, "Not sure (confidence %.2f, below %.2f). The span the reader would answer with, between » and «:\n  [1] %s (node %s): %s\n",
			res.Confidence, reader.ConfidenceThreshold, termsafe.Text(citationPlace(p.g, c)), termsafe.Text(c.NodeID), highlight(c.Quote, c.Span, 240))
	}
	printCitations(p.out, p.g, res)
}

// loadForEmbedder loads a graph file and checks that its embedding
// dimension is the embedder's. A remote embedder learns its dimension from
// its first answer, so it is asked to embed the question first (the query
// scorer embeds it again; one short extra call).
func loadForEmbedder(ctx context.Context, path string, e llm.Embedder, question string) (*graph.Graph, error) {
	dim := e.Dimension()
	if dim == 0 {
		vecs, err := e.Embed(ctx, []string{question}, llm.KindQuery)
		if err != nil {
			return nil, fmt.Errorf("embed the question: %w", err)
		}
		if len(vecs) != 1 || len(vecs[0]) == 0 {
			return nil, fmt.Errorf("embedder %s returned no vector for the question", embedderName(e))
		}
		dim = len(vecs[0])
	}
	g, err := graph.Load(path)
	if err != nil {
		return nil, err
	}
	if g.Dim != dim {
		return nil, fmt.Errorf("%w: %s has dimension %d (embedder %q), want %d; questions are embedded by %s (dimension %d): ask with the embedder the graph was built with (the same --embed-* flags or FLOWREADER_EMBED_* variables), or rebuild the graph", graph.ErrDimension, path, g.Dim, g.Embedder, dim, embedderName(e), dim)
	}
	return g, nil
}

// warnMissingImages warns when the graph's images are not found under root:
// the reader then silently falls back to text renderings of tables and
// figures, which a user who passed the wrong --images would want to know.
func warnMissingImages(w io.Writer, cmd string, g *graph.Graph, root string) {
	missing, total, first := 0, 0, ""
	for i := range g.Nodes {
		img := g.Nodes[i].Image
		if img == nil {
			continue
		}
		total++
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(img.Path))); err != nil {
			if missing == 0 {
				first = img.Path
			}
			missing++
		}
	}
	if missing > 0 {
		fmt.Fprintf(w, "%s: warning: %d of %d images not found under --images %s (first: %s); those tables and figures are read as text\n", cmd, missing, total, termsafe.Text(root), termsafe.Text(first))
	}
}

// parseInterspersed parses flags before and after positional arguments,
// so that `ask -g f "Q" --json` works as well as `ask -g f --json "Q"`.
// Arguments after "--" are positional. A bad flag is a usage error
// (errUsage); -h gives flag.ErrHelp as it is.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseFlagsAndArgs(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, fmt.Errorf("%v: %w", err, errUsage)
	}
	return pos, err
}

func parseFlagsAndArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		// Split at an explicit "--" ourselves: flag.Parse would swallow it
		// and a later question word starting with "-" would be read as a flag.
		head, tail, dashdash := args, []string(nil), false
		for i, a := range args {
			if a == "--" {
				head, tail, dashdash = args[:i], args[i+1:], true
				break
			}
		}
		if err := fs.Parse(head); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			if dashdash {
				pos = append(pos, tail...)
			}
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = append(append([]string(nil), rest[1:]...), restoreDash(dashdash, tail)...)
	}
}

func restoreDash(dashdash bool, tail []string) []string {
	if !dashdash {
		return nil
	}
	return append([]string{"--"}, tail...)
}

// writeFileAtomic writes path through a temporary file in the same folder
// renamed into place, so that a failure never leaves a half-written file.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	f, err := createTempFile(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(buf.Bytes()); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// citationPlace names where a citation is: its document and page, or the
// pages its node runs over ("pp.3-4").
func citationPlace(g *graph.Graph, c reader.Citation) string {
	if c.Page < 0 {
		return c.Doc
	}
	if c.Node >= 0 && c.Node < len(g.Nodes) {
		if n := &g.Nodes[c.Node]; n.Page == c.Page && n.LastPage > n.Page {
			return fmt.Sprintf("%s pp.%d-%d", c.Doc, n.Page+1, n.LastPage+1)
		}
	}
	return fmt.Sprintf("%s p.%d", c.Doc, c.Page+1)
}

// printAnswer prints the answer as text. Everything that comes from the
// documents, the model or file names (the answer, quotes, document and node
// IDs, notes) goes through termsafe.Text, so that no escape sequence or
// line break in them reaches the terminal; --json prints them exactly.
func printAnswer(w io.Writer, g *graph.Graph, question string, res *flowreader.Result) {
	if res.Answer != nil && res.LowConfidence() && len(res.Citations) > 0 {
		// Not sure: say so, and show where the answer would be rather
		// than a confident line.
		c := res.Citations[0]
		fmt.Fprintf(w, "Q: %s\nNot sure (confidence %.2f, below %.2f). The best passage, with the span the reader would answer with between » and «:\n",
			termsafe.Text(question), res.Confidence, reader.ConfidenceThreshold)
		fmt.Fprintf(w, "  [1] %s (node %s): %s\n", termsafe.Text(citationPlace(g, c)), termsafe.Text(c.NodeID), highlight(c.Quote, c.Span, 240))
		for i, c := range res.Citations[1:] {
			fmt.Fprintf(w, "  [%d] %s (node %s): %q\n", i+2, termsafe.Text(citationPlace(g, c)), termsafe.Text(c.NodeID), shorten(c.Quote, 160))
		}
		for _, n := range res.Notes {
			fmt.Fprintln(w, "note:", termsafe.Text(n))
		}
		printFallback(w, res)
		return
	}
	fmt.Fprintf(w, "Q: %s\nA: %s\n", termsafe.Text(question), termsafe.Text(res.Text))
	printCitations(w, g, res)
	printFallback(w, res)
}

// printFallback says, when the model failed and the fallback reader
// answered, that the answer is not the model's, and why.
func printFallback(w io.Writer, res *flowreader.Result) {
	if res.Answer != nil && res.Trace.ReasonerFallback == "fallback" {
		fmt.Fprintln(w, "note:", termsafe.Text(res.Trace.Note))
	}
}

// printCitations prints the answer's confidence, citations (their pages
// read in g, the index's graph) and notes.
func printCitations(w io.Writer, g *graph.Graph, res *flowreader.Result) {
	if res.Answer != nil && res.Confidence > 0 {
		fmt.Fprintf(w, "confidence: %.2f\n", res.Confidence)
	}
	if len(res.Citations) == 0 {
		fmt.Fprintln(w, "citations: none")
	} else {
		fmt.Fprintln(w, "citations:")
	}
	for i, c := range res.Citations {
		fmt.Fprintf(w, "  [%d] %s (node %s): %q\n", i+1, termsafe.Text(citationPlace(g, c)), termsafe.Text(c.NodeID), shorten(c.Quote, 160))
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note:", termsafe.Text(n))
	}
}

// printExplain prints the routing behind the answer: the flow problem's
// totals, the aspects (v3) or sources and sinks (v1), and every routed
// chain with its flow, cost per unit and nodes, those given to the reader
// first in reading order.
func printExplain(w io.Writer, g *graph.Graph, res *flowreader.Result) {
	r := res.Routing
	fmt.Fprintf(w, "\nrouting (%s): demand %.3f, routed %.3f, max-flow %.3f, saturation σ %.3f, total cost %.4f\n",
		r.Router, r.Demand, r.Routed, r.MaxFlow, r.Saturation, r.Cost)
	if len(r.Aspects) > 0 {
		fmt.Fprintf(w, "relevant set %d nodes, κ %.4f, %d aspects:\n", r.Relevant, r.Kappa, len(r.Aspects))
		for i, a := range r.Aspects {
			fmt.Fprintf(w, "  aspect %d: σ_a %.4f, capacity %.3f, flow %.3f, fed by %d nodes\n", i, a.Sigma, a.Capacity, a.Flow, a.Fed)
		}
	}
	if len(r.Sources) > 0 || len(r.Sinks) > 0 {
		fmt.Fprintf(w, "sources %d, sinks %d\n", len(r.Sources), len(r.Sinks))
	}
	fmt.Fprintf(w, "chains: %d routed over %d distinct nodes, %d read (trace: reader %s", len(r.Chains), r.Distinct, len(res.Evidence.Chains), res.Trace.Reader)
	if s2 := res.System2; s2 != nil {
		fmt.Fprintf(w, ", gate fired %v, System 2 ran %v", len(s2.Triggers) > 0, s2.Ran)
	}
	fmt.Fprintln(w, ")")
	isRead := make([]bool, len(r.Chains))
	for k, c := range readChains(res) {
		if i := indexOfChain(r.Chains, c, isRead); i >= 0 {
			isRead[i] = true
		}
		printChain(w, g, fmt.Sprintf("read %2d", k+1), c)
	}
	for i, c := range r.Chains {
		if !isRead[i] {
			printChain(w, g, "not read", c)
		}
	}
	var st []string
	for _, s := range []string{"score", "route", "select", "answer"} {
		st = append(st, fmt.Sprintf("%s %s", s, res.Stages[s].Round(time.Microsecond)))
	}
	fmt.Fprintf(w, "time: %s\n", strings.Join(st, ", "))
}

// readChains is the chains read (res.Evidence.Chains) in the node indexes
// of the graph the steps ran on (res.Scores.Graph with candidates), as
// res.Routing's chains are.
func readChains(res *flowreader.Result) []flow.Chain {
	var cand []int
	if res.Scores != nil {
		cand = res.Scores.Candidates
	}
	out := make([]flow.Chain, 0, len(res.Evidence.Chains))
	for _, c := range res.Evidence.Chains {
		fc := flow.Chain{Flow: c.Flow, Cost: c.Cost, Aspect: c.Aspect, Nodes: make([]int, 0, len(c.Nodes))}
		for _, n := range c.Nodes {
			v := n.Node
			if cand != nil {
				i, ok := slices.BinarySearch(cand, v)
				if !ok {
					continue
				}
				v = i
			}
			fc.Nodes = append(fc.Nodes, v)
		}
		out = append(out, fc)
	}
	return out
}

func printChain(w io.Writer, g *graph.Graph, tag string, c flow.Chain) {
	asp := ""
	if c.Aspect >= 0 {
		asp = fmt.Sprintf(" → aspect %d", c.Aspect)
	}
	parts := make([]string, len(c.Nodes))
	for i, v := range c.Nodes {
		head, text := nodeLabel(g, v, true)
		if sec := g.Nodes[v].Section; sec != "" {
			// The title (or heading) names the passage a mention link
			// leads to, which the content's first words may not.
			head += " · " + shorten(sec, 32)
		}
		parts[i] = fmt.Sprintf("[%s] %s", head, shorten(text, 40))
	}
	fmt.Fprintf(w, "  %s  flow %.3f  cost %.4f%s: %s\n", tag, c.Flow, c.Cost, asp, termsafe.Text(strings.Join(parts, " → ")))
}

// indexOfChain finds c among chains (same nodes), skipping ones already
// matched.
func indexOfChain(chains []flow.Chain, c flow.Chain, used []bool) int {
	for i, d := range chains {
		if used[i] || len(d.Nodes) != len(c.Nodes) {
			continue
		}
		same := true
		for j := range d.Nodes {
			same = same && d.Nodes[j] == c.Nodes[j]
		}
		if same {
			return i
		}
	}
	return -1
}

// highlight quotes q with its span [s, e) between » and «, cut to about
// width characters around the span (… marks a cut), for a terminal.
func highlight(q string, span [2]int, width int) string {
	s, e := span[0], span[1]
	if s < 0 || e > len(q) || s >= e {
		return strconv.Quote(shorten(q, width))
	}
	before, mid, after := q[:s], q[s:e], q[e:]
	room := max(0, width-len([]rune(mid)))
	if r := []rune(before); len(r) > room/2 {
		before = "…" + string(r[len(r)-room/2:])
	}
	if r := []rune(after); len(r) > room/2 {
		after = string(r[:room/2]) + "…"
	}
	return termsafe.Text("\"" + before + "»" + mid + "«" + after + "\"")
}
