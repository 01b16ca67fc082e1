package flowreadertest

import (
	"fmt"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// Evidence returns the nodes the index would read for question: the
// distinct nodes of the chains Score, Route and Select give, in reading
// order (first chain first, each chain in routed order). It stops the test
// when scoring or routing fails.
func Evidence(t TB, ix *flowreader.Index, question string) []graph.Node {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	ev, err := evidence(t, ix, question)
	if err != nil {
		fatalf(t, "flowreadertest: Evidence(%q): %v", question, err)
	}
	return ev
}

func evidence(t TB, ix *flowreader.Index, question string) ([]graph.Node, error) {
	ev, err := ix.Retrieve(testContext(t), question, flowreader.Options{})
	if err != nil {
		return nil, err
	}
	g := ix.Graph()
	var out []graph.Node
	seen := map[int]bool{}
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			if !seen[n.Node] {
				seen[n.Node] = true
				out = append(out, g.Nodes[n.Node])
			}
		}
	}
	return out, nil
}

// EvidenceContains reports whether the evidence for question ([Evidence])
// includes a node whose content or caption contains text (a case-sensitive
// substring). When it does not, it reports the evidence with t.Errorf.
func EvidenceContains(t TB, ix *flowreader.Index, question, text string) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	ev, err := evidence(t, ix, question)
	if err != nil {
		t.Errorf("flowreadertest: EvidenceContains(%q): %v", question, err)
		return false
	}
	for _, n := range ev {
		if strings.Contains(n.Content, text) || strings.Contains(n.Caption, text) {
			return true
		}
	}
	t.Errorf("flowreadertest: the evidence for %q has no node containing %q; it read:\n%s", question, text, listing(ev))
	return false
}

// ReadsAtMost reports whether the evidence for question ([Evidence]) has at
// most n distinct nodes, and reports it with t.Errorf when it has more.
func ReadsAtMost(t TB, ix *flowreader.Index, question string, n int) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	ev, err := evidence(t, ix, question)
	if err != nil {
		t.Errorf("flowreadertest: ReadsAtMost(%q): %v", question, err)
		return false
	}
	if len(ev) > n {
		t.Errorf("flowreadertest: the evidence for %q has %d nodes, more than %d:\n%s", question, len(ev), n, listing(ev))
		return false
	}
	return true
}

// Cites asks question (Index.Ask) and reports whether the answer cites
// document doc (a citation whose Doc is doc); when it does not, it reports
// the answer and its citations with t.Errorf.
func Cites(t TB, ix *flowreader.Index, question, doc string) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	res, err := ix.Ask(testContext(t), question, flowreader.Options{})
	if err != nil {
		t.Errorf("flowreadertest: Cites(%q): %v", question, err)
		return false
	}
	var docs []string
	for _, c := range res.Citations {
		if c.Doc == doc {
			return true
		}
		docs = append(docs, c.Doc)
	}
	t.Errorf("flowreadertest: the answer to %q does not cite %q: answer %q, citations %q", question, doc, res.Text, docs)
	return false
}

// listing renders nodes one a line for a failure message.
func listing(ns []graph.Node) string {
	if len(ns) == 0 {
		return "\t(no nodes)"
	}
	var b strings.Builder
	for i, n := range ns {
		text := strings.Join(strings.Fields(n.Content), " ")
		if r := []rune(text); len(r) > 80 {
			text = string(r[:80]) + "…"
		}
		fmt.Fprintf(&b, "\t%d. %s [%s] %q\n", i+1, n.ID, n.Doc, text)
	}
	return strings.TrimRight(b.String(), "\n")
}
