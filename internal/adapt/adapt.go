// Package adapt holds what the framework adapters (modules under adapters/)
// share: an index's evidence for a question as the nodes read, in reading
// order, with the metadata every framework's document carries.
package adapt

import (
	"context"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// DefaultMaxDocuments is flowreader's default Budget, the retrievers'
// document limit when none is given.
const DefaultMaxDocuments = 16

// Evidence is one node read for a question.
type Evidence struct {
	Node graph.Node
	// Text is the node's content, or for a visual node without one its
	// caption, summary and the text read in its image.
	Text string
	// H is the node's score h; Chain the index of its chain among the
	// selected ones, and Flow that chain's flow.
	H     float64
	Chain int
	Flow  float64
}

// Metadata is the evidence's metadata as the adapters' documents carry it:
// id, document, page, modality, section, chain, flow and h.
func (e Evidence) Metadata() map[string]any {
	return map[string]any{
		"id": e.Node.ID, "document": e.Node.Doc, "page": e.Node.Page, "modality": e.Node.Modality.String(),
		"section": e.Node.Section, "chain": e.Chain, "flow": e.Flow, "h": e.H,
	}
}

// Retrieve scores the nodes of ix for query, routes the evidence flow and
// selects chains (Score → Route → Select), and returns the selected chains'
// nodes in the chains' order, each node once. keep, when set, decides which
// evidence counts; at most limit items are returned.
func Retrieve(ctx context.Context, ix *flowreader.Index, query string, limit int, keep func(Evidence) bool) ([]Evidence, error) {
	s, err := ix.Score(ctx, query)
	if err != nil {
		return nil, err
	}
	rt, err := ix.Route(ctx, s)
	if err != nil {
		return nil, err
	}
	g := ix.Graph()
	seen := map[int]bool{}
	var out []Evidence
	for ci, c := range ix.Select(rt) {
		for _, v := range c.Nodes {
			if seen[v] || v < 0 || v >= g.Len() {
				continue
			}
			e := Evidence{Node: g.Nodes[v], Text: text(g.Nodes[v]), Chain: ci, Flow: c.Flow}
			if v < len(s.H) {
				e.H = s.H[v]
			}
			if keep != nil && !keep(e) {
				continue
			}
			if len(out) == limit {
				return out, nil
			}
			seen[v] = true
			out = append(out, e)
		}
	}
	return out, nil
}

func text(n graph.Node) string {
	if n.Content != "" {
		return n.Content
	}
	var parts []string
	for _, s := range []string{n.Caption, n.Summary, n.ImageText} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}
