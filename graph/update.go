package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/llm"
)

// ErrUpdate is returned by Update for a graph it cannot update: one without
// a build record (made by New, or saved before graphs recorded how they were
// built), one built with other settings than the Builder's, or one built
// with LLM evolution rounds. Build it once from scratch instead; with
// Builder.Cache set, unchanged documents then cost no model calls.
var ErrUpdate = errors.New("graph: cannot update the graph")

// Diff names the documents an Update added, replaced (same ID, other
// content) and removed, by ID; Added and Replaced in the order of the new
// collection, Removed in the old graph's.
type Diff struct {
	Added, Replaced, Removed []string

	// relinked are the nodes of the new graph (of) taken from the old one
	// (those of the documents the Diff does not name) whose edges Update
	// changed, ascending; not nil (empty when none) in a Diff Update
	// returned, nil in one made otherwise, which says nothing of edges. A
	// store given the Diff with the graph of rewrites only these kept
	// nodes' links; with another graph (a copy read back from a file, the
	// result of another Update) it compares them all.
	relinked []int32
	of       *Graph
}

// Update returns the graph Build(ctx, docs) would return, given g, a graph
// that b (or a Builder with equal settings) built from another collection:
// the nodes and edges are equal, and Write gives equal bytes (on the HNSW
// kNN path, within the tolerance stated below). Only the
// documents that are new or whose content changed (by a hash of what Build
// reads of them) are analysed and embedded; the nodes of the others, with
// their analysis and embeddings, are taken from g, so they cost no model or
// embedder call. Documents are matched by ID; the result's document order
// is the order of docs, as in Build, so to add a document append it to the
// collection's list (or insert it where a fresh build of the folder would
// have it), to remove one leave it out. g is not modified.
//
// What is recomputed, so that the result equals a fresh build:
//   - the kNN list of every new node, and of every kept node whose list held
//     a removed or replaced node, against all nodes; every other kept node's
//     list is its old one offered the new nodes, which is its new list
//     because no kept node it did not list can now beat the k it did. When k
//     changes with N (the default k = clip(⌈log2 N⌉, 3, 32)), or kept
//     documents change their relative order (ties are broken by node
//     index), every list is recomputed: exact kNN then costs what Build's
//     does, with no model or embedder call for kept nodes;
//   - reading-order edges and MentionLinks over the whole collection, which
//     cost no model call and little time: mention links depend on counts
//     over all passages (a title named by more than max(8, 1%) of them
//     links nothing), so a new document can remove links between old ones;
//   - every edge weight, from the embeddings.
//
// On the exact kNN path (see [Builder.ApproxKNN]) the result equals a fresh
// build. On the HNSW path the recomputed lists are exact and the kept ones
// are the old approximate lists (read back from g's kNN edges, offered the
// new nodes). A list read back from an HNSW graph is not always the one
// HNSW found: where HNSW missed a neighbour that lists the node in turn,
// the read-back takes it and leaves out the list's last, whose edge is
// then on neither end's read-back list; such an edge is kept while either
// end keeps its list (neither recomputed nor joined by a new node), so the
// kept nodes whose edges change are those near the changed documents, as
// on the exact path, not nodes across the graph. The kNN edges may differ
// from a fresh build's, which are all approximate; the rule is then: the nodes, embeddings and all other
// edges are equal, at least 95 % of the fresh build's kNN edges are the
// result's, and the result's kNN-edge recall against exact kNN is at least
// the fresh build's less 0.01. When k changes or kept documents change
// their relative order, every list is found again as Build finds it (by
// HNSW on that path), and the result equals a fresh build on both paths; so
// does an update that changes nothing (g's kNN edges are kept).
//
// Scoring keeps no collection statistics in the graph (BM25's IDF is
// computed when an index is opened), so there is nothing else to refresh.
//
// Update fails with [ErrUpdate] for a graph without a build record, built
// with other Window, KNN, NoMentionLinks or Rounds settings, analysed by a
// model when b has none (or the reverse), or built with evolution rounds
// (they are a process over the whole collection: each round rewrites links
// and summaries from every node's neighbours); with [ErrDimension] when b's
// embedder has another dimension; with [ErrDocument] as Build does. The
// result equals a fresh build when the model and embedder answer a request
// as they did for g (as with Cache, or a deterministic embedder whose
// vector of a text does not depend on the batch it is sent in). A changed
// image file under an unchanged path is not noticed.
func (b *Builder) Update(ctx context.Context, g *Graph, docs []Document) (*Graph, Diff, error) {
	var diff Diff
	if b.Embedder == nil {
		return nil, diff, errNoEmbedder
	}
	if g == nil || g.build == nil {
		return nil, diff, fmt.Errorf("%w: it has no build record (made by New, or saved by an older version)", ErrUpdate)
	}
	old := g.build
	if err := b.updatable(g); err != nil {
		return nil, diff, err
	}
	ctx, spent := tally.With(ctx)
	emb, model := b.wrapped()
	nodes, rec, err := b.documents(docs)
	if err != nil {
		return nil, diff, err
	}

	// Match documents by ID and content hash.
	oldAt := make(map[string]span, len(old.docs))
	oldHash := make(map[string]docHash, len(old.docs))
	at := 0
	for _, d := range old.docs {
		oldAt[d.id], oldHash[d.id] = span{at, d.nodes}, d.hash
		at += d.nodes
	}
	keep := make([]bool, len(docs)) // document i's nodes come from g
	var fresh []Node                // unanalysed nodes of the other documents
	at = 0
	inNew := make(map[string]bool, len(docs))
	for i, d := range rec.docs {
		m := len(docs[i].Items)
		inNew[d.id] = true
		h, ok := oldHash[d.id]
		switch {
		case ok && h == d.hash:
			keep[i] = true
		case ok:
			diff.Replaced = append(diff.Replaced, d.id)
		default:
			diff.Added = append(diff.Added, d.id)
		}
		if !keep[i] {
			fresh = append(fresh, nodes[at:at+m]...)
		}
		at += m
	}
	for _, d := range old.docs {
		if !inNew[d.id] {
			diff.Removed = append(diff.Removed, d.id)
		}
	}

	fresh, err = b.analyse(ctx, model, fresh)
	if err != nil {
		return nil, diff, err
	}
	want := 0
	if len(g.Nodes) > 0 {
		want = g.Dim
	}
	// Update keeps the graph's embedding format, whatever the Builder's.
	fvecs, err := b.embed(ctx, emb, fresh, "embed", want, g.int8)
	if err != nil {
		return nil, diff, err
	}
	dim := fvecs.dim
	if want > 0 {
		dim = want
	}

	// The new node list, in document order, with each node's old index
	// (or -1 for a fresh node).
	n := 0
	for i, d := range rec.docs {
		if keep[i] {
			n += oldAt[d.id].n
		}
	}
	n += len(fresh)
	if n == 0 {
		dim = b.Embedder.Dimension() // no nodes: Build's dimension
	}
	out := make([]Node, 0, n)
	fvecs.dim = dim
	vecs := fvecs.withCap(n)
	oldRows := graphRows(g)
	own := newArena(g, rec.docs, keep, oldAt)
	from := make([]int32, 0, n)
	f := 0
	for i, d := range rec.docs {
		if keep[i] {
			s := oldAt[d.id]
			for j := s.start; j < s.start+s.n; j++ {
				out = append(out, own.node(&g.Nodes[j]))
			}
			vecs.appendRows(&oldRows, s.start, s.start+s.n)
			for j := s.start; j < s.start+s.n; j++ {
				from = append(from, int32(j))
			}
			continue
		}
		for f < len(fresh) && fresh[f].Doc == d.id {
			out = append(out, fresh[f])
			vecs.appendRows(&fvecs, f, f+1)
			from = append(from, -1)
			f++
		}
	}

	edges, err := b.contentEdges(ctx, out)
	if err != nil {
		return nil, diff, err
	}
	if k := b.knnK(n); k > 0 && unchanged(from, len(g.Nodes)) {
		// Nothing changed: g's kNN edges are the result's, on either path
		// (an HNSW list read back from the edges could be a better one).
		for _, e := range g.Edges {
			if e.Kind&EdgeKNN != 0 {
				edges = append(edges, Edge{U: e.U, V: e.V, Kind: EdgeKNN})
			}
		}
	} else if k > 0 {
		p := b.stage("knn", n)
		nb, unlisted, err := b.updateKNN(ctx, g, vecs, from, k)
		if err != nil {
			return nil, diff, err
		}
		p.add(n)
		edges = append(appendKNNEdges(edges, nb, n, k), unlisted...)
	}
	ng, err := b.finish(out, vecs, edges, rec, docs)
	if err != nil {
		return nil, diff, err
	}
	ng.Usage = spent.Totals()
	diff.relinked, diff.of = relinkedNodes(g, ng, from), ng
	return ng, diff, nil
}

