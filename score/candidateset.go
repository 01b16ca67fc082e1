package score

import (
	"fmt"
	"math"
	"slices"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
)

// Candidates is one question's candidate subgraph with what scoring reads
// of the whole collection, so that each candidate scores as it does when
// every node of the collection is scored. [Index.ScoreCandidates] reads it
// from an in-memory graph; a store that keeps a collection elsewhere (the
// Store of package flowreader, implemented by package pgstore) reads it
// per question, and the index over it scores it either way. Every
// per-node slice is aligned with Graph's nodes; a nil one reads as zeros
// (or, for the keys and names, as none).
type Candidates struct {
	// Graph is the subgraph induced by the candidates: their nodes in
	// ascending collection order, their embeddings as the collection
	// stores them, and the edges among them with their kinds and weights
	// (as graph.New computes them). Scoring reads a node's Modality,
	// routing its Doc, Order and Keywords; the reading text may be empty.
	Graph *graph.Graph
	// Nodes maps Graph's nodes to the collection: node i is Nodes[i],
	// ascending (for an in-memory graph, its node indexes).
	Nodes []int
	// Size is N, the collection's node count.
	Size int
	// Version is the collection's version the candidates were read at (0
	// for an in-memory graph).
	Version int64

	// BM25 is each candidate's raw BM25 Okapi score over the query's terms
	// (see the package doc), summed over the terms in the query's order;
	// nil when BM25 is off or no query term is in the collection's
	// vocabulary. BM25Min, BM25Max and BM25Sum are the least, greatest and
	// summed raw score over the whole collection (a node holding no query
	// term scores 0).
	BM25                      []float64
	BM25Min, BM25Max, BM25Sum float64
	// CosMean is the mean of max(cos, 0) over the collection's entry
	// nodes (node positions 0, s, 2s, ... with s = max(1, N/1024)): the
	// estimate of the dense part of the collection's mean relevance.
	CosMean float64
	// RefKeys are each candidate's reference keys (as the in-memory index
	// makes them), RefMatches the number of the collection's nodes whose
	// references meet the question's.
	RefKeys    [][]string
	RefMatches int
	// SummaryLen is each candidate's summary length over the collection's
	// longest (answerability, paper v1 §3.4), MeanCos its cosine with the
	// collection's mean embedding direction (MMR's pivot): both read by
	// the classic score only.
	SummaryLen []float64
	MeanCos    []float64
	// Named lists the candidates whose title the question names
	// (ascending), and Names[i] the candidates node i names by title: the
	// hop step's inputs.
	Named []int
	Names [][]int
	// Rank is each candidate's position in its document's reading order,
	// and KeywordDF the collection's number of nodes holding each
	// normalised keyword (as package flow normalises them) that two or
	// more candidates hold: what a router needs to price a subgraph's arcs
	// as over the whole collection (reading-order pairs, bridge terms; a
	// bridge term is a keyword both ends of an arc hold, so a keyword of
	// one candidate only is never read, and a store may leave it out).
	// Nil when the router reads them from the whole graph (an in-memory
	// index).
	Rank      []int32
	KeywordDF map[string]int32
	// Contents is the collection's number of distinct contents: Size less
	// the nodes that hold another node's content (Copies), for the
	// router's bridge cutoff, which counts contents as KeywordDF does
	// (each class counted once, by its lowest node). 0 means Size.
	Contents int
	// Copies lists, for each candidate, the collection positions of the
	// nodes that hold its content (graph.Graph.Copies over the whole
	// collection), its own among them, ascending; nil for a candidate
	// without a copy. Scoring makes the classes' members among the
	// candidates Graph's content classes, which the hop step's seeds and
	// the router count once a content; the positions of the others name
	// where else a cited content is. Nil when Graph's classes are found
	// from its own text (an in-memory graph's subgraph carries them) or
	// the store keeps none.
	Copies [][]int
}

