package graph

import (
	"strings"

	"github.com/flowreader/flowreader/internal/mention"
)

// MentionLinks returns Link edges between titled passages, computed from the
// nodes alone (no language model call): an edge joins u and v when u's
// Content or Keywords name v's title (its Section, without a parenthesised qualifier: "Lloyd
// (film)" is named "Lloyd"), and, with entities, when u and v name one
// entity, a run of at least two capitalised words that is not a date or a
// number and that at most 8 passages name. Titles under 4 letters, lower
// case, numeric, shared by more than 4 passages or named by more than
// max(8, 1% of the passages) are not matched: they link nothing in
// particular. These counts count contents: copies of one passage (Copies'
// rules, applied among the passages under one heading) count once. Matching walks an index of titles and entity spans once over
// each text, so the cost is about the total text length, not the number of
// pairs. Edges are sorted by (U, V), U < V, without duplicates; the result
// depends only on the nodes.
//
// The edges give multi-hop questions a path from the passage that names a
// bridge entity to the bridge's own passage, which is rarely similar to the
// question (HippoRAG, Gutiérrez et al., arXiv 2405.14831, links passages
// through shared entities the same way, with an LLM extracting them).
func MentionLinks(nodes []Node, entities bool) []Edge {
	texts := make([]string, len(nodes))
	titles := make([]string, len(nodes))
	for i := range nodes {
		texts[i], titles[i] = nodes[i].Content, nodes[i].Section
		if kw := nodes[i].Keywords; len(kw) > 0 {
			// The analysis' keywords (a model's, when one is configured)
			// name titles and entities too.
			texts[i] += "\n" + strings.Join(kw, ". ")
		}
	}
	// The thresholds count contents, not passages (copies found as Copies
	// finds them, among the passages under one heading): a collection that
	// holds a passage twice links as the one that holds it once.
	opt := mention.Options{Class: titleClasses(nodes)}
	ps := mention.MentionPairs(texts, titles, opt)
	if entities {
		ps = mention.Merge(ps, mention.EntityPairs(texts, opt))
	}
	out := make([]Edge, len(ps))
	for i, p := range ps {
		out[i] = Edge{U: p.U, V: p.V, Kind: EdgeLink}
	}
	return out
}
