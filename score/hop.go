package score

import (
	"slices"
	"sync"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
	"github.com/flowreader/flowreader/internal/mention"
)

// The hop step (see the package doc, "Hop-aware relevance") is a function
// of explicit inputs: the relevance and node score of the scored nodes,
// the nodes the question names by title, what each scored node names by
// title, and each scored node's Link neighbours. An in-memory Index reads
// them from its title index and its graph (or candidate subgraph); a store
// that holds only a candidate subgraph and per-node data can supply the
// same inputs and get the same raise.

// hopInputs are the hop step's inputs, every node in the scored graph's
// indexes.
type hopInputs struct {
	// named lists the nodes the question names by title, each once.
	named []int
	// names returns the nodes u names by title.
	names func(u int) []int
	// links returns u's neighbours over Link edges that are not a
	// title-mention pair (one of the two naming the other).
	links func(u int) []int
	// copies returns the nodes holding u's content, u among them,
	// ascending (graph.Graph.Copies), or nil when u has no copy; a nil
	// copies means no copies anywhere.
	copies func(u int) []int
}

// copyOf returns u's content class: its lowest copy, or u itself.
func (in hopInputs) copyOf(u int) int {
	if in.copies != nil {
		if cs := in.copies(u); len(cs) > 0 {
			return cs[0]
		}
	}
	return u
}

// members returns the nodes holding u's content, u among them.
func (in hopInputs) members(u int) []int {
	if in.copies != nil {
		if cs := in.copies(u); len(cs) > 0 {
			return cs
		}
	}
	return []int{u}
}

// hopSettings are the hop step's constants after Config's defaults.
type hopSettings struct {
	seeds         int
	alpha, entity float64
}