// relinkedNodes returns the nodes of ng taken from g (node i is g's
// from[i], or new when from[i] < 0) whose edges differ from their old
// node's: another set of neighbours (an old neighbour gone, a new one
// added) or another kind of edge to one. Weights are not compared: they
// follow the embeddings, which a kept node keeps. The cost is one pass
// over both graphs' adjacency, what Update's other whole-graph steps
// (reading-order and mention edges, edge weights) already pay.
func relinkedNodes(g, ng *Graph, from []int32) []int32 {
	to := make([]int32, len(g.Nodes)) // g's node to ng's, or -1
	for i := range to {
		to[i] = -1
	}
	for i, o := range from {
		if o >= 0 {
			to[o] = int32(i)
		}
	}
	out := []int32{}
	var was, now []uint64 // neighbour<<8 | kind, ascending
	for i, o := range from {
		if o < 0 {
			continue
		}
		nb, es := ng.Neighbors(i)
		ob, oes := g.Neighbors(int(o))
		changed := len(nb) != len(ob)
		now, was = now[:0], was[:0]
		for k := 0; !changed && k < len(ob); k++ {
			j := to[ob[k]]
			changed = j < 0
			was = append(was, uint64(j)<<8|uint64(g.Edges[oes[k]].Kind))
			now = append(now, uint64(nb[k])<<8|uint64(ng.Edges[es[k]].Kind))
		}
		if !changed {
			// Kept nodes may have changed their relative order: the old
			// list, in new indexes, is then not ascending.
			slices.Sort(was)
			changed = !slices.Equal(was, now)
		}
		if changed {
			out = append(out, int32(i))
		}
	}
	return out
}

