package flowreader

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/score"
	"github.com/flowreader/flowreader/selector"
)

// ErrNoGraph is returned when a step that needs a graph gets nil or an empty one.
var ErrNoGraph = errors.New("flowreader: no graph (nil or without nodes)")

// ErrQuestion is returned for an empty question.
var ErrQuestion = errors.New("flowreader: empty question")

// Config configures a Pipeline. Start from a preset (Aspects, AspectsPaper or
// Classic) and replace what you need. Every pluggable part is an interface;
// nil means the documented default.
type Config struct {
	// Preset names the preset the config came from ("aspects",
	// "aspects-paper", "classic"); informational, shown in traces.
	Preset string

	// Embedder embeds nodes (Document kind) and questions (Query kind). Nil
	// means the embedded offline GloVe embedder (package llm/local), which
	// needs no server and no download; the answer's notes say so.
	Embedder llm.Embedder
	// Model is the (vision-)language model for node analysis, evolution
	// rounds, workers and the reasoner. Nil means the offline defaults: a
	// deterministic analysis at build time and the extractive reader at
	// answer time; the answer's notes say so.
	Model llm.Model

	// Score configures query scoring (package score).
	Score score.Config
	// Router routes the evidence flow. Nil means the preset's router.
	Router flow.Router
	// Solver, when set, replaces the min-cost flow solver of the preset's
	// router (ignored when Router is set: configure that router directly).
	Solver mcf.Solver
	// Selector picks the chains to read. Nil means the preset's selector.
	Selector selector.Selector
	// Budget is the number of chains read (aspects: 16; classic: 11). With
	// the default aspects router (demand rule DemandBudget) it is also the
	// flow's demand.
	Budget int
	// Reader turns chains into an answer. Nil means reader.VLM over Model
	// when a Model is set, else reader.Extractive.
	Reader reader.Reader
	// System2 switches the dual-process gate and its one System-2 pass for
	// the default VLM reader (Auto: on for classic, off for aspects).
	System2 reader.Switch
	// Concurrency bounds model calls in flight (build and read); 0 means the
	// packages' defaults.
	Concurrency int
	// ImageRoot is the folder that nodes' image paths are relative to (the
	// collection root given to Build); the VLM reader loads images from it.
	ImageRoot string

	// Cache, when set, stores model responses and embeddings made during
	// Build (llm.DirStore for a resumable on-disk cache).
	Cache llm.Store
	// Progress, when set, receives build progress.
	Progress func(done, total int, stage string)
}

// Aspects is the default preset: the v3 aspect formulation with the changes
// measured on the dev data (hybrid dense + BM25 relevance; routing from
// flow.DefaultAspects: demand = the read budget, no node credit, b = 0.2;
// see the README's configuration table), annealed replicator selection of
// 16 chains, no System 2. flowreader eval's "aspects" router is this preset.
func Aspects() Config {
	return Config{
		Preset:   "aspects",
		Score:    score.AspectsConfig(),
		Router:   flow.DefaultAspects(),
		Selector: selector.Annealed{},
		Budget:   16,
		System2:  reader.Auto,
	}
}

// AspectsPaper is METHOD B exactly: the paper's v3 as specified (dense-only
// relevance with the reference boost, spectral aspects, κ from b = 0.634).
func AspectsPaper() Config {
	c := Aspects()
	c.Preset = "aspects-paper"
	c.Score = score.AspectsPaperConfig()
	c.Router = flow.PaperAspects()
	return c
}

// Classic is the v1 formulation: fused score h, MMR sources, answerability
// sinks, F = 6, entropy-regularised replicator selection of at most 11
// paths, and the dual-process gate with one System-2 pass.
func Classic() Config {
	return Config{
		Preset:   "classic",
		Score:    score.ClassicConfig(),
		Router:   flow.DefaultClassic(),
		Selector: selector.Replicator{},
		Budget:   11,
		System2:  reader.Auto,
	}
}

// Pipeline runs the five steps of the method over one configuration. Make it
// with New; it is safe for concurrent use (many questions at once on one
// graph).
type Pipeline struct {
	cfg      Config
	embedder llm.Embedder
	scoring  score.Config // cfg.Score, or score.AspectsConfig() when zero
	// ix is the score index of ixGraph, the last graph scored (built
	// again when another graph comes).
	ixMu     sync.Mutex
	ixGraph  *graph.Graph
	ix       *score.Index
	router   flow.Router
	selector selector.Selector
	reader   reader.Reader
	notes    []string
}

