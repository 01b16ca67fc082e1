package flow

import (
	"math"
	"strings"
	"sync"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// AspectSource selects where the aspect terminals come from.
type AspectSource int

const (
	// SpectralAspects takes the aspects from the SVD of the relevance-weighted
	// embeddings of the relevant set (METHOD B.5).
	SpectralAspects AspectSource = iota
	// TermFacets makes each query keyword that occurs in the graph a facet
	// (issue 11): c_t(v) = 1 when node v contains the term t, else 0, and
	// the facet's capacity is FacetShare · F0 split in proportion to the
	// term's inverse document frequency ln(1 + N/df_t) over the graph.
	// The rest of the demand, (1 − FacetShare) · F0, goes to one general
	// facet that every node feeds at no terminal cost. With κ > 0 the flow
	// must then route at least about d_t nodes that contain each rare term,
	// so every part of a multi-part question is covered before the general
	// facet takes the most relevant of the rest. When no query keyword
	// occurs in the graph the router falls back to SpectralAspects.
	TermFacets
)

// facetSet holds the term facets of one query: capacities (general facet
// first when present) and per-facet node sets.
type facetSet struct {
	terms   []string
	caps    []float64
	general bool
	has     [][]bool // has[j][v]: node v contains facet j's term (nil row for the general facet)
}

// facets builds the term facets of the query from s.Keywords over g; nil
// when no keyword occurs in g.
func (a *Aspects) facets(g *graph.Graph, s *score.Scores, f0 float64) *facetSet {
	post := a.termCache().get(g)
	n := g.Len()
	share := a.FacetShare
	if share <= 0 || share > 1 {
		share = 1
	}
	var fs facetSet
	var w []float64
	for _, t := range s.Keywords {
		nodes := post[t]
		if len(nodes) == 0 {
			continue
		}
		row := make([]bool, n)
		for _, v := range nodes {
			row[v] = true
		}
		fs.terms = append(fs.terms, t)
		fs.has = append(fs.has, row)
		w = append(w, math.Log(1+float64(n)/float64(len(nodes))))
	}
	if len(fs.terms) == 0 {
		return nil
	}
	var sum float64
	for _, x := range w {
		sum += x
	}
	if share < 1 {
		fs.general = true
		fs.terms = append([]string{""}, fs.terms...)
		fs.has = append([][]bool{nil}, fs.has...)
		fs.caps = append(fs.caps, (1-share)*f0)
	}
	for _, x := range w {
		fs.caps = append(fs.caps, share*f0*x/sum)
	}
	return &fs
}

// alignment is c_t(v) for the terminal nodes vs, position-major (p*T + t):
// 1 for the general facet and for nodes holding the term, else 0.
func (fs *facetSet) alignment(vs []int) []float64 {
	nt := len(fs.caps)
	out := make([]float64, len(vs)*nt)
	for p, v := range vs {
		for j := 0; j < nt; j++ {
			if fs.has[j] == nil || fs.has[j][v] {
				out[p*nt+j] = 1
			}
		}
	}
	return out
}

// termCache keeps the postings (stemmed term → nodes in index order) of the
// last graph routed; graphs are immutable, so the pointer identifies them.
type termCache struct {
	mu   sync.Mutex
	g    *graph.Graph
	post map[string][]int
}

func (a *Aspects) termCache() *termCache {
	if a.terms != nil {
		return a.terms
	}
	return &termCache{}
}

func (c *termCache) get(g *graph.Graph) map[string][]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.g == g && c.post != nil {
		return c.post
	}
	post := map[string][]int{}
	var b strings.Builder
	for v := range g.Nodes {
		nd := &g.Nodes[v]
		b.Reset()
		b.WriteString(nd.Summary)
		for _, k := range nd.Keywords {
			b.WriteByte(' ')
			b.WriteString(k)
		}
		b.WriteByte(' ')
		b.WriteString(nd.Content)
		b.WriteByte(' ')
		b.WriteString(nd.Caption)
		// score.Keywords gives each term once, so nodes are appended once
		// per term and in index order.
		for _, t := range score.Keywords(b.String()) {
			post[t] = append(post[t], v)
		}
	}
	c.g, c.post = g, post
	return post
}
