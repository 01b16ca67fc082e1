package score

import "github.com/flowreader/flowreader/graph"

// Ref is a reference a question or a node makes, such as ("figure", "3") for
// "Fig. 3" or ("table", "ii") for "Table II".
type Ref struct {
	// Type is one of "figure", "table", "section", "equation", "slide",
	// "appendix" and "algorithm".
	Type string
	// ID is the identifier, lower case: "3", "2b", "ii", "4.1", "a".
	ID string
}

// Scores holds every node signal for one query over one graph, as
// [Index.Score] computed them. Slices are
// indexed by node and have length len(g.Nodes); a signal that is switched off is
// nil (except H and R, which are always set). Scores from
// [Index.ScoreCandidates] are over a candidate subgraph: g is then Graph,
// and every node index here (and in a routing of these Scores) is a node of
// Graph.
type Scores struct {
	// Question is the question's text (Query.Text).
	Question string
	// Steps names the scoring steps that ran, in order: "cosine", then
	// "bm25" and "ref" when their weights are on, "fusion" for the classic
	// h, and "hop" when the hop step ran (see [Config]).
	Steps []string
	// Raised lists the nodes the hop step raised (ascending); R and H hold
	// their raised values, which routing, selection and reading all use.
	Raised []int
	// Reranked lists the nodes a reranker scored (ascending) and Rerank
	// its score ρ per node (0 for the others), when the caller fused one
	// into H (flowreader.Config.Reranker); then Steps ends in "rerank".
	// Nil otherwise.
	Reranked []int
	Rerank   []float64
	// Query is the query's unit embedding (or zero).
	Query []float32
	// Cos is cos(q, e_v).
	Cos []float64
	// BM25 is the min–max normalised BM25 score (nil when off).
	BM25 []float64
	// Ref is ℓ_v(q) ∈ {0,1}, the reference match (nil when off).
	Ref []float64
	// R is the fused relevance r, after the hop step.
	R []float64
	// Phi is the propagation φ (classic; nil when off).
	Phi []float64
	// Psi is the personalised PageRank ψ normalised by its max (classic; nil when off).
	Psi []float64
	// H is the node score h in [0,1], after the hop step.
	H []float64
	// A is the answerability a (classic; nil in aspects).
	A []float64
	// HMean and RMean are the query's own means h̄ and r̄, of the scores
	// before the hop step (it lifts a handful of nodes; h̄ is the level
	// the aspects router's node credit measures against).
	HMean, RMean float64
	// Refs are the references extracted from the question.
	Refs []Ref
	// Keywords are the query keywords used for BM25.
	Keywords []string
	// Sources are the MMR-selected sources and Sinks the top answerability
	// nodes (classic; nil in aspects).
	Sources, Sinks []int
	// PhiSweeps and PsiSweeps are the iterations φ and PageRank took (0 when
	// not computed), for checking convergence.
	PhiSweeps, PsiSweeps int
	// Graph is the candidate subgraph the slices index ([graph.Graph.Subgraph]
	// of the index's graph), nil when every node was scored.
	Graph *graph.Graph
	// Candidates maps Graph's nodes to the index's graph: node i of Graph
	// is node Candidates[i] (ascending); nil when every node was scored.
	Candidates []int
}
