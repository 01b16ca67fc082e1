package flowreader

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
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
	// Evidence.Scores (as long as the graph, so left out by default).
	Scores bool
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
// with their nodes' text and provenance, and a summary of the routing. Its
// JSON form (snake_case, durations in milliseconds, with [SchemaVersion])
// is the contract of the CLI's ask --json and of the server's
// /v1/retrieve; decoding it back gives the same exported fields.
type Evidence struct {
	// SchemaVersion is [SchemaVersion].
	SchemaVersion int    `json:"schema_version"`
	Question      string `json:"question"`
	// Budget is the budget used: Options.Budget or Config.Budget, clamped.
	Budget int `json:"budget"`
	// Chains are the selected chains in reading order.
	Chains  []EvidenceChain `json:"chains"`
	Routing RoutingSummary  `json:"routing"`
	// Notes lists the embedded defaults in use (see [Pipeline.Notes]).
	Notes []string `json:"notes"`
	// StagesMS is the wall time of score, route and select, in
	// milliseconds.
	StagesMS map[string]float64 `json:"stages_ms"`
	// Scores is the node score h of every graph node by node index, only
	// with Options.Scores.
	Scores []float64 `json:"scores,omitempty"`

	// What Answer needs, kept from the steps.
	scores  *score.Scores
	routing *flow.Routing
	chains  []flow.Chain
	stream  func(Event)
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
	// Node is the node's index in the graph, ID its stable ID.
	Node int    `json:"node"`
	ID   string `json:"id"`
	// Doc is the document ID, Page the 0-based page (-1 when unknown).
	Doc  string `json:"doc"`
	Page int    `json:"page"`
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
	// Score is the node score h in [0, 1]; Flow the routed flow through
	// the node, summed over every routed chain (read or not).
	Score float64 `json:"score"`
	Flow  float64 `json:"flow"`
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
	// Aspects are the aspect terminals (aspects formulation only).
	Aspects []AspectSummary `json:"aspects"`
}

// AspectSummary is one aspect terminal: its singular value σ_a, capacity
// d_a, the flow that reached it and the nodes feeding it (paper v3 §3.3,
// Eq. 6).
type AspectSummary struct {
	Sigma    float64 `json:"sigma"`
	Capacity float64 `json:"capacity"`
	Flow     float64 `json:"flow"`
	Fed      int     `json:"fed"`
}

// budget is the budget of one call: Options.Budget or the pipeline's,
// clamped (see Options.Budget).
func (ix *Index) budget(opts []Options) (Options, int, error) {
	var o Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		return o, 0, fmt.Errorf("%w: %d Options given, at most one", ErrConfig, len(opts))
	}
	if o.Budget < 0 {
		return o, 0, fmt.Errorf("%w: Options.Budget %d is negative", ErrConfig, o.Budget)
	}
	if o.Budget == 0 {
		return o, ix.p.budget, nil
	}
	return o, min(o.Budget, max(ix.g.Len(), ix.p.budget)), nil
}

// Retrieve finds the evidence for a question without reading it: Score,
// Route and Select with the call's budget. On an error after the question
// was accepted (a failed embedder, a cancelled context) it returns the
// partial evidence (the steps done, in StagesMS) with the error; for an
// empty question (ErrQuestion) or bad options (ErrConfig) it returns nil.
func (ix *Index) Retrieve(ctx context.Context, question string, opts ...Options) (*Evidence, error) {
	o, budget, err := ix.budget(opts)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(question) == "" {
		return nil, ErrQuestion
	}
	ev := &Evidence{SchemaVersion: SchemaVersion, Question: question, Budget: budget, Chains: []EvidenceChain{},
		Notes: append([]string{}, ix.p.notes...), StagesMS: map[string]float64{}, Routing: RoutingSummary{Aspects: []AspectSummary{}},
		stream: o.Stream}
	// Each step is one call between two laps, the place for a log line or
	// a span per step.
	t := time.Now()
	lap := func(stage string) {
		now := time.Now()
		ev.StagesMS[stage] = millis(now.Sub(t))
		t = now
	}
	if ev.scores, err = ix.Score(ctx, question); err != nil {
		return ev, err
	}
	lap("score")
	if ev.routing, err = ix.route(ctx, ev.scores, budget); err != nil {
		return ev, err
	}
	lap("route")
	if ev.chains, err = ix.observeSelect(ctx, ev.routing, budget); err != nil {
		return ev, err
	}
	lap("select")
	ix.fill(ev, o.Scores)
	return ev, nil
}