// unchanged reports whether from maps the result's nodes to all n of g's,
// in g's order.
func unchanged(from []int32, n int) bool {
	if len(from) != n {
		return false
	}
	for i, o := range from {
		if int(o) != i {
			return false
		}
	}
	return true
}

// updatable checks that g was built with b's settings and embedder.
func (b *Builder) updatable(g *Graph) error {
	old, now := g.build, b.settingsRecord()
	switch {
	case old.rounds > 0:
		return fmt.Errorf("%w: it was built with %d LLM evolution rounds, which are a process over the whole collection (set Builder.Rounds negative to build without them)", ErrUpdate, old.rounds)
	case old.model != now.model:
		return fmt.Errorf("%w: its nodes were analysed %s, the Builder's would be %s", ErrUpdate, analysisName(old.model), analysisName(now.model))
	case !old.sameSettings(now):
		return fmt.Errorf("%w: it was built with Window %d, KNN %d, mention links %v, rounds %d; the Builder has %d, %d, %v, %d",
			ErrUpdate, old.window, old.knn, old.mentions, old.rounds, now.window, now.knn, now.mentions, now.rounds)
	}
	if nm, ok := b.Embedder.(llm.Namer); ok && len(g.Nodes) > 0 && !sameModel(nm.Name(), g.Embedder) {
		return fmt.Errorf("%w: it was embedded by %q, the Builder's embedder is %q", ErrUpdate, g.Embedder, nm.Name())
	}
	if d := b.Embedder.Dimension(); len(g.Nodes) > 0 && d > 0 && d != g.Dim {
		return fmt.Errorf("%w: the graph has dimension %d, the embedder %d", ErrDimension, g.Dim, d)
	}
	return nil
}

// sameModel reports whether two model names are one model: equal, or equal
// but for a trailing ":latest", the tag Ollama gives a name without one
// (graphs recorded "nomic-embed-text:latest" before llm/openai dropped it).
func sameModel(a, b string) bool {
	return strings.TrimSuffix(a, ":latest") == strings.TrimSuffix(b, ":latest")
}

func analysisName(model bool) string {
	if model {
		return "by a model"
	}
	return "offline"
}

