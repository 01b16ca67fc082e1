// Command quickstart runs the whole flowreader pipeline offline, on the
// embedded defaults (a local GloVe embedder and the extractive reader), over
// a small multimodal collection bundled with it: a Markdown report with a
// table and a figure, and a MinerU-style folder with a table image, a chart
// and text. It asks questions whose evidence is split between a table and a
// paragraph and prints the answers with citations and the evidence chains.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
)

var questions = []string{
	"How many nests did the East Arm have in 2025, and why did it lose its colony?",
	"What was the peak gust of the storm that flooded the East Arm?",
	"Which storm was the strongest at Northfield, and how high was its surge?",
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func docsDir() string {
	// Works from the repository root (go run ./examples/quickstart) and from
	// the example's own folder.
	for _, d := range []string{"examples/quickstart/docs", "docs"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "docs")
}

func run(ctx context.Context) error {
	root := docsDir()
	docs, err := ingest.Path(root)
	if err != nil {
		return err
	}
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		return err
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		return err
	}
	fmt.Printf("Built a graph of %d nodes and %d edges from %d documents in %s.\n", len(g.Nodes), len(g.Edges), len(docs), root)
	for _, n := range p.Notes() {
		fmt.Println("Note:", n)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		return err
	}
	// The bundled collection has only 13 nodes: each question reads 5
	// chains rather than the default 16, so that routing has to choose.
	opts := flowreader.Options{Budget: 5}
	for _, q := range questions {
		res, err := ix.Ask(ctx, q, opts)
		if err != nil {
			return err
		}
		fmt.Printf("\nQ: %s\nA: %s\n", q, res.Text)
		for _, c := range res.Citations {
			page := ""
			if c.Page >= 0 {
				page = fmt.Sprintf(" p.%d", c.Page+1)
			}
			fmt.Printf("   cited: %s%s [%s]: %q\n", c.Doc, page, c.NodeID, short(c.Quote, 90))
		}
		fmt.Printf("   routing: %s, demand %.2f, routed %.2f, %d chains over %d distinct nodes; reader: %s\n",
			res.Routing.Router, res.Routing.Demand, res.Routing.Routed, len(res.Routing.Chains), res.Routing.Distinct, res.Trace.Reader)
		for i, ch := range res.Evidence.Chains {
			if i == 5 {
				fmt.Printf("   ... %d more chains\n", len(res.Evidence.Chains)-i)
				break
			}
			nodes := make([]int, len(ch.Nodes))
			for k, n := range ch.Nodes {
				nodes[k] = n.Node
			}
			fmt.Printf("   chain %d (flow %.2f): %s\n", i+1, ch.Flow, chainLabel(g, nodes))
		}
	}
	return nil
}

func chainLabel(g *graph.Graph, nodes []int) string {
	parts := make([]string, len(nodes))
	for i, v := range nodes {
		n := &g.Nodes[v]
		parts[i] = fmt.Sprintf("[%s %s] %s", n.Modality, n.ID, short(firstNonEmpty(n.Caption, n.Summary, n.Content), 50))
	}
	return strings.Join(parts, " -> ")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
