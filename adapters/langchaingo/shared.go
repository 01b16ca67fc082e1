package langchaingo

import (
	"context"
	"fmt"
	"math"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
)

// This file is the same in every adapter module under adapters/: each
// depends on the root module's public API only, so an adapter release is
// not tied to one root commit.

// evidence is one node read for a question.
type evidence struct {
	flowreader.EvidenceNode
	// chain is the index of the node's chain among the selected ones, and
	// chainFlow that chain's flow.
	chain     int
	chainFlow float64
}

// metadata is the evidence's metadata as the adapters' documents carry it:
// id, document, page, modality, section, chain, flow (the chain's) and h.
func (e evidence) metadata() map[string]any {
	return map[string]any{
		"id": e.ID, "document": e.Doc, "page": e.Page, "modality": e.Modality,
		"section": e.Title, "chain": e.chain, "flow": e.chainFlow, "h": e.Score,
	}
}

// retrieve runs ix.Retrieve for query with the per-call budget (0: the
// pipeline's Config.Budget) and returns the selected chains' nodes in the
// chains' order, each node once, at most the budget used. keep, when set,
// decides which evidence counts.
func retrieve(ctx context.Context, ix *flowreader.Index, query string, budget int, keep func(evidence) bool) ([]evidence, error) {
	ev, err := ix.Retrieve(ctx, query, flowreader.Options{Budget: budget})
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	var out []evidence
	for ci, c := range ev.Chains {
		for _, n := range c.Nodes {
			if seen[n.Node] {
				continue
			}
			e := evidence{EvidenceNode: n, chain: ci, chainFlow: c.Flow}
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

// prefixed returns texts with the task prefix of kind (document or query):
// nomic-style embedders want "search_document: " / "search_query: ", which
// the frameworks leave to the caller.
func prefixed(texts []string, kind llm.Kind, documentPrefix, queryPrefix string) []string {
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

// checkVectors validates an embedder's output for a batch of n texts:
// exactly n vectors, each of length dim, every component finite. Any
// violation wraps llm.ErrInvalidOutput, so that a broken backend fails
// loudly instead of poisoning a graph with NaN.
func checkVectors(vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return fmt.Errorf("%w: %d vectors for %d texts", llm.ErrInvalidOutput, len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("%w: vector %d has %d components, want %d", llm.ErrInvalidOutput, i, len(v), dim)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: vector %d component %d is %v", llm.ErrInvalidOutput, i, j, x)
			}
		}
	}
	return nil
}
