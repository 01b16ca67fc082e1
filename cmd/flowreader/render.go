package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
)

// maxPictureNodes bounds the nodes an evidence picture draws: the read
// chains' nodes always, then their neighbours up to this many. A few
// dozen boxes stay readable; the routing of a large graph drawn whole
// does not (204 nodes rendered 2,783 × 14,729 px).
const maxPictureNodes = 60

// pictureNeighbours is how many neighbours each evidence node brings into
// the picture.
const pictureNeighbours = 2

// flowEdge is flow carried from U to V, summed over the routed chains.
type flowEdge struct {
	U, V int
	Flow float64
}

// flowEnd is flow from content node U into terminal Term (an aspect
// index, or −1 for the sink t).
type flowEnd struct {
	U, Term int
	Flow    float64
}

// picture is the routed flow over a graph, reduced to what a drawing shows.
type picture struct {
	g *graph.Graph
	// nodes are the graph nodes drawn, ascending.
	nodes []int
	// read marks nodes on the chains given to the reader; routed marks
	// nodes on any routed chain (read ones included).
	read, routed map[int]bool
	// flows are the flow-carrying hops, by (U, V); plain are the other graph
	// edges between drawn nodes.
	flows []flowEdge
	plain []graph.Edge
	// ends are the flows from chain ends into their terminals: aspect
	// terminal a (aspects formulation) or the sink t (Term −1).
	ends []flowEnd
	// maxFlow is the largest flow on one hop (for line widths).
	maxFlow float64
	// dropped is the number of graph nodes left out.
	dropped int
	title   string
	whole   bool // the whole graph asked for (else the evidence subgraph)
}

// newPicture collects the drawing of routing r over g. By default it is
// the evidence subgraph: the nodes of the chains read (read; the routed
// chains when none was read) and the nearest pictureNeighbours neighbours
// of each in the graph (those on other routed chains first, then by edge
// weight), up to maxPictureNodes in all; with whole, every node. Flow on
// a hop is the sum of the flows of the routed chains through it (the
// decomposed flow; in the aspects formulation chains end in aspect
// terminals, which are not drawn), drawn between drawn nodes.
func newPicture(g *graph.Graph, r *flow.Routing, read []flow.Chain, whole bool, title string) *picture {
	p := &picture{g: g, read: map[int]bool{}, routed: map[int]bool{}, title: title, whole: whole}
	for _, c := range read {
		for _, v := range c.Nodes {
			p.read[v] = true
			p.routed[v] = true
		}
	}
	hop := map[[2]int]float64{}
	end := map[[2]int]float64{}
	if r != nil {
		for _, c := range r.Chains {
			for i, v := range c.Nodes {
				p.routed[v] = true
				if i > 0 && c.Nodes[i-1] != v {
					hop[[2]int{c.Nodes[i-1], v}] += c.Flow
				}
			}
			if n := len(c.Nodes); n > 0 {
				end[[2]int{c.Nodes[n-1], max(c.Aspect, -1)}] += c.Flow
			}
		}
	}
	show := make([]bool, len(g.Nodes))
	if whole {
		for i := range show {
			show[i] = true
		}
	} else {
		core := p.read
		if len(core) == 0 {
			core = p.routed
		}
		shown := 0
		// Each evidence node brings its nearest neighbours: those on
		// other routed chains first, then by edge weight.
		weight := map[int]float64{} // a neighbour's heaviest edge to the evidence
		for v := range len(g.Nodes) {
			if !core[v] {
				continue
			}
			show[v] = true
			shown++
			nb, es := g.Neighbors(v)
			type near struct {
				u int
				w float64
			}
			var ns []near
			for k, u32 := range nb {
				if u := int(u32); !core[u] {
					ns = append(ns, near{u, float64(g.Edges[es[k]].Weight)})
				}
			}
			sort.Slice(ns, func(i, j int) bool {
				a, b := ns[i], ns[j]
				if p.routed[a.u] != p.routed[b.u] {
					return p.routed[a.u]
				}
				if a.w != b.w {
					return a.w > b.w
				}
				return a.u < b.u
			})
			for _, n := range ns[:min(len(ns), pictureNeighbours)] {
				weight[n.u] = max(weight[n.u], n.w+1e-12) // present even at weight 0
			}
		}
		cands := make([]int, 0, len(weight))
		for u := range weight {
			cands = append(cands, u)
		}
		sort.Slice(cands, func(i, j int) bool {
			a, b := cands[i], cands[j]
			if p.routed[a] != p.routed[b] {
				return p.routed[a]
			}
			if weight[a] != weight[b] {
				return weight[a] > weight[b]
			}
			return a < b
		})
		for _, u := range cands {
			if shown >= maxPictureNodes {
				break
			}
			show[u] = true
			shown++
		}
	}
	for v, ok := range show {
		if ok {
			p.nodes = append(p.nodes, v)
		} else {
			p.dropped++
		}
	}
	for k, f := range hop {
		if f <= 1e-9 || !show[k[0]] || !show[k[1]] {
			continue
		}
		p.flows = append(p.flows, flowEdge{k[0], k[1], f})
		p.maxFlow = math.Max(p.maxFlow, f)
	}
	for k, f := range end {
		if f > 1e-9 && show[k[0]] {
			p.ends = append(p.ends, flowEnd{k[0], k[1], f})
			p.maxFlow = math.Max(p.maxFlow, f)
		}
	}
	sort.Slice(p.ends, func(i, j int) bool {
		a, b := p.ends[i], p.ends[j]
		if a.Term != b.Term {
			return a.Term < b.Term
		}
		return a.U < b.U
	})
	sort.Slice(p.flows, func(i, j int) bool {
		a, b := p.flows[i], p.flows[j]
		if a.U != b.U {
			return a.U < b.U
		}
		return a.V < b.V
	})
	carries := map[[2]int]bool{}
	for _, e := range p.flows {
		carries[[2]int{min(e.U, e.V), max(e.U, e.V)}] = true
	}
	for _, e := range g.Edges { // sorted by (U, V)
		if show[e.U] && show[e.V] && !carries[[2]int{int(e.U), int(e.V)}] {
			p.plain = append(p.plain, e)
		}
	}
	return p
}

