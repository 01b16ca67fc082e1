package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
)

// stripDOTStrings removes quoted strings (with their escapes) so that the
// structure can be checked without label text getting in the way.
func stripDOTStrings(s string) string {
	var b strings.Builder
	in, esc := false, false
	for _, r := range s {
		switch {
		case esc:
			esc = false
		case in && r == '\\':
			esc = true
		case r == '"':
			in = !in
			b.WriteString(`""`)
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	dotNodeRe = regexp.MustCompile(`(?m)^ +(n\d+|a\d+|t) \[(.*)\];$`)
	dotEdgeRe = regexp.MustCompile(`(?m)^  (n\d+) -> (n\d+|a\d+|t) \[(.*)\];$`)
)

// checkDOT checks that s is a well-formed digraph: balanced braces and
// brackets outside strings, closed strings, one statement per line, every
// node in an edge declared, every node of a read chain declared and
// filled, and flow edges labelled with a positive number.
func checkDOT(t *testing.T, s string, read map[int]bool) {
	t.Helper()
	if strings.Count(s, `"`)-strings.Count(s, `\"`) < 0 {
		t.Fatal("negative quote count")
	}
	bare := stripDOTStrings(s)
	depth := 0
	for _, r := range bare {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		}
		if depth < 0 {
			break
		}
	}
	if depth != 0 || strings.Count(bare, "[") != strings.Count(bare, "]") {
		t.Errorf("unbalanced braces or brackets in DOT:\n%s", s)
	}
	if !strings.HasPrefix(s, "digraph flowreader {\n") || !strings.HasSuffix(s, "}\n") {
		t.Errorf("DOT is not one digraph:\n%s", s)
	}
	declared := map[string]string{}
	for _, m := range dotNodeRe.FindAllStringSubmatch(s, -1) {
		if _, dup := declared[m[1]]; dup {
			t.Errorf("%s declared twice", m[1])
		}
		declared[m[1]] = m[2]
	}
	flows := 0
	for _, m := range dotEdgeRe.FindAllStringSubmatch(s, -1) {
		for _, x := range m[1:3] {
			if _, ok := declared[x]; !ok {
				t.Errorf("edge uses undeclared node %s", x)
			}
		}
		if strings.Contains(m[3], "style=bold") {
			flows++
			lm := regexp.MustCompile(`label="([0-9.]+)"`).FindStringSubmatch(m[3])
			if lm == nil {
				t.Errorf("flow edge without a flow label: %s", m[0])
			} else if f, _ := strconv.ParseFloat(lm[1], 64); f <= 0 {
				t.Errorf("flow label %s", lm[1])
			}
		}
	}
	if flows == 0 {
		t.Error("no flow-carrying edge in the DOT output")
	}
	for v := range read {
		attrs, ok := declared[fmt.Sprintf("n%d", v)]
		if !ok {
			t.Errorf("read node n%d not declared", v)
		} else if !strings.Contains(attrs, "#f4a261") {
			t.Errorf("read node n%d not highlighted: %s", v, attrs)
		}
	}
	for id, attrs := range declared {
		var v int
		if _, err := fmt.Sscanf(id, "n%d", &v); err == nil && strings.Contains(attrs, "#f4a261") && !read[v] {
			t.Errorf("%s highlighted as read but not on a read chain", id)
		}
	}
	// Statements are the only lines besides subgraph openings and braces.
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n")[1:] {
		l := strings.TrimSpace(line)
		if l != "}" && !strings.HasSuffix(l, ";") && !regexp.MustCompile(`^subgraph cluster_\d+ \{$`).MatchString(l) {
			t.Errorf("DOT line %q is neither a statement nor a subgraph brace", line)
		}
	}
}