// updateKNN returns the kNN lists (k per node, as topK) of the n nodes
// whose unit embeddings are vecs, node i being g's node from[i] (or new
// when from[i] < 0). See Update for which lists are recomputed.
//
// Every similarity is computed on vecs, laid out as Build lays out its
// embeddings, never on g's: gonum's Sdot sums in an order that depends on
// the alignment of its second argument, and a loaded graph's rows sit at
// any multiple of 4 bytes. With the dimension a multiple of 4, every row of
// vecs is 16-byte aligned, so a pair's similarity is the same bits whatever
// the rows' indexes and argument order, in Build and here; otherwise every
// list is recomputed by topK, on the same layout as Build's. Int8 rows have
// no such concern: their dot products are exact integers times the scales.
func (b *Builder) updateKNN(ctx context.Context, g *Graph, vecs rows, from []int32, k int) ([]int32, []Edge, error) {
	dim := vecs.dim
	n := len(from)
	kOld := b.knnK(len(g.Nodes))
	monotone := true
	last := int32(-1)
	for _, o := range from {
		if o >= 0 {
			monotone = monotone && o > last
			last = o
		}
	}
	if k != kOld || !monotone || !vecs.i8 && (dim%4 != 0 || len(vecs.f) > 0 && uintptr(unsafe.Pointer(&vecs.f[0]))%16 != 0) {
		// Every list again, as Build finds them (exact or HNSW): the
		// result is then Build's, bit for bit, on either path.
		nb, err := b.neighbours(ctx, vecs, n, k, nil)
		return nb, nil, err
	}
	to := make([]int32, len(g.Nodes)) // g's node index to the new one, or -1
	for i := range to {
		to[i] = -1
	}
	var extra []int32 // the new nodes
	for i, o := range from {
		if o >= 0 {
			to[o] = int32(i)
		} else {
			extra = append(extra, int32(i))
		}
	}
	// The rows of g's nodes that are gone, copied to 16-byte aligned
	// storage, so that their similarities are the bits Build computed.
	gone := make([]int32, len(g.Nodes)) // g's node index to its row in goneRows, or -1
	goneRows := vecs.withCap(0)
	old := graphRows(g)
	ng := 0
	for o, i := range to {
		gone[o] = -1
		if i < 0 {
			gone[o] = int32(ng)
			goneRows.appendRows(&old, o, o+1)
			ng++
		}
	}
	if len(goneRows.f) > 0 && uintptr(unsafe.Pointer(&goneRows.f[0]))%16 != 0 {
		nb, err := b.neighbours(ctx, vecs, n, k, nil)
		return nb, nil, err
	}
	l := &topList{}
	l.init(n, k)
	full := make([]bool, n)
	// A kept node's read-back list is the k best of its kNN-edge
	// neighbours; cut is its k-th (similarity, old index), below which a
	// neighbour is not on it (an index past every node when it has fewer
	// than k: all are). On the exact path a node's old list is exactly its
	// read-back list. On the HNSW path a list can hold a node that a better
	// neighbour listing it in turn ranks below the read-back's k: the edge
	// to it is then on neither end's read-back list (unlisted), and
	// dropping it would change the edges of nodes the update does not
	// touch, anywhere in the graph. Such an edge is found at its later end,
	// whose cut and the earlier end's are then known.
	cutS := make([]float32, n)
	cutJ := make([]int32, n)
	var unlisted [][2]int32 // new indexes, ascending pairs
	var cand []scored
	for i, o := range from {
		if o < 0 {
			full[i] = true
			continue
		}
		// g's kNN list of o is the k best, by g's ranking (old indexes
		// break ties), of its kNN-edge neighbours: they are its list and
		// the nodes that list it. When a node that is gone is among the k,
		// the list is recomputed; otherwise it is kept.
		cand = cand[:0]
		nbrs, eids := g.Neighbors(int(o))
		for t, j := range nbrs {
			if g.Edges[eids[t]].Kind&EdgeKNN == 0 {
				continue
			}
			var s float32
			if c := to[j]; c >= 0 {
				s = vecs.dot(i, int(c))
			} else {
				s = dotRows(&vecs, i, &goneRows, int(gone[j]))
			}
			cand = append(cand, scored{j, s})
		}
		if len(cand) < k {
			cutS[i], cutJ[i] = float32(math.Inf(-1)), math.MaxInt32
			full[i] = true
			continue
		}
		slices.SortFunc(cand, func(a, b scored) int {
			if a.s != b.s {
				return cmp.Compare(b.s, a.s)
			}
			return cmp.Compare(a.j, b.j)
		})
		cutS[i], cutJ[i] = cand[k-1].s, cand[k-1].j
		for _, c := range cand[k:] {
			// Below o's cut; unlisted if o is below c's too. A pair's
			// similarity is the same bits either way round (see above).
			if t := to[c.j]; t >= 0 && int(t) < i && (c.s < cutS[t] || c.s == cutS[t] && o > cutJ[t]) {
				unlisted = append(unlisted, [2]int32{t, int32(i)})
			}
		}
		for _, c := range cand[:k] {
			if to[c.j] < 0 {
				full[i] = true
				break
			}
		}
		if full[i] {
			continue
		}
		for _, c := range cand[:k] {
			l.offer(i, to[c.j], c.s)
		}
	}
	if err := knnRecompute(ctx, vecs, n, l, full, extra, b.concurrency()); err != nil {
		return nil, nil, err
	}
	// An unlisted edge came from one end's list, which one is not
	// recorded: it is kept while either end keeps its list (neither
	// recomputed nor joined by a new node), since it may be that end's. So
	// a node whose neighbours all keep their lists keeps all its edges, and
	// the kept nodes whose edges change are near the changed documents.
	changed := func(i int32) bool {
		if full[i] {
			return true
		}
		for _, j := range l.ids[int(i)*k : int(i+1)*k] {
			if j >= 0 && from[j] < 0 {
				return true
			}
		}
		return false
	}
	var kept []Edge
	for _, p := range unlisted {
		if !changed(p[0]) || !changed(p[1]) {
			kept = append(kept, Edge{U: p[0], V: p[1], Kind: EdgeKNN})
		}
	}
	return l.ids, kept, nil
}

