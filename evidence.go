package flowreader

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/score"
)

// Options are the per-call options of [Index.Retrieve] and [Index.Ask]. The
// zero value means the pipeline's settings.
type Options struct {
	// Budget overrides Config.Budget for this call: the number of chains
	// read, and the aspects router's demand in distinct nodes (paper v3
	// §3.3). 0 means Config.Budget; negative is an error wrapping
	// ErrConfig. It is clamped to the larger of the graph's node count and
	// Config.Budget: past the node count the aspects demand buys no further
	// node, and a caller (a server's client) must not make one question
	// allocate for a budget of millions.
	Budget int
	// Scores asks for the node score h of every graph node in
	// Evidence.Scores (as long as the graph, so left out by default). An
	// index over a store has no whole graph: there it is an error wrapping
	// ErrConfig.
	Scores bool
	// Filter restricts the evidence to the documents it passes (by ID and
	// metadata, see [Filter] for the exact semantics); the zero Filter
	// passes every document.
	Filter Filter
	// Stream, when set, is told each step of Ask's answer as it happens
	// (see [Event]): the evidence, each worker's draft, the answer's pieces
	// as the reasoner writes them, the citations, the result. It is called
	// from the goroutines doing the work, never concurrently; a slow Stream
	// slows the answer. To stop the answer, cancel Ask's context: every
	// model call in flight ends. Retrieve keeps it in the Evidence, whose
	// Answer streams too.
	Stream func(Event)
}

// Evidence is what retrieval found for one question: the selected chains
// with their nodes' text, score and provenance, and a summary of the
// routing. [Index.Answer] reads it as it is: drop chains or nodes from
// Chains and the reader reads what is left.
//
// Its JSON form ([Evidence.MarshalJSON]: snake_case, durations in
// milliseconds, with [SchemaVersion]) is the contract of the CLI's ask
// --json and of the server's /v1/retrieve; decoding it back gives the same
// exported fields, and an Index over the same graph answers the decoded
// Evidence as it answers the original. What decoding loses is the state
// only System 2 needs: the scores of every node and the routing's flow
// network, which its pass edits and re-solves. Without them the gate still
// runs, and a fired gate is reported as skipped (System2.Skipped).
type Evidence struct {
	// SchemaVersion is [SchemaVersion].
	SchemaVersion int    `json:"schema_version"`
	Question      string `json:"question"`
	// Budget is the budget used: Options.Budget or Config.Budget, clamped.
	Budget int `json:"budget"`
	// Chains are the selected chains in reading order.
	Chains  []EvidenceChain `json:"chains"`
	Routing RoutingSummary  `json:"routing"`
	// Scoring names the scoring steps that ran (score.Scores.Steps), "hop"
	// among them when the hop step raised the scores.
	Scoring []string `json:"scoring"`
	// Notes lists the embedded defaults in use (see [Pipeline.Notes]).
	Notes []string `json:"notes"`
	// Stages is the wall time of score, route and select.
	Stages map[string]time.Duration `json:"-"`
	// Scores is the node score h of every graph node by node index, only
	// with Options.Scores.
	Scores []float64 `json:"scores,omitempty"`

	// The steps' values, kept for System 2 (nil in a decoded Evidence).
	scores  *score.Scores
	routing *flow.Routing
	// Options.Stream, told of Answer's steps (nil in a decoded Evidence).
	stream func(Event)
}

// EvidenceChain is one selected chain: its nodes in routed order
// (supporting context first, the most relevant last for aspects) and the
// flow it carries.
type EvidenceChain struct {
	// Flow is the chain's flow, Cost its cost per unit of flow, and Aspect
	// the aspect terminal it ends in (-1 for none; see [flow.Chain]).
	Flow   float64        `json:"flow"`
	Cost   float64        `json:"cost"`
	Aspect int            `json:"aspect"`
	Nodes  []EvidenceNode `json:"nodes"`
}

