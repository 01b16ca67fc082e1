package flowreader

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/flowhook"
	"github.com/flowreader/flowreader/internal/scorehook"
	"github.com/flowreader/flowreader/score"
)

// ErrUnavailable reports a store that cannot be reached for now (down,
// restarting, out of connections): the call may succeed later, with no
// change on the caller's side. Stores wrap it (package pgstore's
// ErrUnavailable does); a server answers it with 503.
var ErrUnavailable = errors.New("flowreader: store unavailable")

// Store is a collection store an [Index] answers questions over (see
// [Pipeline.OpenStore]): the narrow interface a backend implements, as
// the drivers of database/sql implement database/sql/driver. Package
// pgstore implements it over PostgreSQL. A store holds many collections,
// each named; within one, a node has a position that stays its own while
// the node exists and is never given to another node (an in-memory graph's
// positions are its node indexes). Evidence from a store names nodes by
// position.
//
// A Store must be safe for concurrent use. Errors of a store that cannot
// be reached for now wrap [ErrUnavailable]; a collection the store does
// not hold is an error wrapping [ErrNoGraph]. A store has no optional
// capabilities yet.
type Store interface {
	// Candidates reads, from one committed version of the collection, the
	// candidate subgraph of a question as score.Index.ScoreCandidates
	// makes it over an in-memory graph: the m nodes nearest q.Embedding,
	// the m best by BM25 over q's terms and, when c's reference boost is
	// on, the nodes whose references meet the question's; then their
	// neighbours, best seeds first, up to 8·m nodes in all; every one a
	// node of a document f matches. With them come the collection's
	// statistics that score them as the whole collection does (see
	// score.Candidates), the routing statistics (Rank, KeywordDF,
	// Contents) included, and the candidates' content classes (Copies)
	// when the store keeps them: without them a collection's copies are
	// routed as separate nodes and cited without also_in. The reading
	// text of the nodes may be left out.
	Candidates(ctx context.Context, collection string, q score.Query, m int, c score.Config, f Filter) (*score.Candidates, error)
	// Nodes reads nodes by position, with their reading text, in the
	// order asked. A position the collection no longer holds gives a
	// zero Node (its ID empty): a node's text never changes while it
	// exists, so reading it after Candidates needs no common snapshot.
	Nodes(ctx context.Context, collection string, positions []int) ([]graph.Node, error)
}

