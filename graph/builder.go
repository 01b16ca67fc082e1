package graph

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/internal/telemetry"
	"github.com/flowreader/flowreader/llm"
)

// Construction constants (the package doc gives the model they belong to).
const (
	// defaultWindow is the reading-order window w (paper v1 App. A).
	defaultWindow = 3
	// evolutionRounds is the number of evolution rounds T (paper v1 App. A),
	// run only when a Model is set.
	evolutionRounds = 3
	// evolveNeighbours is how many cosine neighbours prompt P3 shows a node
	// (paper v1 Eq. 14).
	evolveNeighbours = 5
	// maxLinks is how many P3 suggestions a node keeps per round.
	maxLinks = 5
	// neighbourChars bounds each neighbour's content in P3. G2-Reader sends
	// whole notes; 2,000 characters keep five neighbours and the node's own
	// note inside a small model's context.
	neighbourChars = 2000
	// defaultConcurrency is the number of model and embedder calls in flight.
	defaultConcurrency = 4
	// defaultBatch is the number of texts per embedding call when the
	// embedder states no maximum (llm.BatchSizer).
	defaultBatch = 64
	// noMeaningfulInformation marks P1 answers of chunks to drop (paper v3
	// App. J).
	noMeaningfulInformation = "No meaningful information"
)

// ErrDocument is returned by Build for documents it cannot build from: two
// documents with one ID, an item whose image path leaves its document's
// Root (lexically or through a symbolic link), or a page number that the
// file format cannot hold (outside 32 bits; refused before any model call
// rather than by Save after them).
var ErrDocument = errors.New("graph: invalid document")

var (
	errNoEmbedder   = errors.New("graph: Builder.Embedder is nil")
	errDuplicateDoc = fmt.Errorf("%w: duplicate document ID", ErrDocument)
	errImagePath    = fmt.Errorf("%w: image path escapes the document root", ErrDocument)
)

// Builder builds a content graph from ingested documents: node analysis,
// embedding, reading-order links, symmetric kNN edges and, with a Model,
// LLM evolution rounds (see the package doc). The zero value is not usable:
// set Embedder. Other zero fields mean the defaults of G2-Reader's
// construction.
type Builder struct {
	// Embedder embeds node texts (as llm.KindDocument). Required.
	Embedder llm.Embedder
	// Model analyses nodes (prompts P1/P2) and runs the evolution rounds
	// (P3). Nil means the deterministic offline analysis and no evolution.
	Model llm.Model
	// Cache, when set, stores every model response and embedding (see
	// llm.Middleware.Cache): a re-build of unchanged documents makes
	// no model or embedder calls, and an interrupted build resumes where it
	// stopped. Use llm.DirStore(dir) for an on-disk cache.
	Cache llm.Store
	// Concurrency bounds concurrent model and embedder calls (and kNN
	// workers); 0 means 4.
	Concurrency int
	// Progress, when set, is called after each unit of work of a stage
	// ("analyse", "embed", "evolve 1/3", "knn"), never concurrently.
	Progress func(done, total int, stage string)
	// Window is the reading-order window w: each text node is linked to the
	// next w text nodes of its document; 0 means 3, negative none.
	Window int
	// KNN is the neighbourhood size k of the kNN edges; 0 means
	// clip(⌈log2 N⌉, 3, 32) (paper v3 App. A.1), negative no kNN edges. It
	// is at most N-1.
	KNN int
	// ApproxKNN chooses how the kNN edges (and the evolution rounds'
	// neighbours) are found: 0 means exactly (brute force) up to 10,000
	// nodes and approximately above, with a deterministic HNSW index
	// (Malkov & Yashunin 2020; see the package doc); positive means always
	// approximately, negative always exactly.
	ApproxKNN int
	// Root, when set, makes stored image paths relative to it (the
	// collection root) and becomes the graph's ImageRoot; otherwise they
	// are the document's Root joined with the item's path.
	Root string
	// Rounds is the number of LLM evolution rounds T run when a Model is
	// set; 0 means 3 (paper v1 App. A), negative none. Evolution is a
	// process over the whole collection, so a graph built with rounds
	// cannot be updated (see Update); with none, the model's analysis alone
	// makes the nodes and Update applies.
	Rounds int
	// Int8Embeddings stores the embeddings as int8 with one float32 scale
	// per row (a quarter of float32's memory, in the graph and its file)
	// instead of float32. Each unit row v becomes q = round(127·v/max|v|)
	// scaled back to unit length; kNN edges, edge weights and query scores
	// are computed from these rows, so the build never holds the float32
	// vectors beyond one batch. Update keeps a graph's own format.
	Int8Embeddings bool
	// NoMentionLinks leaves out the Link edges of MentionLinks (a passage
	// that names another's title, two passages that name one entity),
	// which Build adds by default: they are the paths multi-hop questions
	// follow.
	NoMentionLinks bool
}

func (b *Builder) concurrency() int { return defaultInt(b.Concurrency, defaultConcurrency) }

