package langchaingo

import (
	"context"
	"fmt"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/tmc/langchaingo/schema"
)

// DefaultMaxDocuments is flowreader's default Budget, the retriever's
// document limit when none is given.
const DefaultMaxDocuments = 16

// Retriever is a *flowreader.Index as a LangChainGo schema.Retriever.
type Retriever struct {
	ix  *flowreader.Index
	max int
}

var _ schema.Retriever = (*Retriever)(nil)

// NewRetriever retrieves from ix at most maxDocuments distinct nodes; 0
// means [DefaultMaxDocuments]. Give the pipeline's Config.Budget when it is
// not the default.
func NewRetriever(ix *flowreader.Index, maxDocuments int) (*Retriever, error) {
	if ix == nil || maxDocuments < 0 {
		return nil, fmt.Errorf("langchaingo: NewRetriever needs an index and a non-negative limit")
	}
	if maxDocuments == 0 {
		maxDocuments = DefaultMaxDocuments
	}
	return &Retriever{ix: ix, max: maxDocuments}, nil
}

// GetRelevantDocuments scores the nodes for query, routes the evidence flow
// and selects chains (Score → Route → Select). Each selected chain's nodes
// become documents in the chain's order, each node once. Metadata: id,
// document, page, modality, section, chain (index among the selected
// chains), flow (the chain's), h (the node's score); Score is h.
func (r *Retriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	s, err := r.ix.Score(ctx, query)
	if err != nil {
		return nil, err
	}
	rt, err := r.ix.Route(ctx, s)
	if err != nil {
		return nil, err
	}
	g := r.ix.Graph()
	seen := map[int]bool{}
	var docs []schema.Document
	for ci, c := range r.ix.Select(rt) {
		for _, v := range c.Nodes {
			if seen[v] || v < 0 || v >= g.Len() {
				continue
			}
			if len(docs) == r.max {
				return docs, nil
			}
			seen[v] = true
			n := g.Nodes[v]
			var h float64
			if v < len(s.H) {
				h = s.H[v]
			}
			docs = append(docs, schema.Document{
				PageContent: text(n),
				Score:       float32(h),
				Metadata: map[string]any{
					"id": n.ID, "document": n.Doc, "page": n.Page, "modality": n.Modality.String(),
					"section": n.Section, "chain": ci, "flow": c.Flow, "h": h,
				},
			})
		}
	}
	return docs, nil
}

// text is a node's content, or for a visual node without one its caption,
// summary and the text read in its image.
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