// evidence is the Evidence of steps run outside Retrieve (Index.Answer's
// arguments).
func (ix *Index) evidence(question string, s *score.Scores, r *flow.Routing, chains []flow.Chain, budget int) *Evidence {
	ev := &Evidence{SchemaVersion: SchemaVersion, Question: question, Budget: budget, Chains: []EvidenceChain{},
		Notes: append([]string{}, ix.p.notes...), StagesMS: map[string]float64{}, Routing: RoutingSummary{Aspects: []AspectSummary{}},
		scores: s, routing: r, chains: chains}
	ix.fill(ev, false)
	return ev
}

// fill sets the exported fields of ev from its steps' values.
func (ix *Index) fill(ev *Evidence, withScores bool) {
	// With candidates (Config.Candidates) the steps ran on a subgraph; the
	// evidence names nodes of the index's graph.
	g := ix.graphOf(ev.scores)
	var cand []int
	if ev.scores != nil {
		cand = ev.scores.Candidates
	}
	var h []float64
	if ev.scores != nil && len(ev.scores.H) == g.Len() {
		h = ev.scores.H
	}
	if withScores && h != nil {
		if cand == nil {
			ev.Scores = append([]float64{}, h...)
		} else { // nodes outside the candidates were not scored: 0
			ev.Scores = make([]float64, ix.g.Len())
			for i, v := range cand {
				ev.Scores[v] = h[i]
			}
		}
	}
	through := map[int]float64{}
	if r := ev.routing; r != nil {
		ev.Routing = RoutingSummary{Router: r.Router, Demand: r.Demand, Routed: r.Routed, MaxFlow: r.MaxFlow,
			Saturation: r.Saturation, Kappa: r.Kappa, Cost: r.Cost, Relevant: r.Relevant, Distinct: r.Distinct,
			ChainsRouted: len(r.Chains), Aspects: make([]AspectSummary, len(r.Aspects))}
		for i, a := range r.Aspects {
			ev.Routing.Aspects[i] = AspectSummary{Sigma: a.Sigma, Capacity: a.Capacity, Flow: a.Flow, Fed: a.Fed}
		}
		for _, c := range r.Chains {
			for i, v := range c.Nodes {
				if i == 0 || c.Nodes[i-1] != v {
					through[v] += c.Flow
				}
			}
		}
	}
	ev.Chains = make([]EvidenceChain, 0, len(ev.chains))
	for _, c := range ev.chains {
		ec := EvidenceChain{Flow: c.Flow, Cost: c.Cost, Aspect: c.Aspect, Nodes: make([]EvidenceNode, 0, len(c.Nodes))}
		for _, v := range c.Nodes {
			if v < 0 || v >= g.Len() {
				continue
			}
			n := evidenceNode(g, v, h, through[v])
			n.Node = graphNode(ev.scores, v)
			ec.Nodes = append(ec.Nodes, n)
		}
		ev.Chains = append(ev.Chains, ec)
	}
}

func evidenceNode(g *graph.Graph, v int, h []float64, flow float64) EvidenceNode {
	n := &g.Nodes[v]
	e := EvidenceNode{Node: v, ID: n.ID, Doc: n.Doc, Page: n.Page, Modality: n.Modality.String(), Title: n.Section,
		Text: nodeText(n), Flow: flow}
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

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