// nodeLabel is a short label: modality and node ID (and page) on the
// first line, the start of the node's caption, summary or text on the
// second. Pictures group nodes by document, so there the ID is cut to its
// position within the document ("#3").
func nodeLabel(g *graph.Graph, v int, withDoc bool) (head, text string) {
	n := &g.Nodes[v]
	id := n.ID
	if i := strings.LastIndexByte(id, '#'); !withDoc && i >= 0 {
		id = id[i:]
	}
	head = n.Modality.String() + " " + id
	switch {
	case n.Page >= 0 && n.LastPage > n.Page:
		head += fmt.Sprintf(" pp.%d-%d", n.Page+1, n.LastPage+1)
	case n.Page >= 0:
		head += fmt.Sprintf(" p.%d", n.Page+1)
	}
	return head, shorten(firstNonBlank(n.Caption, n.Summary, n.Content), 32)
}

// docGroups splits the drawn nodes by document, in node order (a
// document's nodes are contiguous in a built graph; a document split by
// the node selection still forms one group).
func (p *picture) docGroups() (docs []string, groups [][]int) {
	at := map[string]int{}
	for _, v := range p.nodes {
		d := p.g.Nodes[v].Doc
		i, ok := at[d]
		if !ok {
			i = len(docs)
			at[d] = i
			docs = append(docs, d)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], v)
	}
	return docs, groups
}

// termID names a terminal in both output formats.
func termID(term int) string {
	if term < 0 {
		return "t"
	}
	return fmt.Sprintf("a%d", term)
}

func termLabel(term int) string {
	if term < 0 {
		return "sink t"
	}
	return fmt.Sprintf("aspect %d", term)
}

// terms lists the terminals that receive flow, ascending.
func (p *picture) terms() []int {
	var out []int
	for i, e := range p.ends {
		if i == 0 || e.Term != p.ends[i-1].Term {
			out = append(out, e.Term)
		}
	}
	return out
}

