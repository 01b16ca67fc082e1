package langchaingo

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/adapt"
	"github.com/tmc/langchaingo/schema"
)

// DefaultMaxDocuments is flowreader's default Budget, the retriever's
// document limit when none is given.
const DefaultMaxDocuments = adapt.DefaultMaxDocuments

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
	ev, err := adapt.Retrieve(ctx, r.ix, query, r.max, nil)
	if err != nil {
		return nil, err
	}
	docs := make([]schema.Document, len(ev))
	for i, e := range ev {
		docs[i] = schema.Document{PageContent: e.Text, Score: float32(e.H), Metadata: e.Metadata()}
	}
	return docs, nil
}