// score scores the candidates for q under c as Index.Score scores them in
// the whole collection: relevance with the collection's BM25 range, the
// classic signals over the subgraph, and the hop step over the candidates'
// names and Link edges. HMean and RMean are the collection's means,
// estimated as ScoreCandidates estimates them. The Scores index the
// subgraph: Scores.Graph is cs.Graph and Scores.Candidates is cs.Nodes.
//
// It fails with [ErrConfig] when c is invalid or cs's parts disagree (a
// slice of another length than the nodes, a node out of range, nodes not
// ascending) and with [ErrEmbedding] as Score does.
func (cs *Candidates) score(c Config, q Query) (*Scores, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := cs.check(); err != nil {
		return nil, err
	}
	g := cs.Graph
	if err := checkQuery(g, q); err != nil {
		return nil, err
	}
	if cs.Copies != nil {
		if err := graphhook.SetCopies(g, cs.localCopies()); err != nil {
			return nil, fmt.Errorf("%w: candidates: %w", ErrConfig, err)
		}
	}
	n := len(g.Nodes)
	s := &Index{g: g, n: n, terms: map[string]int32{}, refs: map[string][]int32{},
		bmFixed: true, bmLo: cs.BM25Min, bmHi: cs.BM25Max, bmRaw: cs.BM25,
		sumLen: cs.SummaryLen, meanCos: cs.MeanCos, visual: make([]bool, n)}
	if s.sumLen == nil {
		s.sumLen = make([]float64, n)
	}
	if s.meanCos == nil {
		s.meanCos = make([]float64, n)
	}
	for i := range g.Nodes {
		s.visual[i] = g.Nodes[i].Modality != graph.ModalityText
	}
	for i, ks := range cs.RefKeys {
		for _, k := range ks {
			if l := s.refs[k]; len(l) == 0 || l[len(l)-1] != int32(i) {
				s.refs[k] = append(l, int32(i))
			}
		}
	}
	sc, err := s.compute(c, q)
	if err != nil {
		return nil, err
	}
	sc.Graph, sc.Candidates = g, slices.Clone(cs.Nodes)
	// The collection's means, estimated: the dense part from the entry
	// nodes, the BM25 and reference parts exactly.
	N := float64(max(cs.Size, 1))
	alpha := c.bm25Weight()
	rMean := (1 - alpha) * cs.CosMean
	if alpha > 0 && cs.BM25Max > cs.BM25Min {
		rMean += alpha * (cs.BM25Sum - N*cs.BM25Min) / (cs.BM25Max - cs.BM25Min) / N
	}
	rMean += c.refBoost() * float64(cs.RefMatches) / N
	sc.RMean = min(rMean, 1)
	sc.HMean = 0
	if n > 0 {
		if rMax := slices.Max(sc.R); rMax > 0 {
			sc.HMean = min(sc.RMean/rMax, 1)
			if c.Fusion {
				sc.HMean = min(sc.RMean, 1)
			}
		}
	}
	// The hop step over the candidates: what a node names and the titles
	// a question names do not depend on which nodes are candidates, so a
	// candidate is raised as in the whole collection.
	if st, on := c.hop(); on {
		sc.Steps = append(sc.Steps, "hop")
		sc.Raised = hop(sc.R, sc.H, cs.hopInputs(), st)
	}
	return sc, nil
}