// EvidenceNode is one graph node on a chain, with what a reader of the
// evidence needs to show and cite it.
type EvidenceNode struct {
	// Node is the node's index in the graph (over a store, its position
	// in the collection), ID its stable ID.
	Node int    `json:"node"`
	ID   string `json:"id"`
	// Doc is the document ID, Page the 0-based page (-1 when unknown).
	// LastPage is the last page of a node that runs over several (a table
	// continued on the next page), 0 and absent from the JSON when the node
	// is on one page.
	Doc      string `json:"doc"`
	Page     int    `json:"page"`
	LastPage int    `json:"last_page,omitempty"`
	// Modality is "text", "table" or "figure".
	Modality string `json:"modality"`
	// Title is the nearest heading above the node (the passage's title for
	// title-and-passage collections); empty when there is none.
	Title string `json:"title,omitempty"`
	// Text is the node's content, or for a visual node without one its
	// caption, summary and the text read in its image.
	Text string `json:"text"`
	// Image is the node's image path, slash-separated and relative to the
	// collection root; empty when it has none.
	Image string `json:"image,omitempty"`
	// Score is the node score h in [0, 1] that routing and selection used
	// and the reader reads; Raised says the hop step raised it
	// (score.Scores.Raised). Flow is the routed flow through the node,
	// summed over every routed chain (read or not).
	Score  float64 `json:"score"`
	Raised bool    `json:"raised,omitempty"`
	Flow   float64 `json:"flow"`
	// AlsoIn lists the IDs of the other nodes that hold the same content
	// (graph.Graph.Copies: the same page exported twice, a version of it,
	// a mirror), in graph order (over a store, position order): routing
	// reads a content once, and this says where else it appears. At most
	// the first 32 are listed (a footer repeated on every page of a site
	// is one content of thousands of copies). Empty when the content is
	// held once.
	AlsoIn []string `json:"also_in,omitempty"`
}

// RoutingSummary is the routing behind the evidence (see [flow.Routing]
// for the quantities).
type RoutingSummary struct {
	// Router names the formulation ("aspects", "classic", ...).
	Router     string  `json:"router"`
	Demand     float64 `json:"demand"`
	Routed     float64 `json:"routed"`
	MaxFlow    float64 `json:"max_flow"`
	Saturation float64 `json:"saturation"`
	Kappa      float64 `json:"kappa"`
	Cost       float64 `json:"cost"`
	// Relevant is |C|, the relevant set (aspects); Distinct the distinct
	// nodes on the routed chains; ChainsRouted the chains before selection.
	Relevant     int `json:"relevant"`
	Distinct     int `json:"distinct_nodes"`
	ChainsRouted int `json:"chains_routed"`
	// Aspects are the aspect terminals (aspects formulation only): each
	// one's singular value σ_a, capacity d_a, the flow that reached it and
	// the nodes feeding it (paper v3 §3.3, Eq. 6; see [flow.Aspect]).
	Aspects []struct {
		Sigma    float64 `json:"sigma"`
		Capacity float64 `json:"capacity"`
		Flow     float64 `json:"flow"`
		Fed      int     `json:"fed"`
	} `json:"aspects"`
}

// aspectSummary is the type of RoutingSummary.Aspects's elements.
type aspectSummary = struct {
	Sigma    float64 `json:"sigma"`
	Capacity float64 `json:"capacity"`
	Flow     float64 `json:"flow"`
	Fed      int     `json:"fed"`
}

// budget is the budget of one call: Options.Budget or the pipeline's,
// clamped (see Options.Budget) to the node count of the graph or of the
// collection s was scored in.
func (ix *Index) budget(o Options, s *score.Scores) int {
	if o.Budget == 0 {
		return ix.p.budget
	}
	n := 0
	if ix.g != nil {
		n = len(ix.g.Nodes)
	} else if sq := ix.question(s); sq != nil {
		n = sq.cs.Size
	}
	return min(o.Budget, max(n, ix.p.budget))
}