// New makes a pipeline. A zero Config is the Aspects preset with the embedded
// offline defaults.
func New(cfg Config) (*Pipeline, error) {
	if cfg.Preset == "" && cfg.Router == nil && cfg.Selector == nil && cfg.Budget == 0 {
		base := Aspects()
		base.Embedder, base.Model, base.Reader = cfg.Embedder, cfg.Model, cfg.Reader
		base.Cache, base.Progress, base.Concurrency, base.ImageRoot = cfg.Cache, cfg.Progress, cfg.Concurrency, cfg.ImageRoot
		cfg = base
	}
	p := &Pipeline{cfg: cfg}
	p.embedder = cfg.Embedder
	if p.embedder == nil {
		g := local.Embedder()
		p.embedder = g
		p.notes = append(p.notes, "embedded default embedder: "+g.Name()+" (offline GloVe word vectors, no server)")
	}
	p.router = cfg.Router
	if p.router == nil {
		switch cfg.Preset {
		case "classic":
			p.router = flow.DefaultClassic()
		case "aspects-paper":
			p.router = flow.PaperAspects()
		default:
			p.router = flow.DefaultAspects()
		}
	}
	if cfg.Solver != nil && cfg.Router == nil {
		switch r := p.router.(type) {
		case *flow.Aspects:
			r.Solver = cfg.Solver
		case *flow.Classic:
			r.Solver = cfg.Solver
		}
	}
	// Under the budget demand rule the aspects router routes as many units
	// as the reader will read: keep the two in step when Budget was changed
	// (on a copy, so that a router shared with other pipelines is untouched).
	if a, ok := p.router.(*flow.Aspects); ok && cfg.Budget > 0 && a.DemandRule == flow.DemandBudget && a.FMax != float64(cfg.Budget) {
		c := *a
		c.FMax = float64(cfg.Budget)
		if c.FMin > c.FMax {
			c.FMin = c.FMax
		}
		p.router = &c
	}
	p.scoring = cfg.Score
	if p.scoring == (score.Config{}) {
		p.scoring = score.AspectsConfig()
	}
	if c, ok := p.router.(*flow.Classic); ok && c.KeepEdge == nil {
		rmin := float32(p.scoring.MinEdgeWeight) // prune as scoring does
		c.KeepEdge = func(w float32) bool { return w >= rmin }
	}
	p.selector = cfg.Selector
	if p.selector == nil {
		p.selector = selector.Greedy{}
	}
	p.reader = cfg.Reader
	if p.reader == nil {
		if cfg.Model != nil {
			v := &reader.VLM{
				Model:       cfg.Model,
				Preset:      reader.Aspects,
				Concurrency: cfg.Concurrency,
				ImageRoot:   cfg.ImageRoot,
				System2:     cfg.System2,
				Selector:    p.selector,
				Budget:      cfg.Budget,
			}
			if cfg.Preset == "classic" {
				v.Preset = reader.Classic
			}
			if rr, ok := p.router.(flow.Rerouter); ok {
				v.Rerouter = rr
			}
			p.reader = v
		} else {
			p.reader = &reader.Extractive{Embedder: p.embedder}
			p.notes = append(p.notes, "embedded default reader: extractive (no model configured; answers are verbatim spans, not generated)")
		}
	}
	return p, nil
}

// Config returns the pipeline's configuration.
func (p *Pipeline) Config() Config { return p.cfg }

// Embedder returns the embedder in use (the embedded default when none was
// configured).
func (p *Pipeline) Embedder() llm.Embedder { return p.embedder }

// Notes lists the embedded defaults the pipeline fell back to; empty when
// every part was configured.
func (p *Pipeline) Notes() []string { return append([]string(nil), p.notes...) }

// Build turns ingested documents (package graph/ingest) into a content graph:
// node analysis (with the Model, else offline), embeddings, reading-order,
// kNN and (with a Model) LLM links. Save the result with graph.Save.
func (p *Pipeline) Build(ctx context.Context, docs []graph.Document) (*graph.Graph, error) {
	b := &graph.Builder{
		Embedder:    p.embedder,
		Model:       p.cfg.Model,
		Cache:       p.cfg.Cache,
		Concurrency: p.cfg.Concurrency,
		Progress:    p.cfg.Progress,
		Root:        p.cfg.ImageRoot,
	}
	g, err := b.Build(ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("flowreader: build: %w", err)
	}
	if err := p.prepare(ctx, g); err != nil {
		return nil, fmt.Errorf("flowreader: build: %w", err)
	}
	return g, nil
}

// prepare lets the router do its per-graph work now (flow.Preparer), so
// that the first question costs what the later ones do.
func (p *Pipeline) prepare(ctx context.Context, g *graph.Graph) error {
	if pr, ok := p.router.(flow.Preparer); ok && g.Len() > 0 {
		return pr.Prepare(ctx, g)
	}
	return nil
}

// Load reads a graph file saved with graph.Save and checks that its
// embeddings have the pipeline embedder's dimension, so that questions are
// not scored against vectors of another space. An embedder whose dimension
// is unknown until its first call (llm.EmbedderFunc) is asked to embed one
// probe text first. A router with per-graph work (flow.Preparer) does it
// here, as it does after Build.
func (p *Pipeline) Load(ctx context.Context, path string) (*graph.Graph, error) {
	dim := p.embedder.Dimension()
	if dim <= 0 {
		v, err := p.embedder.Embed(ctx, []string{"dimension probe"}, llm.Query)
		if err != nil {
			return nil, fmt.Errorf("flowreader: load: probe embedder dimension: %w", err)
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("flowreader: load: probe embedder dimension: %w", llm.ErrInvalidOutput)
		}
		dim = len(v[0])
	}
	g, err := graph.LoadDim(path, dim)
	if err != nil {
		return nil, fmt.Errorf("flowreader: load: %w", err)
	}
	if err := p.prepare(ctx, g); err != nil {
		return nil, fmt.Errorf("flowreader: load: %w", err)
	}
	return g, nil
}