// Filter selects the documents a question is answered from
// (Options.Filter). A node passes when its document does: its ID is one
// of IDs (when IDs is not empty) and its metadata (graph.Document.Metadata,
// given at ingest) holds every key of Metadata with exactly that value
// (when Metadata is not empty). The zero Filter passes every document.
//
// A filter changes which nodes are scored, never how: a passing node has
// the score it has without a filter, because the statistics are the
// collection's (BM25's idf, mean length and normalising range, the mean
// relevance, the router's keyword frequencies and reading order), as a
// search engine's filter leaves its ranking statistics alone. Only h, the
// relevance over the best node scored, is relative to the passing nodes.
// An index over a graph below 50,000 nodes scores every passing node
// (score.Query.Nodes); a larger graph, and a store, draw the candidates
// (Config.Candidates) from the passing nodes only. A filter that passes
// no node gives Evidence with no chains and no error; answering it spends
// no model call.
type Filter struct {
	// IDs are document IDs (graph.Document.ID).
	IDs []string `json:"ids,omitempty"`
	// Metadata are key/values every passing document's metadata holds.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// empty reports whether f passes every document.
func (f Filter) empty() bool { return len(f.IDs) == 0 && len(f.Metadata) == 0 }

// passes reports whether a document of ID id and metadata md passes f.
func (f Filter) passes(id string, md map[string]string) bool {
	if len(f.IDs) > 0 && !slices.Contains(f.IDs, id) {
		return false
	}
	for k, v := range f.Metadata {
		if w, ok := md[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// check refuses a filter no document could be named by: an empty ID or
// metadata key.
func (f Filter) check() error {
	for _, id := range f.IDs {
		if id == "" {
			return fmt.Errorf("%w: Options.Filter: an empty document ID", ErrConfig)
		}
	}
	for k := range f.Metadata {
		if k == "" {
			return fmt.Errorf("%w: Options.Filter: an empty metadata key", ErrConfig)
		}
	}
	return nil
}

// OpenStore binds the pipeline to a collection of a store: each question
// reads its candidate subgraph from the store (one consistent version,
// the latest committed when the question starts, so an update is answered
// from by the next question), then scores, routes and selects it in
// process as over a graph, and reads the text of the nodes it reads.
// Evidence names nodes by their positions in the collection; Graph
// returns nil. Opening reads nothing: a collection the store lacks is the
// first question's error.
//
// Over a store every question scores candidates: Config.Candidates is m
// (0 means 256); a negative value (every node) is an error wrapping
// ErrConfig, as is a nil store or an empty collection name.
func (p *Pipeline) OpenStore(ctx context.Context, s Store, collection string) (*Index, error) {
	switch {
	case s == nil:
		return nil, fmt.Errorf("%w: OpenStore: no store", ErrConfig)
	case strings.TrimSpace(collection) == "":
		return nil, fmt.Errorf("%w: OpenStore: no collection name", ErrConfig)
	case p.cfg.Candidates < 0:
		return nil, fmt.Errorf("%w: Candidates %d (every node): an index over a store scores candidates", ErrConfig, p.cfg.Candidates)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Index{p: p, store: &storeBinding{s: s, coll: collection}}, nil
}

// storeBinding is an index's store and collection, and what it knows of
// the questions it scored: each question's candidate subgraph (the Graph
// of the Scores it returned, and of the scores a router derives from them,
// as it does when it routes a content class as one node) maps to its
// candidate set (the routing statistics) and which nodes' text it has
// read, until the subgraph is garbage.
type storeBinding struct {
	s         Store
	coll      string
	questions sync.Map // weak.Pointer[graph.Graph] → *storeQuestion
}

// storeQuestion is one scored question over a store.
type storeQuestion struct {
	cs   *score.Candidates // without its Graph: the scores' Graph is it
	mu   sync.Mutex
	text []bool // node i of the scores' Graph has its reading text
	// ids are the IDs of the positions of copies (cs.Copies) outside the
	// candidates, read with the text of the nodes they copy ("" for one
	// the collection no longer holds).
	ids map[int]string
}

// errGone is a node read for its text that the collection no longer
// holds: an update committed since the question's candidates were read,
// and the question is asked again.
var errGone = errors.New("flowreader: a node was removed during the question")

// storeAttempts bounds how often a question is asked again after a node
// it read was removed by an update committed meanwhile.
const storeAttempts = 3

// m is the candidates per question over a store.
func (p *Pipeline) storeCandidates() int {
	if p.cfg.Candidates > 0 {
		return p.cfg.Candidates
	}
	return defaultCandidates
}

// scoreStore reads q's candidates from the store and scores them.
func (ix *Index) scoreStore(ctx context.Context, q score.Query, f Filter) (*score.Scores, error) {
	b := ix.store
	cs, err := b.s.Candidates(ctx, b.coll, q, ix.p.storeCandidates(), ix.p.scoring, f)
	if err != nil {
		return nil, fmt.Errorf("flowreader: score: %w", err)
	}
	if cs == nil {
		return nil, fmt.Errorf("flowreader: score: the store returned no candidates and no error")
	}
	x, err := scorehook.ScoreCandidates(cs, ix.p.scoring, q)
	if err != nil {
		return nil, fmt.Errorf("flowreader: score: %w", err)
	}
	s := x.(*score.Scores)
	if s.Graph != cs.Graph {
		return nil, fmt.Errorf("flowreader: score: the scores are not over the store's candidate subgraph")
	}
	// The record holds the candidates without their subgraph (the scores
	// hold it, as Scores.Graph): the record outlives the scores until
	// their cleanup has run, one collection later, and holding the
	// subgraph would keep every finished question's rows (1.5 MB of
	// embeddings at 2,048 × 768 int8) live through one more collection.
	c := *cs
	c.Graph = nil
	sq := &storeQuestion{cs: &c, text: make([]bool, len(cs.Graph.Nodes))}
	key := weak.Make(s.Graph)
	b.questions.Store(key, sq)
	runtime.AddCleanup(s.Graph, func(k weak.Pointer[graph.Graph]) { b.questions.Delete(k) }, key)
	return s, nil
}

// question is what the index knows of scores it made over a store (or
// scores derived from them, over the same candidate subgraph); nil for an
// index over a graph or scores it did not make.
func (ix *Index) question(s *score.Scores) *storeQuestion {
	if ix.store == nil || s == nil || s.Graph == nil {
		return nil
	}
	if v, ok := ix.store.questions.Load(weak.Make(s.Graph)); ok {
		if sq := v.(*storeQuestion); len(s.Graph.Nodes) == len(sq.text) {
			return sq
		}
	}
	return nil
}

// storeRouter opens the router on s's candidate subgraph with the
// collection's routing statistics.
func (ix *Index) storeRouter(ctx context.Context, s *score.Scores) (flow.GraphRouter, error) {
	sq := ix.question(s)
	if sq == nil {
		return nil, fmt.Errorf("%w: scores this index did not make", ErrEvidence)
	}
	cs := sq.cs
	if cs.Rank != nil {
		n := cs.Size
		if cs.Contents > 0 {
			n = cs.Contents // the bridge cutoff counts contents, as KeywordDF does
		}
		gr, err := flowhook.OpenSubgraph(ctx, ix.p.router, s.Graph, n, cs.KeywordDF, cs.Rank)
		if err != nil {
			return nil, err
		}
		if gr != nil {
			return gr.(flow.GraphRouter), nil
		}
	}
	return ix.p.router.Open(ctx, s.Graph)
}

// withText reads the reading text of the nodes (of s's candidate
// subgraph) that lack it, in one call to the store. It does nothing for
// an index over a graph. A node the collection no longer holds is
// errGone.
func (ix *Index) withText(ctx context.Context, s *score.Scores, nodes []int) error {
	sq := ix.question(s)
	if sq == nil {
		return nil
	}
	sq.mu.Lock()
	defer sq.mu.Unlock()
	g := s.Graph
	var local, pos []int
	for _, v := range nodes {
		if v >= 0 && v < len(sq.text) && !sq.text[v] && !slices.Contains(local, v) {
			local = append(local, v)
			pos = append(pos, sq.cs.Nodes[v])
		}
	}
	// The copies of those nodes outside the candidates, for their IDs
	// (the evidence's also_in), in the same call.
	var other []int
	if sq.cs.Copies != nil {
		for _, v := range local {
			for _, p := range alsoInPositions(sq.cs.Copies[v], sq.cs.Nodes[v]) {
				if _, in := slices.BinarySearch(sq.cs.Nodes, p); in || slices.Contains(other, p) {
					continue
				}
				if _, known := sq.ids[p]; !known {
					other = append(other, p)
				}
			}
		}
	}
	if len(pos) == 0 {
		return nil
	}
	got, err := ix.store.s.Nodes(ctx, ix.store.coll, append(pos, other...))
	if err != nil {
		return fmt.Errorf("flowreader: reading node text: %w", err)
	}
	if len(got) != len(pos)+len(other) {
		return fmt.Errorf("flowreader: reading node text: %d nodes for %d positions", len(got), len(pos)+len(other))
	}
	if len(other) > 0 && sq.ids == nil {
		sq.ids = map[int]string{}
	}
	for i, p := range other {
		sq.ids[p] = got[len(pos)+i].ID
	}
	for i, v := range local {
		n, r := &g.Nodes[v], &got[i]
		if r.ID != n.ID {
			return fmt.Errorf("%w: node %q at position %d", errGone, n.ID, pos[i])
		}
		n.Content, n.Caption, n.Footnote, n.Summary, n.Tags = r.Content, r.Caption, r.Footnote, r.Summary, r.Tags
		n.ImageText, n.Image, n.Context = r.ImageText, r.Image, r.Context
		sq.text[v] = true
	}
	return nil
}

// storeAlsoIn lists the IDs of the other nodes holding the content of
// node v of s's candidate subgraph (score.Candidates.Copies), in position
// order; nil when it has none or s is not a question of this index's
// store. The caller holds sq.mu (withText writes sq.ids under it).
func (ix *Index) storeAlsoIn(sq *storeQuestion, s *score.Scores, v int) []string {
	if sq == nil || sq.cs.Copies == nil || v < 0 || v >= len(sq.cs.Copies) {
		return nil
	}
	var out []string
	for _, p := range alsoInPositions(sq.cs.Copies[v], sq.cs.Nodes[v]) {
		if j, in := slices.BinarySearch(sq.cs.Nodes, p); in {
			out = append(out, s.Graph.Nodes[j].ID)
		} else if id := sq.ids[p]; id != "" {
			out = append(out, id)
		}
	}
	return out
}

// alsoInPositions is what also_in names of a class (positions,
// ascending): its members but own, the first maxAlsoIn.
func alsoInPositions(class []int, own int) []int {
	var out []int
	for _, p := range class {
		if len(out) == maxAlsoIn {
			break
		}
		if p != own {
			out = append(out, p)
		}
	}
	return out
}

// allNodes is 0, 1, ..., n-1.
func allNodes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// chainNodes is the distinct nodes of chains.
func chainNodes(chains []flow.Chain) []int {
	var out []int
	for _, c := range chains {
		out = append(out, c.Nodes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// filterNodes is the nodes of the index's graph whose documents pass f
// (ascending), from the documents' node lists made on the first filtered
// question.
func (ix *Index) filterNodes(f Filter) []int {
	ix.docsOnce.Do(func() {
		ix.docs = map[string][]int{}
		for i := range ix.g.Nodes {
			d := ix.g.Nodes[i].Doc
			ix.docs[d] = append(ix.docs[d], i)
		}
	})
	out := []int{}
	if len(f.IDs) > 0 {
		for _, id := range f.IDs {
			if ns, ok := ix.docs[id]; ok && f.passes(id, ix.g.Metadata[id]) {
				out = append(out, ns...)
			}
		}
	} else {
		for id, ns := range ix.docs {
			if f.passes(id, ix.g.Metadata[id]) {
				out = append(out, ns...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