var (
	mmdNodeRe  = regexp.MustCompile(`^    (n\d+)\["([^"]*)"\]$|^  (a\d+|t)\(\("([^"]*)"\)\)$`)
	mmdFlowRe  = regexp.MustCompile(`^  (n\d+) ==>\|([0-9.]+)\| (n\d+|a\d+|t)$`)
	mmdPlainRe = regexp.MustCompile(`^  (n\d+) --- (n\d+)$`)
	mmdGroupRe = regexp.MustCompile(`^  subgraph d\d+\["[^"]*"\]$|^  end$`)
	mmdClassRe = regexp.MustCompile(`^  class ([n0-9,]+) (read|routed)$`)
	mmdStyleRe = regexp.MustCompile(`^  (classDef .*|linkStyle \d+ .*|%% .*)$`)
)

// checkMermaid checks that every line of s is a statement of the small
// Mermaid subset writeMermaid emits, that edges and classes name declared
// nodes, that the read nodes are in class read, and that linkStyle indexes
// exist.
func checkMermaid(t *testing.T, s string, read map[int]bool) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if lines[0] != "flowchart LR" {
		t.Fatalf("first line %q", lines[0])
	}
	declared := map[string]bool{}
	inRead := map[int]bool{}
	links, flows, depth := 0, 0, 0
	node := func(x string) int {
		if !declared[x] {
			t.Errorf("undeclared node %s", x)
		}
		v, _ := strconv.Atoi(strings.TrimPrefix(x, "n"))
		return v
	}
	for _, l := range lines[1:] {
		switch {
		case mmdGroupRe.MatchString(l):
			if l == "  end" {
				depth--
			} else {
				depth++
			}
			if depth < 0 || depth > 1 {
				t.Errorf("subgraph nesting %d at %q", depth, l)
			}
		case mmdNodeRe.MatchString(l):
			m := mmdNodeRe.FindStringSubmatch(l)
			id := m[1] + m[3]
			if declared[id] {
				t.Errorf("%s declared twice", id)
			}
			declared[id] = true
		case mmdFlowRe.MatchString(l):
			m := mmdFlowRe.FindStringSubmatch(l)
			node(m[1])
			node(m[3])
			links++
			flows++
		case mmdPlainRe.MatchString(l):
			m := mmdPlainRe.FindStringSubmatch(l)
			node(m[1])
			node(m[2])
			links++
		case mmdClassRe.MatchString(l):
			m := mmdClassRe.FindStringSubmatch(l)
			for _, x := range strings.Split(m[1], ",") {
				v := node(x)
				if m[2] == "read" {
					inRead[v] = true
				}
			}
		case mmdStyleRe.MatchString(l):
			if m := regexp.MustCompile(`^  linkStyle (\d+) `).FindStringSubmatch(l); m != nil {
				if i, _ := strconv.Atoi(m[1]); i >= links {
					t.Errorf("linkStyle %d of %d links", i, links)
				}
			}
		default:
			t.Errorf("unexpected Mermaid line %q", l)
		}
	}
	if depth != 0 {
		t.Errorf("unclosed subgraph")
	}
	if flows == 0 {
		t.Error("no flow arrow in the Mermaid output")
	}
	for v := range read {
		if !inRead[v] {
			t.Errorf("read node n%d not in class read", v)
		}
	}
}

