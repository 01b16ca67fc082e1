package flow

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/mention"
	"github.com/flowreader/flowreader/score"
)

// Hop is hop-aware relevance in front of another router, for collections of
// titled passages (node Section = title). The bridge passage of a multi-hop
// question is named by a relevant passage but is not similar to the question
// itself, so no arc of a relevance-climbing network reaches it and it stays
// under the demand floor. Hop lifts it before Router routes:
//
//  1. a node whose title the question names (HippoRAG's query entities,
//     Gutiérrez et al., arXiv 2405.14831, §3.2) is raised to
//     r'_v = max(r_v, 0.99·max r + 0.01·r_v), so that both passages a
//     comparison question names are read first;
//  2. with S the Seeds most relevant nodes by r' (one per content: a
//     node's copies, graph.Graph.Copies, are not seeds beside it), every node v that a seed u
//     names by title inherits r*_v = max(r'_v, α r'_u + (1−α) r'_v), and a
//     node joined to a seed by another Link edge (a shared entity,
//     [graph.MentionLinks]) inherits with EntityAlpha in place of α.
//
// h is raised the same way. A seed keeps its score and α < 1 keeps a named
// node below its namer, so the first read is the inner router's. Titles are
// matched as in [graph.MentionLinks]; Open indexes them once per graph. The
// question's text is [score.Scores.Question].
type Hop struct {
	// Router routes the raised scores. Required.
	Router Router
	// Seeds is |S|, the namers whose relevance is inherited (0 = 5).
	Seeds int
	// Alpha is α, the share of a namer's relevance a node it names by
	// title inherits (0 = 0.9), in (0, 1).
	Alpha float64
	// EntityAlpha is the share inherited over other Link edges of the graph
	// (0 = 0.6; negative = none), below 1.
	EntityAlpha float64
}

var _ Router = (*Hop)(nil)

func (h *Hop) settings() (seeds int, alpha, entity float64, err error) {
	seeds, alpha, entity = h.Seeds, h.Alpha, h.EntityAlpha
	if seeds == 0 {
		seeds = 5
	}
	if alpha == 0 {
		alpha = 0.9
	}
	if entity == 0 {
		entity = 0.6
	}
	switch {
	case h.Router == nil:
		err = fmt.Errorf("%w: Hop.Router is nil", ErrConfig)
	case seeds < 0:
		err = fmt.Errorf("%w: Hop.Seeds %d is negative", ErrConfig, seeds)
	case !(alpha > 0 && alpha < 1):
		err = fmt.Errorf("%w: Hop.Alpha %v is not in (0, 1)", ErrConfig, alpha)
	case math.IsNaN(entity) || entity >= 1:
		err = fmt.Errorf("%w: Hop.EntityAlpha %v is not below 1", ErrConfig, entity)
	}
	return seeds, alpha, max(entity, 0), err
}

// Open opens Router on g and indexes g's titles: which nodes each node
// names, and the titles a question can name.
func (h *Hop) Open(ctx context.Context, g *graph.Graph) (GraphRouter, error) {
	seeds, alpha, entity, err := h.settings()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, fmt.Errorf("%w: nil graph", ErrScores)
	}
	inner, err := h.Router.Open(ctx, g)
	if err != nil {
		return nil, err
	}
	texts := make([]string, g.Len())
	titles := make([]string, g.Len())
	for i := range g.Nodes {
		texts[i], titles[i] = g.Nodes[i].Content, g.Nodes[i].Section
	}
	hg := &hopGraph{g: g, router: h.Router, inner: inner, seeds: seeds, alpha: alpha, entity: entity,
		names:  mention.TitleMentions(texts, titles, mention.Options{}),
		titles: mention.NewTitleIndex(titles, mention.Options{}),
		named:  map[mention.Pair]bool{},
	}
	for a, bs := range hg.names {
		for _, b := range bs {
			hg.named[mention.Pair{U: min(int32(a), b), V: max(int32(a), b)}] = true
		}
	}
	if rr, ok := inner.(Rerouter); ok {
		return &hopRerouter{hopGraph: hg, inner: rr}, nil
	}
	return hg, nil
}

// hopGraph is a Hop opened on one graph; its index is read-only.
type hopGraph struct {
	g             *graph.Graph
	router        Router // the inner router, for subgraphs
	inner         GraphRouter
	seeds         int
	alpha, entity float64
	names         [][]int32             // names[u]: the nodes u names by title
	named         map[mention.Pair]bool // the title-mention pairs
	titles        *mention.TitleIndex
	// nodes is set on a router opened on a candidate subgraph of the
	// opened graph (OpenSubgraph): node i of g is nodes[i] of the graph
	// that names, named and titles index.
	nodes []int
}

// local is the node of g that node v of the indexed graph is, if any.
func (hg *hopGraph) local(v int) (int, bool) {
	if hg.nodes == nil {
		return v, true
	}
	return slices.BinarySearch(hg.nodes, v)
}

