package langchaingo

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader"
	"github.com/tmc/langchaingo/schema"
)

// Retriever is a *flowreader.Index as a LangChainGo schema.Retriever.
type Retriever struct {
	ix     *flowreader.Index
	budget int
}

var _ schema.Retriever = (*Retriever)(nil)

// NewRetriever retrieves from ix with the given per-call budget (see
// flowreader.Options.Budget): the flow is routed for that many distinct
// nodes and at most that many are returned. 0 means the pipeline's
// Config.Budget.
func NewRetriever(ix *flowreader.Index, budget int) (*Retriever, error) {
	if ix == nil || budget < 0 {
		return nil, fmt.Errorf("langchaingo: NewRetriever needs an index and a non-negative budget")
	}
	return &Retriever{ix: ix, budget: budget}, nil
}

// GetRelevantDocuments retrieves the evidence for query (flowreader's
// Index.Retrieve: Score → Route → Select with the retriever's budget).
// Each selected chain's nodes become documents in the chain's order, each
// node once. Metadata: id, document, page, modality, section, chain (index
// among the selected chains), flow (the chain's), h (the node's score);
// Score is h.
func (r *Retriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	ev, err := retrieve(ctx, r.ix, query, r.budget, nil)
	if err != nil {
		return nil, err
	}
	docs := make([]schema.Document, len(ev))
	for i, e := range ev {
		docs[i] = schema.Document{PageContent: e.Text, Score: float32(e.Score), Metadata: e.metadata()}
	}
	return docs, nil
}