// scored is a candidate neighbour and its similarity.
type scored struct {
	j int32
	s float32
}

// span is where a document's nodes are in a graph.
type span struct{ start, n int }

// arena holds copies of the strings of the nodes an update keeps, in one
// allocation, so that the result does not keep g's storage alive (a loaded
// graph's strings alias the whole file buffer, embeddings included).
type arena struct {
	buf  []byte
	strs []string
}

func newArena(g *Graph, docs []docRecord, keep []bool, at map[string]span) *arena {
	size, lists := 0, 0
	for i, d := range docs {
		if !keep[i] {
			continue
		}
		s := at[d.id]
		for j := s.start; j < s.start+s.n; j++ {
			n := &g.Nodes[j]
			size += nodeStringBytes(n)
			lists += len(n.Keywords) + len(n.Tags)
		}
	}
	return &arena{buf: make([]byte, 0, size), strs: make([]string, 0, lists)}
}

func nodeStringBytes(n *Node) int {
	s := len(n.ID) + len(n.Doc) + len(n.Section) + len(n.Content) + len(n.Caption) + len(n.Footnote) +
		len(n.Summary) + len(n.ImageText) + len(n.Context)
	for _, k := range n.Keywords {
		s += len(k)
	}
	for _, k := range n.Tags {
		s += len(k)
	}
	if n.Image != nil {
		s += len(n.Image.Path) + len(n.Image.MIME)
	}
	return s
}

func (a *arena) str(s string) string {
	if s == "" {
		return ""
	}
	at := len(a.buf)
	a.buf = append(a.buf, s...)
	return unsafe.String(&a.buf[at], len(s))
}

func (a *arena) list(ss []string) []string {
	if ss == nil {
		return nil
	}
	at := len(a.strs)
	for _, s := range ss {
		a.strs = append(a.strs, a.str(s))
	}
	return a.strs[at:len(a.strs):len(a.strs)]
}

// node returns a copy of n whose strings live in a.
func (a *arena) node(n *Node) Node {
	c := *n
	c.ID, c.Doc, c.Section, c.Content = a.str(n.ID), a.str(n.Doc), a.str(n.Section), a.str(n.Content)
	c.Caption, c.Footnote, c.Summary = a.str(n.Caption), a.str(n.Footnote), a.str(n.Summary)
	c.ImageText, c.Context = a.str(n.ImageText), a.str(n.Context)
	c.Keywords, c.Tags = a.list(n.Keywords), a.list(n.Tags)
	if n.Image != nil {
		c.Image = &ImageRef{Path: a.str(n.Image.Path), MIME: a.str(n.Image.MIME)}
	}
	return c
}
