package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/termsafe"
)

func inspectCommand() command {
	return command{
		name:    "inspect",
		summary: "show what a graph file holds: a summary, or every node as JSON lines",
		run:     runInspect,
	}
}

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	graphFile := fs.String("g", "", "graph file written by flowreader build (required)")
	storeURL := fs.String("store", "", "PostgreSQL URL of a flowreader store: list its collections instead of a graph file's content")
	collection := fs.String("collection", "", "with --store: only this collection")
	nodes := fs.Bool("nodes", false, "print one JSON object per node and line (id, doc, title, page, last_page, modality, section, content, caption, image) instead of the summary")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: flowreader inspect -g GRAPHFILE [--nodes]
       flowreader inspect --store URL [--collection NAME]

Prints what the graph file holds, so that you can see what was ingested:
its embedder, its nodes by modality, its edges by kind, where its images
are, and each document with its nodes and pages. With --nodes, one JSON
object per node and line instead, in graph order: id, doc, title (the
document's first heading, else its file name), page (1-based; null when
unknown), modality (text, table, figure), section, content, caption and
image (its path relative to the image root; null when none); a node that
runs over several pages (a paragraph continued on the next page) also has
last_page.

With --store, one line per collection of the store (or the one named):
its version, nodes, documents, embedding format and dimension, embedder.

Example:
  flowreader inspect -g harbour.frg --nodes | grep '"modality":"table"'
  flowreader inspect --store postgres://localhost/flowreader

flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return fmt.Errorf("unexpected argument %q: %w", pos[0], errUsage)
	case *storeURL != "" && (*graphFile != "" || *nodes):
		return fmt.Errorf("--store excludes -g and --nodes: %w", errUsage)
	case *storeURL != "":
		return inspectStore(ctx, *storeURL, *collection, stdout)
	case *collection != "":
		return fmt.Errorf("--collection needs --store URL: %w", errUsage)
	case *graphFile == "":
		return fmt.Errorf("-g GRAPHFILE (or --store URL) is required: %w", errUsage)
	}
	g, err := graph.Load(*graphFile)
	if err != nil {
		return err
	}
	titles := docTitles(g)
	if *nodes {
		return writeNodes(stdout, g, titles)
	}
	printSummary(stdout, *graphFile, g, titles)
	return nil
}

// nodeJSON is one line of inspect --nodes.
type nodeJSON struct {
	ID       string  `json:"id"`
	Doc      string  `json:"doc"`
	Title    string  `json:"title"`
	Page     *int    `json:"page"`
	LastPage *int    `json:"last_page,omitempty"`
	Modality string  `json:"modality"`
	Section  string  `json:"section"`
	Content  string  `json:"content"`
	Caption  string  `json:"caption"`
	Image    *string `json:"image"`
}

func writeNodes(w io.Writer, g *graph.Graph, titles map[string]string) error {
	enc := json.NewEncoder(w)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		j := nodeJSON{ID: n.ID, Doc: n.Doc, Title: titles[n.Doc], Modality: n.Modality.String(),
			Section: n.Section, Content: n.Content, Caption: n.Caption}
		if n.Page >= 0 {
			p := n.Page + 1
			j.Page = &p
			if n.LastPage > n.Page {
				l := n.LastPage + 1
				j.LastPage = &l
			}
		}
		if n.Image != nil {
			j.Image = &n.Image.Path
		}
		if err := enc.Encode(j); err != nil {
			return err
		}
	}
	return nil
}

// docTitles gives each document the title ingest gives it: its first
// heading (the first node's section, in reading order), else its file
// name without the extension.
func docTitles(g *graph.Graph) map[string]string {
	titles := map[string]string{}
	at := map[string]int{} // reading order of the title's node
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if o, ok := at[n.Doc]; n.Section != "" && (!ok || n.Order < o) {
			titles[n.Doc], at[n.Doc] = n.Section, n.Order
		}
	}
	for i := range g.Nodes {
		d := g.Nodes[i].Doc
		if titles[d] == "" {
			base := path.Base(d)
			titles[d] = strings.TrimSuffix(base, path.Ext(base))
		}
	}
	return titles
}

func printSummary(w io.Writer, file string, g *graph.Graph, titles map[string]string) {
	var byModality [3]int
	type docStat struct {
		nodes, lo, hi int
	}
	var order []string
	docs := map[string]*docStat{}
	images, found := 0, 0
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if int(n.Modality) < len(byModality) {
			byModality[n.Modality]++
		}
		d, ok := docs[n.Doc]
		if !ok {
			d = &docStat{lo: -1, hi: -1}
			docs[n.Doc] = d
			order = append(order, n.Doc)
		}
		d.nodes++
		if n.Page >= 0 {
			if d.lo < 0 || n.Page < d.lo {
				d.lo = n.Page
			}
			d.hi = max(d.hi, n.Page, n.LastPage)
		}
		if n.Image != nil {
			images++
			if g.ImageRoot != "" {
				if _, err := os.Stat(filepath.Join(g.ImageRoot, filepath.FromSlash(n.Image.Path))); err == nil {
					found++
				}
			}
		}
	}
	kinds := map[string]int{}
	for _, e := range g.Edges {
		kinds[e.Kind.String()]++
	}
	fmt.Fprintf(w, "graph %s\n", termsafe.Text(file))
	format := "float32"
	if g.Int8Embeddings() {
		format = "int8"
	}
	fmt.Fprintf(w, "  embedder   %s (dimension %d, %s)\n", termsafe.Text(orUnknown(g.Embedder)), g.Dim, format)
	fmt.Fprintf(w, "  nodes      %d: %d text, %d tables, %d figures\n", len(g.Nodes), byModality[graph.ModalityText], byModality[graph.ModalityTable], byModality[graph.ModalityFigure])
	var ks []string
	for _, k := range []graph.EdgeKind{graph.EdgeOrder, graph.EdgeKNN, graph.EdgeLink, graph.EdgeOrder | graph.EdgeKNN, graph.EdgeOrder | graph.EdgeLink, graph.EdgeKNN | graph.EdgeLink, graph.EdgeOrder | graph.EdgeKNN | graph.EdgeLink} {
		if c := kinds[k.String()]; c > 0 {
			ks = append(ks, fmt.Sprintf("%d %s", c, k))
		}
	}
	fmt.Fprintf(w, "  edges      %d", len(g.Edges))
	if len(ks) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(ks, ", "))
	}
	fmt.Fprintln(w)
	switch {
	case images == 0:
		fmt.Fprintf(w, "  images     none\n")
	case g.ImageRoot == "":
		fmt.Fprintf(w, "  images     %d, root not recorded (give ask --images)\n", images)
	default:
		fmt.Fprintf(w, "  images     %d under %s (%d found)\n", images, termsafe.Text(g.ImageRoot), found)
	}
	fmt.Fprintf(w, "  documents  %d\n", len(order))
	for _, id := range order {
		d := docs[id]
		pages := ""
		switch {
		case d.lo < 0:
		case d.lo == d.hi:
			pages = fmt.Sprintf(", page %d", d.lo+1)
		default:
			pages = fmt.Sprintf(", pages %d-%d", d.lo+1, d.hi+1)
		}
		fmt.Fprintf(w, "    %s: %d nodes%s, %q\n", termsafe.Text(id), d.nodes, pages, titles[id])
	}
}