// global is node v of g in the indexed graph.
func (hg *hopGraph) global(v int) int {
	if hg.nodes == nil {
		return v
	}
	return hg.nodes[v]
}

// PrepareSubgraphs prepares the inner router's OpenSubgraph, when it has
// one (Hop's own title index is made by Open).
func (hg *hopGraph) PrepareSubgraphs() {
	if p, ok := hg.inner.(interface{ PrepareSubgraphs() }); ok {
		p.PrepareSubgraphs()
	}
}

// OpenSubgraph opens the router on sub, the subgraph induced by nodes
// (ascending nodes of the opened graph), with the opened graph's title
// index: a node is raised in sub as it would be in the whole graph (a
// title's matches and what a node names do not depend on which other
// nodes are candidates). The inner router is opened on sub with the whole
// graph's statistics when it can be.
func (hg *hopGraph) OpenSubgraph(ctx context.Context, sub *graph.Graph, nodes []int) (GraphRouter, error) {
	if hg.nodes != nil {
		return nil, fmt.Errorf("%w: a subgraph of a subgraph", ErrScores)
	}
	var inner GraphRouter
	var err error
	if so, ok := hg.inner.(interface {
		OpenSubgraph(context.Context, *graph.Graph, []int) (GraphRouter, error)
	}); ok {
		inner, err = so.OpenSubgraph(ctx, sub, nodes)
	} else {
		inner, err = hg.router.Open(ctx, sub)
	}
	if err != nil {
		return nil, err
	}
	sg := *hg
	sg.g, sg.inner, sg.nodes = sub, inner, nodes
	if rr, ok := inner.(Rerouter); ok {
		return &hopRerouter{hopGraph: &sg, inner: rr}, nil
	}
	return &sg, nil
}

// Route raises the scores and routes them with the inner router.
func (hg *hopGraph) Route(ctx context.Context, s *score.Scores, budget int) (*Routing, error) {
	s2, err := hg.raise(s)
	if err != nil {
		return nil, err
	}
	return hg.inner.Route(ctx, s2, budget)
}

// hopRerouter is a hopGraph whose inner router can re-route.
type hopRerouter struct {
	*hopGraph
	inner Rerouter
}

// Reroute raises the scores as Route does and re-routes them.
func (hr *hopRerouter) Reroute(ctx context.Context, s *score.Scores, budget int, prev *Routing, e Edits) (*Routing, error) {
	s2, err := hr.raise(s)
	if err != nil {
		return nil, err
	}
	return hr.inner.Reroute(ctx, s2, budget, prev, e)
}

// raise returns a copy of s with R and H raised (the caller's are kept).
func (hg *hopGraph) raise(s *score.Scores) (*score.Scores, error) {
	if err := checkScores(hg.g, s); err != nil {
		return nil, err
	}
	r := append([]float64(nil), s.R...)
	h := append([]float64(nil), s.H...)
	if s.Question != "" {
		rmax, hmax := maxOf(r), maxOf(h)
		for _, v := range hg.titles.Named(s.Question) {
			v, ok := hg.local(int(v))
			if !ok {
				continue
			}
			r[v] = max(r[v], 0.99*rmax+0.01*r[v])
			h[v] = max(h[v], 0.99*hmax+0.01*h[v])
		}
	}
	r0, h0 := append([]float64(nil), r...), append([]float64(nil), h...)
	lift := func(u, v int, a float64) {
		r[v] = max(r[v], a*r0[u]+(1-a)*r0[v])
		h[v] = max(h[v], a*h0[u]+(1-a)*h0[v])
	}
	for _, u := range hg.seedNodes(r0) {
		for _, v := range hg.names[hg.global(u)] {
			if v, ok := hg.local(int(v)); ok {
				lift(u, v, hg.alpha)
			}
		}
		if hg.entity <= 0 {
			continue
		}
		nb, es := hg.g.Neighbors(u)
		for k, v := range nb {
			e := hg.g.Edges[es[k]]
			if e.Kind&graph.EdgeLink == 0 || hg.named[mention.Pair{U: int32(hg.global(int(e.U))), V: int32(hg.global(int(e.V)))}] {
				continue
			}
			lift(u, int(v), hg.entity)
		}
	}
	s2 := *s
	s2.R, s2.H = r, h
	return &s2, nil
}

// seedNodes returns S, the Seeds nodes most relevant by r, one per content
// (a node's copies, graph.Graph.Copies, are not seeds beside it: a
// collection that holds a passage twice still lifts what its Seeds most
// relevant passages name).
func (hg *hopGraph) seedNodes(r []float64) []int {
	var out []int
	var used []int32
	for _, u := range byScore(r) {
		if len(out) == hg.seeds {
			break
		}
		if cs := hg.g.Copies(u); cs != nil {
			if slices.Contains(used, cs[0]) {
				continue
			}
			used = append(used, cs[0])
		}
		out = append(out, u)
	}
	return out
}

func maxOf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, v)
	}
	return m
}