// Score scores every node of g for the question (relevance, and the
// preset's further signals).
func (p *Pipeline) Score(ctx context.Context, g *graph.Graph, question string) (*score.Scores, error) {
	if g == nil || g.Len() == 0 {
		return nil, ErrNoGraph
	}
	if strings.TrimSpace(question) == "" {
		return nil, ErrQuestion
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	vs, err := p.embedder.Embed(ctx, []string{question}, llm.Query)
	if err != nil {
		return nil, fmt.Errorf("flowreader: score: embedding the question: %w", err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("flowreader: score: the embedder returned %d vectors for 1 question", len(vs))
	}
	s, err := p.index(g).Score(p.scoring, score.Query{Text: question, Embedding: vs[0]})
	if err != nil {
		return nil, fmt.Errorf("flowreader: score: %w", err)
	}
	return s, nil
}

// index returns the score index of g, building it when g is not the graph
// scored last.
func (p *Pipeline) index(g *graph.Graph) *score.Index {
	p.ixMu.Lock()
	defer p.ixMu.Unlock()
	if p.ixGraph != g {
		p.ixGraph, p.ix = g, score.NewIndex(g)
	}
	return p.ix
}

// Route routes the evidence flow for scored nodes and decomposes it into
// chains.
func (p *Pipeline) Route(ctx context.Context, g *graph.Graph, s *score.Scores) (*flow.Routing, error) {
	if g == nil || g.Len() == 0 {
		return nil, ErrNoGraph
	}
	r, err := p.router.Route(ctx, g, s)
	if err != nil {
		return nil, fmt.Errorf("flowreader: route: %w", err)
	}
	return r, nil
}

// Select picks the chains to read from a routing (the preset's budget).
func (p *Pipeline) Select(r *flow.Routing) []flow.Chain {
	if r == nil {
		return nil
	}
	return p.selector.Select(r, p.cfg.Budget)
}

// Answer reads the selected chains and answers the question. The routing
// and scores are needed for the gate and System 2; the default VLM reader
// runs them when enabled.
func (p *Pipeline) Answer(ctx context.Context, g *graph.Graph, question string, s *score.Scores, r *flow.Routing, chains []flow.Chain) (*reader.Answer, error) {
	if g == nil || g.Len() == 0 {
		return nil, ErrNoGraph
	}
	if len(chains) == 0 {
		// Nothing was routed: no node is relevant to the question (for
		// example a question of punctuation, or one whose words no node
		// shares while every cosine is zero). That is an answer, not an
		// error: an empty one that says why, with no model call spent.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a := &reader.Answer{Trace: reader.Trace{Reader: p.readerKind(), Saturation: 1, Consistency: 1,
			Note: "no evidence: routing selected no chain (no node is relevant to the question)"}}
		if r != nil {
			a.Trace.Router, a.Trace.Saturation = r.Router, r.Saturation
		}
		return a, nil
	}
	a, err := p.reader.Read(ctx, &reader.Input{Question: question, Graph: g, Scores: s, Routing: r, Chains: chains})
	if err != nil {
		return nil, fmt.Errorf("flowreader: answer: %w", err)
	}
	return a, nil
}

// readerKind names the reader for traces: "extractive", "vlm" or, for a
// user's own reader, "custom".
func (p *Pipeline) readerKind() string {
	switch p.reader.(type) {
	case *reader.Extractive:
		return "extractive"
	case *reader.VLM:
		return "vlm"
	}
	return "custom"
}

// Result is everything Ask produced: the answer and the intermediate values
// that explain it.
type Result struct {
	*reader.Answer
	Scores  *score.Scores
	Routing *flow.Routing
	Chains  []flow.Chain
	// Notes lists the embedded defaults used (empty when every part was
	// configured); show them to users so that offline answers are not
	// mistaken for model answers.
	Notes []string
	// Stages is the wall time of score, route, select and answer.
	Stages map[string]time.Duration
}

// Ask runs Score, Route, Select and Answer for one question. With the
// default VLM reader and System 2 enabled, the gate may trigger at most one
// System-2 pass (inside Answer).
func (p *Pipeline) Ask(ctx context.Context, g *graph.Graph, question string) (*Result, error) {
	res := &Result{Notes: p.Notes(), Stages: map[string]time.Duration{}}
	t := time.Now()
	lap := func(stage string) {
		now := time.Now()
		res.Stages[stage] = now.Sub(t)
		t = now
	}
	var err error
	if res.Scores, err = p.Score(ctx, g, question); err != nil {
		return nil, err
	}
	lap("score")
	if res.Routing, err = p.Route(ctx, g, res.Scores); err != nil {
		return nil, err
	}
	lap("route")
	res.Chains = p.Select(res.Routing)
	lap("select")
	if res.Answer, err = p.Answer(ctx, g, question, res.Scores, res.Routing, res.Chains); err != nil {
		return nil, err
	}
	lap("answer")
	return res, nil
}
