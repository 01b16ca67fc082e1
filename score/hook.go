package score

import (
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/scorehook"
)

// The hooks a store uses to keep what NewIndex computes per node (see
// package internal/scorehook); each is the code NewIndex runs.
func init() {
	scorehook.K1, scorehook.B, scorehook.Epsilon = bm25K1, bm25B, bm25Epsilon
	scorehook.Keywords = func(text string, given []string) []string { return keywords(Query{Text: text, Keywords: given}) }
	scorehook.NewTerms = func() scorehook.Terms { return &hookTerms{st: newStemmer()} }
	scorehook.NodeRefKeys = func(nd *graph.Node) []string {
		var out []string
		for _, r := range nodeRefs(nd) {
			out = append(out, refKey(r))
		}
		return out
	}
	scorehook.QueryRefKeys = func(q string) [][]string {
		var out [][]string
		for _, r := range extractRefs(q) {
			out = append(out, queryKeys(r))
		}
		return out
	}
	scorehook.Candidates = func(ix, c, q any, m int) (any, error) {
		return ix.(*Index).candidateSet(c.(Config), q.(Query), m)
	}
	scorehook.ScoreCandidates = func(cs, c, q any) (any, error) {
		return cs.(*Candidates).score(c.(Config), q.(Query))
	}
	scorehook.MMR = graphMMR
	scorehook.SummaryLen = func(nd *graph.Node) int {
		l := utf8.RuneCountInString(nd.Summary)
		if l == 0 {
			l = utf8.RuneCountInString(nd.Content)
		}
		return l
	}
}

// hookTerms is scorehook.Terms over the stemmer NewIndex uses.
type hookTerms struct{ st *stemmer }

func (h *hookTerms) Append(dst []int32, nd *graph.Node) []int32 {
	dst = h.st.appendIDs(dst, nd.Summary)
	for _, k := range nd.Keywords {
		dst = h.st.appendIDs(dst, k)
	}
	dst = h.st.appendIDs(dst, nd.Content)
	return h.st.appendIDs(dst, nd.Caption)
}

func (h *hookTerms) Term(id int32) string { return h.st.terms[id] }
func (h *hookTerms) Len() int             { return len(h.st.terms) }