// lineGraph is a path 0–1–…–(n−1) with 2-d embeddings.
func lineGraph(t *testing.T, n int) *graph.Graph {
	t.Helper()
	nodes := make([]graph.Node, n)
	emb := make([]float32, 2*n)
	var edges []graph.Edge
	for i := range nodes {
		nodes[i] = graph.Node{ID: fmt.Sprintf("d#%d", i), Doc: "d", Page: -1, Content: fmt.Sprintf("node \"%d\" {with} <braces> and \\ text", i)}
		emb[2*i], emb[2*i+1] = 1, float32(i)/float32(n)
		if i > 0 {
			edges = append(edges, graph.Edge{U: int32(i - 1), V: int32(i), Kind: graph.EdgeOrder})
		}
	}
	g, err := graph.New(nodes, 2, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// starGraph is node 0 linked to n-1 others, edge weights falling.
func starGraph(t *testing.T, n int) *graph.Graph {
	t.Helper()
	nodes := make([]graph.Node, n)
	emb := make([]float32, 2*n)
	var edges []graph.Edge
	for i := range nodes {
		nodes[i] = graph.Node{ID: fmt.Sprintf("s#%d", i), Doc: "s", Page: -1, Content: "hub"}
		emb[2*i] = 1
		if i > 0 {
			edges = append(edges, graph.Edge{U: 0, V: int32(i), Kind: graph.EdgeKNN, Weight: 1 / float32(i)})
		}
	}
	g, err := graph.New(nodes, 2, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The evidence subgraph: the read chains' nodes and their neighbours, not
// the other routed chains far from them; the whole graph on request;
// labels with quotes, braces and backslashes stay well-formed.
func TestPictureLargeGraph(t *testing.T) {
	g := lineGraph(t, 100)
	r := &flow.Routing{Router: "test", Chains: []flow.Chain{
		{Nodes: []int{10, 11, 12}, Flow: 1, Aspect: 0},
		{Nodes: []int{50, 51}, Flow: 0.25, Aspect: 1},
		{Nodes: []int{11, 12}, Flow: 0.5, Aspect: 0},
	}}
	read := r.Chains[:2]
	p := newPicture(g, r, read, false, `Q: "why" {x}`)
	want := []int{9, 10, 11, 12, 13, 49, 50, 51, 52}
	if fmt.Sprint(p.nodes) != fmt.Sprint(want) {
		t.Errorf("drawn nodes %v, want %v", p.nodes, want)
	}
	if p.dropped != 100-len(want) {
		t.Errorf("dropped %d", p.dropped)
	}
	if len(p.flows) != 3 {
		t.Fatalf("flows %+v", p.flows)
	}
	// 11→12 carries both chains' flow.
	for _, e := range p.flows {
		if e.U == 11 && e.V == 12 && e.Flow != 1.5 {
			t.Errorf("flow on 11→12 is %v, want 1.5", e.Flow)
		}
	}
	// Edges carrying flow are not repeated as plain edges.
	for _, e := range p.plain {
		if e.U == 11 && e.V == 12 || e.U == 10 && e.V == 11 {
			t.Errorf("flow edge %d–%d also drawn plain", e.U, e.V)
		}
	}
	// Chain ends flow into their aspect terminals: 12 → a0 (1 + 0.5), 51 → a1.
	if fmt.Sprint(p.ends) != "[{12 0 1.5} {51 1 0.25}]" {
		t.Errorf("ends %v", p.ends)
	}
	readNodes := map[int]bool{10: true, 11: true, 12: true, 50: true, 51: true}
	var dot, mmd bytes.Buffer
	if err := writeDOT(&dot, p); err != nil {
		t.Fatal(err)
	}
	checkDOT(t, dot.String(), readNodes)
	if !strings.Contains(dot.String(), "91 nodes beyond the evidence and its nearest neighbours left out; --dot-all draws every node") {
		t.Error("DOT does not say nodes were left out")
	}
	if err := writeMermaid(&mmd, p); err != nil {
		t.Fatal(err)
	}
	checkMermaid(t, mmd.String(), readNodes)
	if strings.Contains(mmd.String(), `\"`) || strings.Count(mmd.String(), "#quot;") < 2 {
		t.Error("quotes in Mermaid labels are not entity-escaped")
	}

	// The whole graph on request.
	small := lineGraph(t, 20)
	routing := &flow.Routing{Chains: []flow.Chain{{Nodes: []int{3, 4}, Flow: 1}, {Nodes: []int{15}, Flow: 0.5}}}
	p = newPicture(small, routing, nil, true, "")
	if len(p.nodes) != 20 || p.dropped != 0 || len(p.plain) != 18 {
		t.Errorf("small graph: %d nodes, %d dropped, %d plain edges", len(p.nodes), p.dropped, len(p.plain))
	}
	// Nothing read: the routed chains and their neighbours.
	p = newPicture(small, routing, nil, false, "")
	if fmt.Sprint(p.nodes) != "[2 3 4 5 14 15 16]" {
		t.Errorf("nothing read: %v", p.nodes)
	}
	// Chains read far from another routed chain: that one is left out,
	// with its flow.
	p = newPicture(g, r, r.Chains[:1], false, "")
	if fmt.Sprint(p.nodes) != "[9 10 11 12 13]" || len(p.flows) != 2 || fmt.Sprint(p.ends) != "[{12 0 1.5}]" {
		t.Errorf("one chain read: nodes %v flows %v ends %v", p.nodes, p.flows, p.ends)
	}
	// A hub brings its two nearest neighbours (heaviest edges).
	star := starGraph(t, 200)
	p = newPicture(star, &flow.Routing{Chains: []flow.Chain{{Nodes: []int{0}, Flow: 1}}}, []flow.Chain{{Nodes: []int{0}, Flow: 1}}, false, "")
	if fmt.Sprint(p.nodes) != "[0 1 2]" || p.dropped != 197 {
		t.Errorf("hub: %v, %d dropped", p.nodes, p.dropped)
	}
	// Neighbours stop at maxPictureNodes; the evidence is always drawn.
	long := lineGraph(t, 300)
	for _, c := range []struct{ from, to, want int }{{0, 59, 60}, {0, 70, 71}, {100, 130, 33}} {
		chain := flow.Chain{Flow: 1}
		for v := c.from; v <= c.to; v++ {
			chain.Nodes = append(chain.Nodes, v)
		}
		p = newPicture(long, &flow.Routing{Chains: []flow.Chain{chain}}, []flow.Chain{chain}, false, "")
		if len(p.nodes) != c.want {
			t.Errorf("chain %d-%d: %d nodes, want %d", c.from, c.to, len(p.nodes), c.want)
		}
	}
}

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a  b\n c", 10, "a b c"},
		{"abcdef", 4, "abc…"},
		{"ééééé", 5, "ééééé"},
		{"éééééé", 5, "éééé…"},
	} {
		if got := shorten(c.in, c.n); got != c.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// FuzzPicture feeds arbitrary document text and questions (outside input)
// into the DOT and Mermaid writers: the output must stay well-formed.
func FuzzPicture(f *testing.F) {
	f.Add("plain text", "Q: plain?")
	f.Add(`quote " backslash \ brace { } bracket [ ] pipe |`, "Q: \"quoted\"\nsecond line")
	f.Add("<b>html</b> #quot; &amp; %% comment", `\n \l \" end`)
	f.Add("\xff\xfe invalid utf-8 \r\n tabs\tand\u2028separators", "subgraph cluster_9 {")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, content, title string) {
		nodes := []graph.Node{
			{ID: "d#0", Doc: `doc "one" {x}`, Page: -1, Content: content},
			{ID: "d#1", Doc: `doc "one" {x}`, Page: 2, Modality: graph.ModalityTable, Caption: content + content},
			{ID: content + "#2", Doc: content, Page: -1, Modality: graph.ModalityFigure, Summary: title},
		}
		g, err := graph.New(nodes, 2, []float32{1, 0, 1, 1, 0, 1}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 0, V: 2}})
		if err != nil {
			t.Fatal(err)
		}
		r := &flow.Routing{Chains: []flow.Chain{{Nodes: []int{0, 1}, Flow: 0.7, Aspect: 0}, {Nodes: []int{2}, Flow: 0.3, Aspect: -1}}}
		p := newPicture(g, r, r.Chains[:1], false, title)
		var dot, mmd bytes.Buffer
		if err := writeDOT(&dot, p); err != nil {
			t.Fatal(err)
		}
		checkDOT(t, dot.String(), map[int]bool{0: true, 1: true})
		if err := writeMermaid(&mmd, p); err != nil {
			t.Fatal(err)
		}
		checkMermaid(t, mmd.String(), map[int]bool{0: true, 1: true})
	})
}
