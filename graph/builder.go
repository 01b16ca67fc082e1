package graph

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/flowreader/flowreader/llm"
)

// Builder defaults (METHOD §0).
const (
	// DefaultWindow is the reading-order link window w (v1 App. A).
	DefaultWindow = 3
	// DefaultRounds is the number of evolution rounds T (v1 App. A; v3 P3).
	DefaultRounds = 3
	// DefaultEvolveNeighbours is how many cosine neighbours P3 sees (v1 Eq. 14).
	DefaultEvolveNeighbours = 5
	// DefaultMaxLinks is how many suggested links a node keeps per round.
	DefaultMaxLinks = 5
	// DefaultNeighbourChars bounds each neighbour's content in P3 [proposed:
	// G2 sends whole notes; 2,000 characters keeps 5+ neighbours in context].
	DefaultNeighbourChars = 2000
	// DefaultConcurrency is the number of concurrent model and embedder calls.
	DefaultConcurrency = 4
	// DefaultBatch is the number of texts per embedding call.
	DefaultBatch = 64
	// NoMeaningfulInformation is the P1 marker of chunks to drop.
	NoMeaningfulInformation = "No meaningful information"
)

// Errors returned by Build.
var (
	// ErrNoEmbedder: Builder.Embedder is nil.
	ErrNoEmbedder = errors.New("graph: builder has no embedder")
	// ErrDuplicateDoc: two documents share an ID.
	ErrDuplicateDoc = errors.New("graph: duplicate document ID")
	// ErrImagePath: an item's image path leaves its document's root.
	ErrImagePath = errors.New("graph: image path escapes the document root")
)

// Builder builds a content graph from ingested documents (METHOD §0):
// node analysis, embedding, reading-order links, symmetric kNN edges and,
// with a Model, LLM evolution rounds. The zero value is not usable: set
// Embedder. Other zero fields mean the documented defaults.
type Builder struct {
	// Embedder embeds node texts (as llm.Document). Required.
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
	// workers); 0 means DefaultConcurrency.
	Concurrency int
	// Progress, when set, is called after each unit of work of a stage
	// ("analyse", "embed", "evolve 1/3", "knn"), never concurrently.
	Progress func(done, total int, stage string)
	// Window is the reading-order link window; 0 means 3, negative none.
	Window int
	// Rounds is the number of evolution rounds; 0 means 3, negative none.
	Rounds int
	// EvolveNeighbours is the number of cosine neighbours shown to P3; 0
	// means 5.
	EvolveNeighbours int
	// MaxLinks is how many P3 suggestions a node keeps; 0 means 5.
	MaxLinks int
	// NeighbourChars bounds each neighbour's content in P3; 0 means 2,000.
	NeighbourChars int
	// K overrides the kNN size; 0 means KNNSize(N), negative no kNN edges.
	K int
	// Batch is the number of texts per embedding call; 0 means the
	// embedder's MaxBatch if it has one, else 64.
	Batch int
	// MaxTokens bounds each model answer; 0 means the server default.
	MaxTokens int
	// Root, when set, makes stored image paths relative to it (the
	// collection root); otherwise they are the document's Root joined with
	// the item's path.
	Root string
}

func (b *Builder) concurrency() int { return defaultInt(b.Concurrency, DefaultConcurrency) }

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
		return nil, ErrNoEmbedder
	}
	emb := b.Embedder
	model := b.Model
	if b.Cache != nil {
		emb = llm.WrapEmbedder(emb, llm.Middleware{Cache: b.Cache})
		if model != nil {
			model = llm.Wrap(model, llm.Middleware{Cache: b.Cache})
		}
	}
	nodes, err := b.nodes(docs)
	if err != nil {
		return nil, err
	}
	if model != nil {
		nodes, err = b.analyseModel(ctx, model, nodes)
		if err != nil {
			return nil, err
		}
	} else {
		p := b.stage("analyse", len(nodes))
		for i := range nodes {
			analyseOffline(&nodes[i])
		}
		p.add(len(nodes))
	}
	vecs, dim, err := b.embed(ctx, emb, nodes, "embed", 0)
	if err != nil {
		return nil, err
	}
	var links [][]int32
	if rounds := defaultInt(b.Rounds, DefaultRounds); model != nil && rounds > 0 {
		links, vecs, err = b.evolve(ctx, model, emb, nodes, vecs, dim, rounds)
		if err != nil {
			return nil, err
		}
	}
	edges := b.orderEdges(nodes)
	for i, l := range links {
		for _, j := range l {
			edges = append(edges, Edge{U: int32(i), V: j, Kind: Link})
		}
	}
	k := b.K
	if k == 0 {
		k = KNNSize(len(nodes))
	}
	if k > 0 {
		k = min(k, len(nodes)-1)
		p := b.stage("knn", len(nodes))
		nb, err := topK(ctx, vecs, len(nodes), dim, k, b.concurrency())
		if err != nil {
			return nil, err
		}
		p.add(len(nodes))
		edges = append(edges, knnEdges(nb, len(nodes), k)...)
	}
	g, err := New(nodes, dim, vecs, edges)
	if err != nil {
		return nil, err
	}
	if nm, ok := b.Embedder.(llm.Namer); ok {
		g.Embedder = nm.Name()
	}
	return g, nil
}

// nodes turns documents into unanalysed nodes.
func (b *Builder) nodes(docs []Document) ([]Node, error) {
	seen := make(map[string]bool, len(docs))
	total := 0
	for _, d := range docs {
		if seen[d.ID] {
			return nil, fmt.Errorf("%w: %q", ErrDuplicateDoc, d.ID)
		}
		seen[d.ID] = true
		total += len(d.Items)
	}
	nodes := make([]Node, 0, total)
	for _, d := range docs {
		for i, it := range d.Items {
			n := d.ItemNode(i)
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
		return nil, fmt.Errorf("%w: %q", ErrImagePath, ref.Path)
	}
	p := filepath.Join(root, rel)
	if !resolvesInside(root, p) {
		return nil, fmt.Errorf("%w: %q leaves %q through a symbolic link", ErrImagePath, ref.Path, root)
	}
	if b.Root != "" {
		r, err := filepath.Rel(b.Root, p)
		if err != nil || !filepath.IsLocal(r) {
			return nil, fmt.Errorf("%w: %q is outside Builder.Root %q", ErrImagePath, p, b.Root)
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
// document (reading order; visual nodes start unlinked, METHOD §0).
func (b *Builder) orderEdges(nodes []Node) []Edge {
	w := defaultInt(b.Window, DefaultWindow)
	var edges []Edge
	var run []int32 // text nodes of the current document
	doc := ""
	for i := range nodes {
		if nodes[i].Doc != doc {
			doc, run = nodes[i].Doc, run[:0]
		}
		if nodes[i].Modality != Text {
			continue
		}
		for t := max(0, len(run)-w); t < len(run); t++ {
			edges = append(edges, Edge{U: run[t], V: int32(i), Kind: Order})
		}
		run = append(run, int32(i))
	}
	return edges
}