// check reports whether cs's parts agree.
func (cs *Candidates) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: candidates: "+format, append([]any{ErrConfig}, a...)...)
	}
	if cs == nil || cs.Graph == nil {
		return bad("no subgraph")
	}
	n := len(cs.Graph.Nodes)
	if len(cs.Nodes) != n {
		return bad("%d positions for %d nodes", len(cs.Nodes), n)
	}
	for i, v := range cs.Nodes {
		if v < 0 || (i > 0 && cs.Nodes[i-1] >= v) {
			return bad("positions not ascending at %d", i)
		}
	}
	if cs.Size < n {
		return bad("collection of %d nodes, %d candidates", cs.Size, n)
	}
	for _, f := range []struct {
		name string
		l    int
		set  bool
	}{
		{"BM25", len(cs.BM25), cs.BM25 != nil}, {"RefKeys", len(cs.RefKeys), cs.RefKeys != nil},
		{"SummaryLen", len(cs.SummaryLen), cs.SummaryLen != nil}, {"MeanCos", len(cs.MeanCos), cs.MeanCos != nil},
		{"Names", len(cs.Names), cs.Names != nil}, {"Rank", len(cs.Rank), cs.Rank != nil},
	} {
		if f.set && f.l != n {
			return bad("%s has %d values for %d nodes", f.name, f.l, n)
		}
	}
	for _, x := range append(append([]float64{cs.BM25Min, cs.BM25Max, cs.BM25Sum, cs.CosMean}, cs.BM25...), cs.SummaryLen...) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("a statistic is %v", x)
		}
	}
	if cs.Contents < 0 || cs.Contents > cs.Size {
		return bad("%d contents in a collection of %d nodes", cs.Contents, cs.Size)
	}
	if cs.Copies != nil && len(cs.Copies) != n {
		return bad("Copies has %d values for %d nodes", len(cs.Copies), n)
	}
	for i, ps := range cs.Copies {
		if ps == nil {
			continue
		}
		if len(ps) < 2 || ps[0] < 0 {
			return bad("node %d: copies %v not two or more positions ascending", i, ps)
		}
		for k := 1; k < len(ps); k++ {
			if ps[k-1] >= ps[k] {
				return bad("node %d: copies %v not two or more positions ascending", i, ps)
			}
		}
		if _, ok := slices.BinarySearch(ps, cs.Nodes[i]); !ok {
			return bad("node %d: copies %v without its own position %d", i, ps, cs.Nodes[i])
		}
	}
	for _, v := range cs.Named {
		if v < 0 || v >= n {
			return bad("named node %d of %d", v, n)
		}
	}
	for i, ns := range cs.Names {
		for _, v := range ns {
			if v < 0 || v >= n {
				return bad("node %d names node %d of %d", i, v, n)
			}
		}
	}
	return nil
}

// localCopies is Copies as classes of the subgraph: each class's members
// among the candidates (candidate indexes, ascending) where two or more
// are, in the order of their lowest member. Candidates whose lists
// differ are in different classes (a store's lists are its classes).
func (cs *Candidates) localCopies() [][]int32 {
	at := map[int][]int32{} // a class's lowest position → its candidates
	var order []int
	for i, ps := range cs.Copies {
		if ps == nil {
			continue
		}
		k := ps[0]
		if at[k] == nil {
			order = append(order, k)
		}
		at[k] = append(at[k], int32(i))
	}
	var out [][]int32
	for _, k := range order {
		if ms := at[k]; len(ms) > 1 {
			out = append(out, ms)
		}
	}
	return out
}

// hopInputs are the hop step's inputs over the candidates: a Link edge
// whose ends name one another (a title mention) is the naming's, not an
// entity link; the content classes are the subgraph's.
func (cs *Candidates) hopInputs() hopInputs {
	g := cs.Graph
	names := func(u int) []int {
		if cs.Names == nil {
			return nil
		}
		return cs.Names[u]
	}
	in := hopInputs{
		named: cs.Named,
		names: names,
		links: func(u int) []int {
			var out []int
			nb, es := g.Neighbors(u)
			for k, v := range nb {
				if g.Edges[es[k]].Kind&graph.EdgeLink == 0 || slices.Contains(names(u), int(v)) || slices.Contains(names(int(v)), u) {
					continue
				}
				out = append(out, int(v))
			}
			return out
		},
	}
	// One seed a content, as over the whole graph: the subgraph's classes
	// are the collection's among the candidates.
	in.copies = graphCopies(g)
	return in
}