// Retrieve finds the evidence for a question without reading it: Score,
// Route and Select with the call's budget, over the documents
// Options.Filter passes. On an error after the question was accepted (a
// failed embedder, a cancelled context, a store out of reach) it returns
// the partial evidence (the steps done, in Stages) with the error; for an
// empty question (ErrQuestion) or bad options (ErrConfig) it returns nil.
// Over a store, a question whose nodes an update removed while it was
// asked is asked again (at most twice), on the new version.
func (ix *Index) Retrieve(ctx context.Context, question string, o Options) (*Evidence, error) {
	if o.Budget < 0 {
		return nil, fmt.Errorf("%w: Options.Budget %d is negative", ErrConfig, o.Budget)
	}
	if o.Scores && ix.store != nil {
		return nil, fmt.Errorf("%w: Options.Scores: an index over a store has no whole graph to score", ErrConfig)
	}
	if err := o.Filter.check(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(question) == "" {
		return nil, ErrQuestion
	}
	var ev *Evidence
	err := ix.retry(func() (err error) {
		ev, err = ix.retrieve(ctx, question, o)
		return err
	})
	return ev, err
}

// retrieve is one attempt of Retrieve.
func (ix *Index) retrieve(ctx context.Context, question string, o Options) (ev *Evidence, err error) {
	ev = ix.newEvidence(question, ix.budget(o, nil))
	ev.stream = o.Stream
	// Each step is one call between two laps, the place for a log line or
	// a span per step.
	t := time.Now()
	lap := func(stage string) {
		now := time.Now()
		ev.Stages[stage] = now.Sub(t)
		t = now
	}
	if ev.scores, err = ix.score(ctx, question, o.Filter); err != nil {
		return ev, err
	}
	lap("score")
	budget := ix.budget(o, ev.scores)
	ev.Budget = budget
	if len(ev.scores.H) == 0 {
		// The filter passes no node: nothing to route or read.
		ix.fill(ev, nil, o.Scores)
		return ev, nil
	}
	if ev.routing, err = ix.route(ctx, ev.scores, budget); err != nil {
		return ev, err
	}
	lap("route")
	chains, err := ix.observeSelect(ctx, ev.routing, budget)
	if err != nil {
		return ev, err
	}
	lap("select")
	if err := ix.withText(ctx, ev.scores, chainNodes(chains)); err != nil {
		return ev, err
	}
	ix.fill(ev, chains, o.Scores)
	return ev, nil
}

// Evidence is the Evidence of steps run one by one (Score, Route, Select),
// for [Index.Answer]: the chains' nodes with their text and scores, the
// routing's summary, and the scores and routing that System 2 edits. The
// budget is the pipeline's, as Route and Select use it. Over a store a
// node's text is the one Select read: chains Select did not return may
// name nodes without it (Answer reads what it lacks), and their nodes'
// AlsoIn names only the copies among the candidates (Answer's citations
// name them all).
func (ix *Index) Evidence(question string, s *score.Scores, r *flow.Routing, chains []flow.Chain) *Evidence {
	ev := ix.newEvidence(question, ix.p.budget)
	ev.scores, ev.routing = s, r
	ix.fill(ev, chains, false)
	return ev
}

func (ix *Index) newEvidence(question string, budget int) *Evidence {
	return &Evidence{SchemaVersion: SchemaVersion, Question: question, Budget: budget, Chains: []EvidenceChain{},
		Scoring: []string{}, Notes: append([]string{}, ix.p.notes...), Stages: map[string]time.Duration{},
		Routing: RoutingSummary{Aspects: []aspectSummary{}}}
}

// fill sets the exported fields of ev from its steps' values and the
// selected chains.
func (ix *Index) fill(ev *Evidence, chains []flow.Chain, withScores bool) {
	// With candidates (Config.Candidates) the steps ran on a subgraph; the
	// evidence names nodes of the index's graph.
	s := ev.scores
	g := ix.graphOf(s)
	var cand []int
	var h []float64
	raised := map[int]bool{}
	if s != nil {
		cand = s.Candidates
		ev.Scoring = append(ev.Scoring, s.Steps...)
		if len(s.H) == len(g.Nodes) {
			h = s.H
		}
		for _, v := range s.Raised {
			raised[v] = true
		}
	}
	if withScores && h != nil {
		if cand == nil {
			ev.Scores = append([]float64{}, h...)
		} else { // nodes outside the candidates were not scored: 0
			ev.Scores = make([]float64, len(ix.g.Nodes))
			for i, v := range cand {
				ev.Scores[v] = h[i]
			}
		}
	}
	through := map[int]float64{}
	if r := ev.routing; r != nil {
		ev.Routing = RoutingSummary{Router: r.Router, Demand: r.Demand, Routed: r.Routed, MaxFlow: r.MaxFlow,
			Saturation: r.Saturation, Kappa: r.Kappa, Cost: r.Cost, Relevant: r.Relevant, Distinct: r.Distinct,
			ChainsRouted: len(r.Chains), Aspects: make([]aspectSummary, len(r.Aspects))}
		for i, a := range r.Aspects {
			ev.Routing.Aspects[i] = aspectSummary{Sigma: a.Sigma, Capacity: a.Capacity, Flow: a.Flow, Fed: a.Fed}
		}
		for _, c := range r.Chains {
			for i, v := range c.Nodes {
				if i == 0 || c.Nodes[i-1] != v {
					through[v] += c.Flow
				}
			}
		}
	}
	// Over a store, Select (or Answer) of another goroutine may be
	// writing the text of nodes of s's graph: the text is read under the
	// lock withText writes it under.
	sq := ix.question(s)
	if sq != nil {
		sq.mu.Lock()
		defer sq.mu.Unlock()
	}
	ev.Chains = make([]EvidenceChain, 0, len(chains))
	for _, c := range chains {
		ec := EvidenceChain{Flow: c.Flow, Cost: c.Cost, Aspect: c.Aspect, Nodes: make([]EvidenceNode, 0, len(c.Nodes))}
		for _, v := range c.Nodes {
			if v < 0 || v >= len(g.Nodes) {
				continue
			}
			n := evidenceNode(g, v, h, through[v])
			n.Node = graphNode(s, v)
			n.Raised = raised[v]
			if sq != nil {
				n.AlsoIn = ix.storeAlsoIn(sq, s, v)
			} else {
				n.AlsoIn = alsoIn(ix.g, n.Node)
			}
			ec.Nodes = append(ec.Nodes, n)
		}
		ev.Chains = append(ev.Chains, ec)
	}
}
func evidenceNode(g *graph.Graph, v int, h []float64, flow float64) EvidenceNode {
	n := &g.Nodes[v]
	e := EvidenceNode{Node: v, ID: n.ID, Doc: n.Doc, Page: n.Page, Modality: n.Modality.String(), Title: n.Section,
		Text: nodeText(n), Flow: flow}
	if n.Page >= 0 && n.LastPage > n.Page {
		e.LastPage = n.LastPage
	}
	if n.Image != nil {
		e.Image = n.Image.Path
	}
	if h != nil {
		e.Score = h[v]
	}
	return e
}

// nodeText is the node's content, or for a visual node without one its
// caption, summary and in-image text.
func nodeText(n *graph.Node) string {
	if n.Content != "" {
		return n.Content
	}
	var parts []string
	for _, s := range []string{n.Caption, n.Summary, n.ImageText} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// read is what the reader reads for an Evidence: the graph whose node
// indexes the chains use, the chains, and the relevance per node of it.
type read struct {
	g      *graph.Graph
	chains []flow.Chain
	rel    []float64
	// nodes maps g's nodes to the index's graph (node i of g is nodes[i]);
	// nil when g is the index's graph.
	nodes []int
	// state is true when g is the graph the evidence's steps ran on, so
	// System 2 can edit their routing.
	state bool
}

// reading lays out ev for the reader: over the graph its steps ran on when
// ev holds them and names only nodes they scored, else over the subgraph
// of ev's nodes (read from the store over a store). Either way the chains
// are ev.Chains as they are now (after any filtering) and each node's
// relevance is its EvidenceNode.Score. A node that is not the index's (out
// of range, or another ID) is an error wrapping ErrEvidence.
func (ix *Index) reading(ctx context.Context, ev *Evidence) (*read, error) {
	var all []int
	for k, c := range ev.Chains {
		for j, n := range c.Nodes {
			if n.Node < 0 || ix.g != nil && (n.Node >= len(ix.g.Nodes) || ix.g.Nodes[n.Node].ID != n.ID) {
				return nil, fmt.Errorf("%w: chain %d node %d: %d %q is not a node of the index's graph", ErrEvidence, k, j, n.Node, n.ID)
			}
			if math.IsNaN(n.Score) || math.IsInf(n.Score, 0) {
				return nil, fmt.Errorf("%w: chain %d node %d: score %v", ErrEvidence, k, j, n.Score)
			}
			all = append(all, n.Node)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	rd := &read{}
	if s := ev.scores; s != nil && ev.routing != nil && len(s.H) == len(ix.graphOf(s).Nodes) {
		rd.g, rd.nodes, rd.state = ix.graphOf(s), s.Candidates, true
		var local []int
		for _, v := range all {
			l, ok := rd.local(v)
			if !ok {
				rd.state = false // a node the steps did not score
				break
			}
			local = append(local, l)
		}
		if rd.state && ix.store != nil {
			if err := ix.withText(ctx, s, local); err != nil {
				if errors.Is(err, errGone) { // an update removed it: the evidence is stale
					return nil, fmt.Errorf("flowreader: answer: %w: %w", ErrEvidence, err)
				}
				return nil, fmt.Errorf("flowreader: answer: %w", err)
			}
		}
	}
	if !rd.state {
		if err := ix.subgraphOf(ctx, rd, all); err != nil {
			return nil, err
		}
	}
	if rd.state {
		rd.rel = ev.scores.H
	} else {
		rd.rel = make([]float64, len(rd.g.Nodes))
	}
	copied := !rd.state
	for k, c := range ev.Chains {
		if len(c.Nodes) == 0 {
			continue // every node dropped: nothing to read
		}
		fc := flow.Chain{Flow: c.Flow, Cost: c.Cost, Aspect: c.Aspect, Nodes: make([]int, len(c.Nodes))}
		for j, n := range c.Nodes {
			v, _ := rd.local(n.Node)
			if rd.g.Nodes[v].ID != n.ID {
				return nil, fmt.Errorf("%w: chain %d node %d: %d %q is not a node of the collection", ErrEvidence, k, j, n.Node, n.ID)
			}
			fc.Nodes[j] = v
			if rd.rel[v] != n.Score {
				if !copied { // the caller changed a score: read theirs
					rd.rel, copied = slices.Clone(rd.rel), true
				}
				rd.rel[v] = n.Score
			}
		}
		rd.chains = append(rd.chains, fc)
	}
	return rd, nil
}

// subgraphOf sets rd's graph to the nodes all (ascending) of the index's
// graph, or of the store's collection with their text.
func (ix *Index) subgraphOf(ctx context.Context, rd *read, all []int) error {
	rd.nodes = all
	if ix.store == nil {
		sub := make([]int32, len(all))
		for i, v := range all {
			sub[i] = int32(v)
		}
		rd.g = ix.g.Subgraph(sub)
		return nil
	}
	nodes, err := ix.store.s.Nodes(ctx, ix.store.coll, all)
	if err != nil {
		return fmt.Errorf("flowreader: answer: reading the evidence's nodes: %w", err)
	}
	if len(nodes) != len(all) {
		return fmt.Errorf("flowreader: answer: %d nodes for %d positions", len(nodes), len(all))
	}
	g, err := graph.New(nodes, 0, nil, nil)
	if err != nil {
		return fmt.Errorf("flowreader: answer: %w", err)
	}
	rd.g = g
	return nil
}

// local is node v of the index's graph as a node of rd.g.
func (rd *read) local(v int) (int, bool) {
	if rd.nodes == nil {
		return v, true
	}
	return slices.BinarySearch(rd.nodes, v)
}

// global is node v of rd.g as a node of the index's graph.
func (rd *read) global(v int) int {
	if rd.nodes == nil || v < 0 || v >= len(rd.nodes) {
		return v
	}
	return rd.nodes[v]
}

// maxAlsoIn bounds the copies an evidence node or a citation names
// (EvidenceNode.AlsoIn): a boilerplate paragraph repeated on every page of
// a site is one content of thousands of copies, and naming them all would
// make each node that reads it as large as the site (and, over a store,
// read as many rows a question).
const maxAlsoIn = 32

// alsoIn lists the IDs of node v's copies in g (graph.Graph.Copies), v
// left out, the first maxAlsoIn; nil when it has none or g is nil.
func alsoIn(g *graph.Graph, v int) []string {
	if g == nil || v < 0 || v >= len(g.Nodes) { // nil: an index over a store (see storeAlsoIn)
		return nil
	}
	var out []string
	for _, c := range g.Copies(v) {
		if len(out) == maxAlsoIn {
			break
		}
		if int(c) != v {
			out = append(out, g.Nodes[c].ID)
		}
	}
	return out
}

// citeCopies sets each citation's AlsoIn from the index's graph (the
// citations' nodes are its); over a store, from the question's candidates
// when rd is over the graph its steps ran on (the citations' nodes are
// candidates whose text, and their copies' IDs, reading or System 2 read:
// also those of chains the evidence does not hold), else from the
// evidence's node of the same position, which carries the store's
// also_in.
func (ix *Index) citeCopies(rd *read, ev *Evidence, a *reader.Answer) {
	if a == nil {
		return
	}
	if ix.g != nil {
		for i := range a.Citations {
			a.Citations[i].AlsoIn = alsoIn(ix.g, a.Citations[i].Node)
		}
		return
	}
	if ev != nil && rd != nil && rd.state {
		if sq := ix.question(ev.scores); sq != nil {
			sq.mu.Lock()
			defer sq.mu.Unlock()
			for i := range a.Citations {
				a.Citations[i].AlsoIn = nil
				if v, ok := rd.local(a.Citations[i].Node); ok {
					a.Citations[i].AlsoIn = ix.storeAlsoIn(sq, ev.scores, v)
				}
			}
			return
		}
	}
	var byNode map[int][]string
	if ev != nil {
		byNode = map[int][]string{}
		for _, c := range ev.Chains {
			for _, n := range c.Nodes {
				if len(n.AlsoIn) > 0 {
					byNode[n.Node] = n.AlsoIn
				}
			}
		}
	}
	for i := range a.Citations {
		a.Citations[i].AlsoIn = slices.Clone(byNode[a.Citations[i].Node])
	}
}

// toIndex rewrites the node indexes of a (citations, drafts) from rd.g's to
// the index's graph's.
func (rd *read) toIndex(a *reader.Answer) {
	if a == nil || rd.nodes == nil {
		return
	}
	for i := range a.Citations {
		a.Citations[i].Node = rd.global(a.Citations[i].Node)
	}
	for i := range a.Drafts {
		nodes := make([]int, len(a.Drafts[i].Nodes))
		for j, v := range a.Drafts[i].Nodes {
			nodes[j] = rd.global(v)
		}
		a.Drafts[i].Nodes = nodes
	}
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
