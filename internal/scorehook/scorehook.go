// Package scorehook gives the library's own packages what package score
// computes per node and per question without making it public API: the
// BM25 terms of a node and the keys of its references, exactly as
// score.NewIndex makes them, so that a store that keeps them elsewhere
// scores as the in-process index does. Package score sets the functions
// when it is initialised; importing score (directly or not) is enough.
package scorehook

import "github.com/flowreader/flowreader/graph"

// BM25 Okapi's parameters as score uses them: k1, b, and rank_bm25's ε
// (a negative idf is replaced by ε times the mean idf of the vocabulary).
var K1, B, Epsilon float64

// Terms numbers BM25 terms across the nodes of a collection as
// score.NewIndex does: in order of first appearance.
type Terms interface {
	// Append appends the term ids of nd's BM25 text (summary, keywords,
	// content and caption: lower case, stop words removed, snowball
	// stems) to dst, with repeats: its length is BM25's document length.
	Append(dst []int32, nd *graph.Node) []int32
	// Term returns the term of an id.
	Term(id int32) string
	// Len is the number of terms numbered so far.
	Len() int
}

// NewTerms returns an empty numbering; it is not safe for concurrent use.
var NewTerms func() Terms

// NodeRefKeys returns the keys of the references that identify nd
// (its figure or table label, references in its keywords).
var NodeRefKeys func(nd *graph.Node) []string

// Keywords returns BM25's query terms for a question's text, or for the
// caller's own keywords when given is not nil (score.Query.Keywords).
var Keywords func(text string, given []string) []string

// QueryRefKeys returns, for each reference a question makes, in order, the
// keys it is looked up by.
var QueryRefKeys func(question string) [][]string

// SummaryLen is the length in runes answerability normalises: the
// summary's, or the content's when there is no summary.
var SummaryLen func(nd *graph.Node) int

// Candidates is (*score.Index).candidateSet: the candidate set of
// ScoreCandidates for (ix *score.Index, c score.Config, q score.Query, m),
// a *score.Candidates (types as any: score imports this package).
var Candidates func(ix, c, q any, m int) (any, error)

// ScoreCandidates scores a candidate set as the index over a store does:
// (cs *score.Candidates, c score.Config, q score.Query) → *score.Scores.
var ScoreCandidates func(cs, c, q any) (any, error)

// MMR selects k nodes by maximal marginal relevance over the scores h with
// trade-off lambda (paper v1 §3.4), as score's Index picks its sources,
// for callers without an Index (the evaluation's MMR baselines).
var MMR func(g *graph.Graph, h []float64, k int, lambda float64) []int
