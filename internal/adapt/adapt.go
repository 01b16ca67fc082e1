// Package adapt holds what the framework adapters (modules under adapters/)
// share: an index's evidence for a question as the nodes read, in reading
// order, with the metadata every framework's document carries.
package adapt

import (
	"context"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
)

// Evidence is one node read for a question.
type Evidence struct {
	flowreader.EvidenceNode
	// Chain is the index of the node's chain among the selected ones, and
	// ChainFlow that chain's flow.
	Chain     int
	ChainFlow float64
}

// Metadata is the evidence's metadata as the adapters' documents carry it:
// id, document, page, modality, section, chain, flow (the chain's) and h.
func (e Evidence) Metadata() map[string]any {
	return map[string]any{
		"id": e.ID, "document": e.Doc, "page": e.Page, "modality": e.Modality,
		"section": e.Title, "chain": e.Chain, "flow": e.ChainFlow, "h": e.Score,
	}
}

// Retrieve runs ix.Retrieve for query with the per-call budget (0: the
// pipeline's Config.Budget) and returns the selected chains' nodes in the
// chains' order, each node once, at most the budget used. keep, when set,
// decides which evidence counts.
func Retrieve(ctx context.Context, ix *flowreader.Index, query string, budget int, keep func(Evidence) bool) ([]Evidence, error) {
	ev, err := ix.Retrieve(ctx, query, flowreader.Options{Budget: budget})
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	var out []Evidence
	for ci, c := range ev.Chains {
		for _, n := range c.Nodes {
			if seen[n.Node] {
				continue
			}
			e := Evidence{EvidenceNode: n, Chain: ci, ChainFlow: c.Flow}
			if keep != nil && !keep(e) {
				continue
			}
			if len(out) == ev.Budget {
				return out, nil
			}
			seen[n.Node] = true
			out = append(out, e)
		}
	}
	return out, nil
}

// Prefixed returns texts with the task prefix of kind (document or query):
// nomic-style embedders want "search_document: " / "search_query: ", which
// the frameworks leave to the caller.
func Prefixed(texts []string, kind llm.Kind, documentPrefix, queryPrefix string) []string {
	prefix := documentPrefix
	if kind == llm.KindQuery {
		prefix = queryPrefix
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = prefix + t
	}
	return in
}