// hop raises r and h in place (paper-independent; HippoRAG-style query
// entities, Gutiérrez et al., arXiv 2405.14831, §3.2), and returns the
// nodes it raised, ascending:
//
//  1. a node the question names is raised to x'_v = max(x_v, 0.99·max x +
//     0.01·x_v), for x = r and x = h;
//  2. with S the seeds nodes of highest r' (ties by lower index), one per
//     content (a node's copies, graph.Graph.Copies, are not seeds beside
//     it: a collection that holds a passage twice still lifts what its
//     seeds most relevant contents name), every
//     node v a seed u names inherits x*_v = max(x'_v, α x'_u + (1−α) x'_v),
//     and a node joined to a seed by another Link edge inherits with the
//     entity share in place of α.
//
// A seed keeps its score and α < 1 keeps a named node below its namer.
// Step 2 reads the values after step 1 only, so the order of the seeds
// and of their neighbours does not matter.
func hop(r, h []float64, in hopInputs, st hopSettings) []int {
	if len(r) == 0 {
		return nil
	}
	raised := map[int]bool{}
	if len(in.named) > 0 {
		rmax, hmax := slices.Max(r), slices.Max(h)
		for _, v := range in.named {
			r0, h0 := r[v], h[v]
			r[v] = max(r[v], 0.99*rmax+0.01*r[v])
			h[v] = max(h[v], 0.99*hmax+0.01*h[v])
			if r[v] != r0 || h[v] != h0 {
				raised[v] = true
			}
		}
	}
	r0, h0 := slices.Clone(r), slices.Clone(h)
	lift := func(u, v int, a float64) {
		rv, hv := r[v], h[v]
		r[v] = max(r[v], a*r0[u]+(1-a)*r0[v])
		h[v] = max(h[v], a*h0[u]+(1-a)*h0[v])
		if r[v] != rv || h[v] != hv {
			raised[v] = true
		}
	}
	var copyOf func(int) int
	if in.copies != nil {
		copyOf = in.copyOf
	}
	for _, u := range seedNodes(r0, st.seeds, copyOf) {
		// A seed names what any copy of its content names: an edit in
		// one copy (a typo in a title) does not lose the other's links.
		for _, m := range in.members(u) {
			for _, v := range in.names(m) {
				lift(u, v, st.alpha)
			}
			if st.entity <= 0 {
				continue
			}
			for _, v := range in.links(m) {
				lift(u, v, st.entity)
			}
		}
	}
	out := make([]int, 0, len(raised))
	for v := range raised {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// seedNodes returns the k nodes of highest r (ties by lower index), one per
// content class of copyOf (nil: every node its own).
func seedNodes(r []float64, k int, copyOf func(u int) int) []int {
	top := topK(r, k, nil)
	if copyOf == nil {
		return top
	}
	for m := k; ; m *= 2 {
		var out, classes []int
		for _, u := range top {
			if c := copyOf(u); !slices.Contains(classes, c) {
				classes = append(classes, c)
				out = append(out, u)
				if len(out) == k {
					return out
				}
			}
		}
		if len(top) < m || len(top) == len(r) {
			return out // every node seen
		}
		top = topK(r, 2*m, top[:0])
	}
}

// titleIndex is what the hop step needs of an index's graph, made on the
// first question that uses it (or by Prepare): which nodes each node names
// by title, the title-mention pairs, and the titles a question can name.
// Titles are matched as graph.MentionLinks matches them.
type titleIndex struct {
	names  [][]int32             // names[u]: the nodes u names by title
	named  map[mention.Pair]bool // the title-mention pairs
	titles *mention.TitleIndex
}

func newTitleIndex(g *graph.Graph) *titleIndex {
	texts := make([]string, len(g.Nodes))
	titles := make([]string, len(g.Nodes))
	for i := range g.Nodes {
		texts[i], titles[i] = g.Nodes[i].Content, g.Nodes[i].Section
	}
	// Titles and mentions are counted by content: a collection holding a
	// passage twice keeps the titles of the one holding it once.
	opt := mention.Options{Class: graphhook.Classes(g)}
	t := &titleIndex{
		names:  mention.TitleMentions(texts, titles, opt),
		titles: mention.NewTitleIndex(titles, opt),
		named:  map[mention.Pair]bool{},
	}
	for a, bs := range t.names {
		for _, b := range bs {
			t.named[mention.Pair{U: min(int32(a), b), V: max(int32(a), b)}] = true
		}
	}
	return t
}

// graphCopies is hopInputs.copies over g: its content classes
// (graph.Graph.Copies) as ints.
func graphCopies(g *graph.Graph) func(u int) []int {
	return func(u int) []int {
		cs := g.Copies(u)
		if cs == nil {
			return nil
		}
		out := make([]int, len(cs))
		for k, c := range cs {
			out[k] = int(c)
		}
		return out
	}
}

// lazyTitles builds an index's title index once.
type lazyTitles struct {
	once sync.Once
	t    *titleIndex
}

func (ix *Index) titleIndex() *titleIndex {
	ix.hopTitles.once.Do(func() { ix.hopTitles.t = newTitleIndex(ix.g) })
	return ix.hopTitles.t
}

// hopInputsOf reads the hop step's inputs for question from the index's
// title index and sg, the scored graph: the index's graph (nodes nil) or
// its candidate subgraph induced by nodes (ascending).
func (ix *Index) hopInputsOf(question string, sg *graph.Graph, nodes []int) hopInputs {
	t := ix.titleIndex()
	local := func(v int) (int, bool) {
		if nodes == nil {
			return v, true
		}
		return slices.BinarySearch(nodes, v)
	}
	global := func(v int) int {
		if nodes == nil {
			return v
		}
		return nodes[v]
	}
	in := hopInputs{
		names: func(u int) []int {
			var out []int
			for _, v := range t.names[global(u)] {
				if v, ok := local(int(v)); ok {
					out = append(out, v)
				}
			}
			return out
		},
		links: func(u int) []int {
			var out []int
			nb, es := sg.Neighbors(u)
			for k, v := range nb {
				e := sg.Edges[es[k]]
				if e.Kind&graph.EdgeLink == 0 || t.named[mention.Pair{U: int32(global(int(e.U))), V: int32(global(int(e.V)))}] {
					continue
				}
				out = append(out, int(v))
			}
			return out
		},
	}
	in.copies = graphCopies(sg)
	if question != "" {
		for _, v := range t.titles.Named(question) {
			if v, ok := local(int(v)); ok {
				in.named = append(in.named, v)
			}
		}
	}
	return in
}

// raise runs the hop step on sc (scored over sg, the candidate subgraph
// induced by nodes when nodes is not nil) when c has it on.
func (ix *Index) raise(c Config, sc *Scores, sg *graph.Graph, nodes []int) {
	st, on := c.hop()
	if !on || sg == nil {
		return
	}
	sc.Steps = append(sc.Steps, "hop")
	sc.Raised = hop(sc.R, sc.H, ix.hopInputsOf(sc.Question, sg, nodes), st)
}
