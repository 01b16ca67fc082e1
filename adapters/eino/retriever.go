package eino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/adapt"
)

// DefaultMaxDocuments is flowreader's default Budget, the retriever's
// document limit when none is given.
const DefaultMaxDocuments = adapt.DefaultMaxDocuments

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
	var keep func(adapt.Evidence) bool
	if o.ScoreThreshold != nil {
		keep = func(e adapt.Evidence) bool { return e.H >= *o.ScoreThreshold }
	}
	ev, err := adapt.Retrieve(ctx, r.ix, query, limit, keep)
	if err != nil {
		return nil, err
	}
	docs := make([]*schema.Document, len(ev))
	for i, e := range ev {
		d := &schema.Document{ID: e.Node.ID, Content: e.Text, MetaData: e.Metadata()}
		docs[i] = d.WithScore(e.H)
	}
	return docs, nil
}
