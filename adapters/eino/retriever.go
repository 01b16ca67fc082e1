package eino

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// DefaultMaxDocuments is flowreader's default Budget, the retriever's
// document limit when none is given.
const DefaultMaxDocuments = 16

// Retriever is a *flowreader.Index as an Eino retriever.Retriever.
type Retriever struct {
	ix  *flowreader.Index
	max int
}

var _ retriever.Retriever = (*Retriever)(nil)

// NewRetriever retrieves from ix at most maxDocuments distinct nodes; 0
// means [DefaultMaxDocuments]. Give the pipeline's Config.Budget when it is
// not the default.
func NewRetriever(ix *flowreader.Index, maxDocuments int) (*Retriever, error) {
	if ix == nil || maxDocuments < 0 {
		return nil, fmt.Errorf("eino: NewRetriever needs an index and a non-negative limit")
	}
	if maxDocuments == 0 {
		maxDocuments = DefaultMaxDocuments
	}
	return &Retriever{ix: ix, max: maxDocuments}, nil
}

// Retrieve scores the nodes for query, routes the evidence flow and
// selects chains (Score → Route → Select). Each selected chain's nodes
// become documents in the chain's order, each node once. A document's ID
// is the node's; its score is the node score h; MetaData holds id,
// document, page, modality, section, chain (index among the selected
// chains), flow (the chain's) and h. retriever.WithTopK lowers the limit;
// retriever.WithScoreThreshold drops nodes whose h is below it; the other
// options do not apply.
func (r *Retriever) Retrieve(ctx context.Context, query string, opts ...retriever.Option) ([]*schema.Document, error) {
	o := retriever.GetCommonOptions(&retriever.Options{}, opts...)
	limit := r.max
	if o.TopK != nil && *o.TopK > 0 && *o.TopK < limit {
		limit = *o.TopK
	}
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
	var docs []*schema.Document
	for ci, c := range r.ix.Select(rt) {
		for _, v := range c.Nodes {
			if seen[v] || v < 0 || v >= g.Len() {
				continue
			}
			var h float64
			if v < len(s.H) {
				h = s.H[v]
			}
			if o.ScoreThreshold != nil && h < *o.ScoreThreshold {
				continue
			}
			if len(docs) == limit {
				return docs, nil
			}
			seen[v] = true
			n := g.Nodes[v]
			d := &schema.Document{ID: n.ID, Content: text(n), MetaData: map[string]any{
				"id": n.ID, "document": n.Doc, "page": n.Page, "modality": n.Modality.String(),
				"section": n.Section, "chain": ci, "flow": c.Flow, "h": h,
			}}
			docs = append(docs, d.WithScore(h))
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