func firstNonBlank(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// shorten collapses white space and cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// width maps a hop's flow to a line width in [1.5, 5].
func (p *picture) width(f float64) float64 {
	if p.maxFlow <= 0 {
		return 1.5
	}
	return 1.5 + 3.5*f/p.maxFlow
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}

// writeDOT writes p as a Graphviz digraph: one box per document, nodes on
// read chains filled orange, on other routed chains pale yellow; flow hops
// bold, directed and labelled with their flow, ending in the aspect
// terminals (or the sink); other graph edges thin, grey, undirected and
// left out of the layout's ranking so that the flow sets the reading
// direction.
func writeDOT(w io.Writer, p *picture) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph flowreader {")
	label := p.title
	if p.dropped > 0 {
		label += fmt.Sprintf("\n(%d nodes beyond the evidence and its nearest neighbours left out; --dot-all draws every node)", p.dropped)
	}
	fmt.Fprintf(bw, "  graph [rankdir=LR, labelloc=t, fontsize=12, fontname=\"Helvetica\", nodesep=0.15, ranksep=0.5, label=%s];\n", dotQuote(label))
	fmt.Fprintln(bw, `  node [shape=box, style="rounded", fontsize=10, fontname="Helvetica", color="#555555"];`)
	fmt.Fprintln(bw, `  edge [fontsize=9, fontname="Helvetica"];`)
	docs, groups := p.docGroups()
	for i, d := range docs {
		fmt.Fprintf(bw, "  subgraph cluster_%d {\n", i)
		fmt.Fprintf(bw, "    graph [label=%s, style=\"rounded,dashed\", color=\"#999999\", fontsize=10];\n", dotQuote(d))
		for _, v := range groups[i] {
			head, text := nodeLabel(p.g, v, false)
			attrs := ""
			switch {
			case p.read[v]:
				attrs = `, style="rounded,filled", fillcolor="#f4a261", penwidth=2`
			case p.routed[v]:
				attrs = `, style="rounded,filled", fillcolor="#ffe8a3"`
			}
			fmt.Fprintf(bw, "    n%d [label=%s%s];\n", v, dotQuote(head+"\n"+text), attrs)
		}
		fmt.Fprintln(bw, "  }")
	}
	for _, t := range p.terms() {
		fmt.Fprintf(bw, "  %s [label=%s, shape=doublecircle, fontsize=9, style=filled, fillcolor=\"#e9c46a\"];\n", termID(t), dotQuote(termLabel(t)))
	}
	for _, e := range p.flows {
		fmt.Fprintf(bw, "  n%d -> n%d [label=\"%.2f\", penwidth=%.2f, color=\"#e76f51\", style=bold];\n", e.U, e.V, e.Flow, p.width(e.Flow))
	}
	for _, e := range p.ends {
		fmt.Fprintf(bw, "  n%d -> %s [label=\"%.2f\", penwidth=%.2f, color=\"#e76f51\", style=bold];\n", e.U, termID(e.Term), e.Flow, p.width(e.Flow))
	}
	for _, e := range p.plain {
		fmt.Fprintf(bw, "  n%d -> n%d [dir=none, color=\"#cccccc\", constraint=false];\n", e.U, e.V)
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// mermaidText makes s safe inside a quoted Mermaid label.
func mermaidText(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", " ", "\r", "")
	return r.Replace(s)
}

// writeMermaid writes p as a Mermaid flowchart with the same conventions
// as writeDOT: one subgraph per document, thick labelled arrows (==>) for
// flow, thin lines (---) for the other edges, classes "read" and "routed"
// for highlighted nodes.
func writeMermaid(w io.Writer, p *picture) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "flowchart LR")
	if p.title != "" {
		fmt.Fprintf(bw, "  %%%% %s\n", strings.Join(strings.Fields(p.title), " "))
	}
	if p.dropped > 0 {
		fmt.Fprintf(bw, "  %%%% %d nodes beyond the evidence and its nearest neighbours left out; --dot-all draws every node\n", p.dropped)
	}
	var read, routed []string
	docs, groups := p.docGroups()
	for i, d := range docs {
		fmt.Fprintf(bw, "  subgraph d%d[\"%s\"]\n", i, mermaidText(d))
		for _, v := range groups[i] {
			head, text := nodeLabel(p.g, v, false)
			fmt.Fprintf(bw, "    n%d[\"%s<br/>%s\"]\n", v, mermaidText(head), mermaidText(text))
			switch {
			case p.read[v]:
				read = append(read, fmt.Sprintf("n%d", v))
			case p.routed[v]:
				routed = append(routed, fmt.Sprintf("n%d", v))
			}
		}
		fmt.Fprintln(bw, "  end")
	}
	for _, t := range p.terms() {
		fmt.Fprintf(bw, "  %s((\"%s\"))\n", termID(t), termLabel(t))
	}
	link := 0
	var widths []string
	for _, e := range p.flows {
		fmt.Fprintf(bw, "  n%d ==>|%.2f| n%d\n", e.U, e.Flow, e.V)
		widths = append(widths, fmt.Sprintf("  linkStyle %d stroke:#e76f51,stroke-width:%.1fpx", link, p.width(e.Flow)))
		link++
	}
	for _, e := range p.ends {
		fmt.Fprintf(bw, "  n%d ==>|%.2f| %s\n", e.U, e.Flow, termID(e.Term))
		widths = append(widths, fmt.Sprintf("  linkStyle %d stroke:#e76f51,stroke-width:%.1fpx", link, p.width(e.Flow)))
		link++
	}
	for _, e := range p.plain {
		fmt.Fprintf(bw, "  n%d --- n%d\n", e.U, e.V)
	}
	fmt.Fprintln(bw, "  classDef read fill:#f4a261,stroke:#333,stroke-width:2px")
	fmt.Fprintln(bw, "  classDef routed fill:#ffe8a3,stroke:#555")
	if len(read) > 0 {
		fmt.Fprintf(bw, "  class %s read\n", strings.Join(read, ","))
	}
	if len(routed) > 0 {
		fmt.Fprintf(bw, "  class %s routed\n", strings.Join(routed, ","))
	}
	for _, s := range widths {
		fmt.Fprintln(bw, s)
	}
	return bw.Flush()
}