func (b *Builder) rounds() int { return defaultInt(b.Rounds, evolutionRounds) }

// defaultInt returns def for 0, 0 for negative values, v otherwise.
func defaultInt(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// progress serialises Progress callbacks for one stage.
type progress struct {
	mu    sync.Mutex
	fn    func(done, total int, stage string)
	stage string
	done  int
	total int
}

func (b *Builder) stage(name string, total int) *progress {
	p := &progress{fn: b.Progress, stage: name, total: total}
	if p.fn != nil {
		p.fn(0, total, name)
	}
	return p
}

func (p *progress) add(n int) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.fn(p.done, p.total, p.stage)
}

// Build builds the graph of docs. Node order is document order, then item
// order; node IDs are "docID#itemIndex". The result depends only on the
// inputs and the model's and embedder's answers: two builds with the same
// answers are identical (Write gives equal bytes).
func (b *Builder) Build(ctx context.Context, docs []Document) (*Graph, error) {
	if b.Embedder == nil {
		return nil, errNoEmbedder
	}
	// Calls are counted under the cache (a hit costs nothing), unless the
	// caller's wrapper (flowreader's pipeline) counts them already.
	ctx, spent := tally.With(ctx)
	emb, model := b.wrapped()
	nodes, rec, err := b.documents(docs)
	if err != nil {
		return nil, err
	}
	nodes, err = b.analyse(ctx, model, nodes)
	if err != nil {
		return nil, err
	}
	vecs, err := b.embed(ctx, emb, nodes, "embed", 0, b.Int8Embeddings)
	if err != nil {
		return nil, err
	}
	var links [][]int32
	if model != nil && rec.rounds > 0 {
		links, vecs, err = b.evolve(ctx, model, emb, nodes, vecs, rec.rounds)
		if err != nil {
			return nil, err
		}
	}
	edges, err := b.contentEdges(ctx, nodes)
	if err != nil {
		return nil, err
	}
	for i, l := range links {
		for _, j := range l {
			edges = append(edges, Edge{U: int32(i), V: j, Kind: EdgeLink})
		}
	}
	if k := b.knnK(len(nodes)); k > 0 {
		p := b.stage("knn", len(nodes))
		_, span := telemetry.Stage(ctx, "flowreader.build.knn", attribute.Int("flowreader.nodes", len(nodes)), attribute.Int("flowreader.k", k))
		nb, err := b.neighbours(ctx, vecs, len(nodes), k, p)
		telemetry.End(span, err)
		if err != nil {
			return nil, err
		}
		edges = appendKNNEdges(edges, nb, len(nodes), k)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, err := b.finish(nodes, vecs, edges, rec, docs)
	if err != nil {
		return nil, err
	}
	g.Usage = spent.Totals()
	return g, nil
}

// wrapped returns the embedder and model with the cache middleware when
// Cache is set.
func (b *Builder) wrapped() (llm.Embedder, llm.Model) {
	emb, model := b.Embedder, b.Model
	if !telemetry.Wrapped(emb) {
		emb = telemetry.WrapEmbedder(emb, nil)
	}
	if model != nil && !telemetry.Wrapped(model) {
		model = telemetry.WrapModel(model, nil)
	}
	if b.Cache != nil {
		emb = llm.WrapEmbedder(emb, llm.Middleware{Cache: b.Cache})
		if model != nil {
			model = llm.Wrap(model, llm.Middleware{Cache: b.Cache})
		}
	}
	return emb, model
}

// documents turns docs into unanalysed nodes and the build record of b's
// settings and the documents' hashes (node counts are those before
// analysis; finish sets the final ones).
func (b *Builder) documents(docs []Document) ([]Node, *buildRecord, error) {
	nodes, err := b.nodes(docs)
	if err != nil {
		return nil, nil, err
	}
	rec := b.settingsRecord()
	rec.docs = make([]docRecord, len(docs))
	at := 0
	buf := make([]byte, 0, 1<<17)
	for i := range docs {
		m := len(docs[i].Items)
		rec.docs[i] = docRecord{id: docs[i].ID, hash: hashDocument(docs[i].ID, nodes[at:at+m], &buf), nodes: m}
		at += m
	}
	return nodes, rec, nil
}

// analyse runs the model's analysis (P1/P2), or the offline one without a
// model, on nodes; the model may drop text nodes.
func (b *Builder) analyse(ctx context.Context, model llm.Model, nodes []Node) ([]Node, error) {
	if model != nil {
		return b.analyseModel(ctx, model, nodes)
	}
	p := b.stage("analyse", len(nodes))
	for i := range nodes {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		analyseOffline(&nodes[i])
	}
	p.add(len(nodes))
	return nodes, nil
}

// contentEdges returns the edges that depend on the nodes' content alone:
// reading order and, unless NoMentionLinks, MentionLinks.
func (b *Builder) contentEdges(ctx context.Context, nodes []Node) ([]Edge, error) {
	edges := b.orderEdges(nodes)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !b.NoMentionLinks {
		edges = append(edges, MentionLinks(nodes, true)...)
	}
	return edges, nil
}

// knnK is the kNN size k for n nodes (0 for no kNN edges).
func (b *Builder) knnK(n int) int {
	k := b.KNN
	if k == 0 {
		k = knnSize(n)
	}
	if k <= 0 {
		return 0
	}
	return min(k, n-1)
}

// finish makes the graph and records its documents' node counts in rec.
// The embeddings are unit rows from embed, stored as they are.
func (b *Builder) finish(nodes []Node, vecs rows, edges []Edge, rec *buildRecord, docs []Document) (*Graph, error) {
	at := 0
	for i := range rec.docs {
		d := &rec.docs[i]
		d.nodes = 0
		for at < len(nodes) && nodes[at].Doc == d.id {
			d.nodes++
			at++
		}
	}
	g, err := assembleOwned(nodes, vecs, edges)
	if err != nil {
		return nil, err
	}
	g.build = rec
	g.Metadata = metadataOf(docs)
	if nm, ok := b.Embedder.(llm.Namer); ok {
		g.Embedder = nm.Name()
	}
	g.ImageRoot = b.Root
	return g, nil
}

// neighbours returns each node's k nearest other nodes (topK's layout),
// exactly or approximately as ApproxKNN and the node count say, and reports
// the nodes done to p (nil for none).
func (b *Builder) neighbours(ctx context.Context, vecs rows, n, k int, p *progress) ([]int32, error) {
	if b.ApproxKNN > 0 || b.ApproxKNN == 0 && n > exactKNNMax {
		var done func(int)
		if p != nil {
			done = func(d int) { p.add(d) } // insertion; the searches report nothing
		}
		return approxTopK(ctx, vecs, n, k, b.concurrency(), done)
	}
	nb, err := topK(ctx, vecs, n, k, b.concurrency())
	if err == nil && p != nil {
		p.add(n)
	}
	return nb, err
}

// nodes turns documents into unanalysed nodes.
func (b *Builder) nodes(docs []Document) ([]Node, error) {
	seen := make(map[string]bool, len(docs))
	total := 0
	for _, d := range docs {
		if seen[d.ID] {
			return nil, fmt.Errorf("%w: %q", errDuplicateDoc, d.ID)
		}
		seen[d.ID] = true
		total += len(d.Items)
	}
	nodes := make([]Node, 0, total)
	for _, d := range docs {
		for i, it := range d.Items {
			if it.Page < minPage || it.Page > maxPage || it.LastPage > maxPage {
				return nil, fmt.Errorf("%w: document %q item %d: page %d (last %d) outside 32 bits", ErrDocument, d.ID, i, it.Page, it.LastPage)
			}
			n := d.itemNode(i)
			n.Image = nil
			if it.Image != nil {
				ref, err := b.imagePath(d.Root, it.Image)
				if err != nil {
					return nil, fmt.Errorf("document %q item %d: %w", d.ID, i, err)
				}
				n.Image = ref
			}
			nodes = append(nodes, n)
		}
	}
	return nodes, nil
}

// imagePath maps an item's image (relative to the document root) to the
// stored path.
func (b *Builder) imagePath(root string, ref *ImageRef) (*ImageRef, error) {
	rel := filepath.FromSlash(ref.Path)
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%w: %q", errImagePath, ref.Path)
	}
	p := filepath.Join(root, rel)
	if !resolvesInside(root, p) {
		return nil, fmt.Errorf("%w: %q leaves %q through a symbolic link", errImagePath, ref.Path, root)
	}
	if b.Root != "" {
		r, err := filepath.Rel(b.Root, p)
		if err != nil || !filepath.IsLocal(r) {
			return nil, fmt.Errorf("%w: %q is outside Builder.Root %q", errImagePath, p, b.Root)
		}
		p = r
	}
	return &ImageRef{Path: filepath.ToSlash(p), MIME: ref.MIME}, nil
}

// resolvesInside reports whether p, with symbolic links followed, stays
// inside root, so that a link in a document folder cannot make analysis
// read (and send to the model) a file outside it. A path that does not
// resolve is judged by its lexical check alone: nothing can be read there.
func resolvesInside(root, p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true
	}
	if root == "" {
		root = "."
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	r, err := filepath.Rel(realRoot, real)
	return err == nil && filepath.IsLocal(r)
}

// orderEdges links each text node to the next Window text nodes of its
// document (reading order; visual nodes start unlinked, as in G2-Reader).
func (b *Builder) orderEdges(nodes []Node) []Edge {
	w := defaultInt(b.Window, defaultWindow)
	var edges []Edge
	var run []int32 // text nodes of the current document
	doc := ""
	for i := range nodes {
		if nodes[i].Doc != doc {
			doc, run = nodes[i].Doc, run[:0]
		}
		if nodes[i].Modality != ModalityText {
			continue
		}
		for t := max(0, len(run)-w); t < len(run); t++ {
			edges = append(edges, Edge{U: run[t], V: int32(i), Kind: EdgeOrder})
		}
		run = append(run, int32(i))
	}
	return edges
}
