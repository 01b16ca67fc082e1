package eino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/flowreader/flowreader"
)

// Retriever is a *flowreader.Index as an Eino retriever.Retriever.
type Retriever struct {
	ix     *flowreader.Index
	budget int
}

var _ retriever.Retriever = (*Retriever)(nil)

// NewRetriever retrieves from ix with the given per-call budget (see
// flowreader.Options.Budget): the flow is routed for that many distinct
// nodes and at most that many are returned. 0 means the pipeline's
// Config.Budget.
func NewRetriever(ix *flowreader.Index, budget int) (*Retriever, error) {
	if ix == nil || budget < 0 {
		return nil, fmt.Errorf("eino: NewRetriever needs an index and a non-negative budget")
	}
	return &Retriever{ix: ix, budget: budget}, nil
}

// Retrieve retrieves the evidence for query (flowreader's Index.Retrieve:
// Score → Route → Select with the retriever's budget). Each selected
// chain's nodes become documents in the chain's order, each node once. A
// document's ID is the node's; its score is the node score h; MetaData
// holds id, document, page, modality, section, chain (index among the
// selected chains), flow (the chain's) and h. retriever.WithTopK sets the
// call's budget when the retriever's is 0 or larger;
// retriever.WithScoreThreshold drops nodes whose h is below it; the other
// options do not apply.
func (r *Retriever) Retrieve(ctx context.Context, query string, opts ...retriever.Option) ([]*schema.Document, error) {
	o := retriever.GetCommonOptions(&retriever.Options{}, opts...)
	budget := r.budget
	if o.TopK != nil && *o.TopK > 0 && (budget == 0 || *o.TopK < budget) {
		budget = *o.TopK
	}
	var keep func(evidence) bool
	if o.ScoreThreshold != nil {
		keep = func(e evidence) bool { return e.Score >= *o.ScoreThreshold }
	}
	ev, err := retrieve(ctx, r.ix, query, budget, keep)
	if err != nil {
		return nil, err
	}
	docs := make([]*schema.Document, len(ev))
	for i, e := range ev {
		d := &schema.Document{ID: e.ID, Content: e.Text, MetaData: e.metadata()}
		docs[i] = d.WithScore(e.Score)
	}
	return docs, nil
}
