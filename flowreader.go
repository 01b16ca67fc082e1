package flowreader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/telemetry"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/score"
	"github.com/flowreader/flowreader/selector"
)

var (
	// ErrConfig is returned by New for an invalid Config; the message names
	// the field.
	ErrConfig = errors.New("flowreader: invalid configuration")
	// ErrNoGraph is returned when a step that needs a graph gets nil or an
	// empty one.
	ErrNoGraph = errors.New("flowreader: no graph (nil or without nodes)")
	// ErrQuestion is returned for an empty question.
	ErrQuestion = errors.New("flowreader: empty question")
	// ErrEvidence is returned by Answer for an Evidence that names a node
	// the index's graph does not have (an index out of range, or another
	// node ID: evidence retrieved from another graph) or a non-finite
	// score.
	ErrEvidence = errors.New("flowreader: evidence does not fit the index's graph")
)

// Config configures a Pipeline. Every field is independent, and the zero
// value of each means the documented default, so the zero Config is the
// default method (paper v3's aspects formulation with the dev-set
// changes: hybrid relevance, the hop step, the budget as demand) with the
// embedded offline models. Every pluggable part is
// an interface; New never modifies a value it is given.
type Config struct {
	// Embedder embeds nodes (llm.KindDocument) and questions (llm.KindQuery). Nil
	// means the embedded offline GloVe embedder (package llm/local), which
	// needs no server and no download; Notes says so.
	Embedder llm.Embedder
	// Model is the (vision-)language model for node analysis at build time
	// and for reading. Nil means the offline defaults: a deterministic
	// analysis at build time and the extractive reader; Notes says so.
	Model llm.Model

	// Scoring configures query scoring; its zero value is score's
	// default: hybrid dense + BM25 relevance and the hop step (passages the
	// question or its most relevant passages name by title inherit
	// relevance; collections without such titles are left as they were).
	Scoring score.Config
	// Router routes the evidence flow. Nil means &flow.Aspects{}, the
	// default aspects router. To use another min-cost flow solver, set the
	// Solver of the router given here.
	Router flow.Router
	// Selector picks the chains to read. Nil means selector.Annealed().
	Selector selector.Selector
	// Budget is K, the read budget (paper v3's read cap, §3.3 and Table 4):
	// one number that bounds both steps after scoring, the router's flow
	// (the aspects router routes for at most K distinct nodes, F_max) and
	// the selector's chains (at most K, selector.Selector's maxChains).
	// 0 means 16.
	Budget int
	// Reranker, when set, reranks the question's most relevant nodes
	// before routing, as a cross-encoder reads each with the question: the
	// top RerankTop nodes by h (ties by index) get ρ_v ∈ [0, 1] on their
	// caption and text (at most 2,000 characters), fused into h as
	//
	//	h̃_v = (1−w)·h_v + w·ρ_v   (ρ_v = 0 for the nodes not reranked)
	//	h'_v = h̃_v · max_u h_u / max_u h̃_u
	//
	// with w = RerankWeight. The rescaling keeps h's scale, which the
	// aspects router's demand floor is set against. h' is the score that
	// routing, selection and reading use and every result reports, and
	// score.Scores.Steps ends in "rerank"; the classic preset's sources and
	// sinks, and h̄, are taken before reranking. A failed rerank call fails
	// the question (llm.WrapReranker adds retries). Nil leaves scoring as
	// it is (llm/openai's Reranker serves vLLM's, TEI's and Infinity's
	// /rerank).
	Reranker llm.Reranker
	// RerankTop is how many nodes are reranked: the top RerankTop by h;
	// 0 means 64.
	RerankTop int
	// RerankWeight is w in the fusion h' ∝ (1−w)·h + w·ρ: 0 means 0.5, 1
	// replaces h by the reranker's ρ (nodes not reranked then drop to 0).
	RerankWeight float64
	// Reader turns chains into an answer. Nil means reader.VLM over Model
	// when a Model is set, with reader.Extractive as its Fallback when the
	// model fails (the answer's Trace says so: ReasonerFallback
	// "fallback" and a Note), else reader.Extractive. A reader.VLM without
	// a Fallback returns the model's failure with the partial answer.
	Reader reader.Reader
	// ClassicPrompts makes the default VLM reader use paper v1's prompts
	// (worker B.2, synthesiser B.3) instead of v3's.
	ClassicPrompts bool
	// System2 runs the dual-process gate and at most one System-2 pass
	// after reading (paper v1 §3.5). It needs a reader that implements
	// reader.Judge (the VLM reader does) and a router whose per-graph
	// router implements flow.Rerouter (both built-in routers do); over the
	// default extractive reader it does not run, and Notes says so.
	System2 bool

	// Concurrency bounds model calls in flight (build and read); 0 means
	// the packages' defaults.
	Concurrency int
	// ImageRoot is the folder that nodes' image paths are relative to (the
	// collection root given to Build, which records it in the graph); the
	// VLM reader loads images from it. "" at question time means the
	// graph's own (graph.Graph.ImageRoot, which graph.Load resolves).
	ImageRoot string
	// Cache, when set, stores model responses and embeddings made during
	// Build (llm.DirStore for a resumable on-disk cache).
	Cache llm.Store
	// Progress, when set, receives build progress.
	Progress func(done, total int, stage string)

	// Logger, when set, receives structured records: builds, their stages
	// and opens at info level, each question's stages and each model and
	// embedding call at debug level, fallbacks at warn level. No prompt,
	// question, document text or key is logged at info level or above. Nil
	// means silent; the default logger of log/slog is never used unless
	// passed here.
	Logger *slog.Logger
	// TracerProvider, when set, receives the spans of Build (and its
	// stages), Open, Score, Route, Select, Answer (the read and the System-2
	// pass) and of every call to Model and Embedder, the latter following
	// the OpenTelemetry GenAI semantic conventions without prompt or
	// response content. Nil means no spans; the global provider is never
	// used unless passed here (otel.GetTracerProvider()).
	TracerProvider trace.TracerProvider
	// MeterProvider, when set, receives the GenAI client metrics
	// gen_ai.client.token.usage and gen_ai.client.operation.duration of
	// the calls to Model and Embedder. Nil means none; the global provider
	// is never used unless passed here.
	MeterProvider metric.MeterProvider
	// Candidates makes each question score, route and select over a
	// candidate subgraph (score.Index.ScoreCandidates) of m dense and m
	// BM25 candidates and their neighbours, at most 8·m nodes: 0 means
	// m = 256 on graphs of 50,000 nodes or more and every node below;
	// positive forces candidates with m = Candidates; negative scores every
	// node. Scores.Candidates then lists the candidates, and node indexes in
	// the Scores, Routing and Chains are of Scores.Graph.
	Candidates int
	// Int8Embeddings makes Build store embeddings as int8 with a scale per
	// row (graph.Builder.Int8Embeddings): a quarter of the memory and file
	// size of float32, for a small change in cosines (docs/scale.md has the
	// measured effect on retrieval). Questions are embedded in float32
	// either way.
	Int8Embeddings bool
}

// PaperAspects is paper v3 as specified; the rest as the zero Config.
// Scoring is v3 §3.1 exactly: r = clip(cos + 0.3·ℓ, 0, 1), h = r / max r;
// no BM25, no hop step. Routing is v3 §3 and App. A exactly: links, kNN
// and reading order ±1; orientation by (h, index); β = 0.3, γ = 0.2,
// binary bridge with cutoff ⌈√N⌉; Δ, ω and node credit on; τ = 0.5,
// F0 ∈ [1, budget] by the participation ratio; η = 0.9; b = 0.634 with
// κ's spreads over every arc; unit capacities; chains kept apart; copies
// routed as separate nodes. Its Scoring and Router are the paper's
// presets for callers of packages score and flow.
func PaperAspects() Config {
	return Config{
		Scoring: score.Config{BM25Weight: -1, RawCosine: true, HopAlpha: -1},
		Router: &flow.Aspects{
			NodeCredit:       true,
			DemandRatio:      true,
			TerminationShare: 0.634,
			PoolEveryArc:     true,
			SplitChains:      true,
			KeepCopies:       true,
		},
	}
}

// Classic is the v1 formulation (paper v1 §3): fused score h, MMR sources,
// answerability sinks, F = 6, entropy-regularised replicator selection of
// at most 11 chains, v1 prompts, and the dual-process gate with one
// System-2 pass. Its scoring is v1 §3.3–3.4: r = 0.5·max(cos,0) +
// 0.5·BM25, edges below 0.22 pruned, φ and ψ, h = 0.5r + 0.3φ + 0.2ψ, 8 MMR
// sources and 8 sinks by answerability; no reference boost, no hop step.
func Classic() Config {
	return Config{
		Scoring: score.Config{
			RefBoost:        -1,
			Fusion:          true,
			RelevanceWeight: 0.5, PropagationWeight: 0.3, DiffusionWeight: 0.2,
			MinEdgeWeight: 0.22,
			Sources:       8,
			Sinks:         8,
			HopAlpha:      -1,
		},
		Router:         &flow.Classic{},
		Selector:       selector.Replicator(),
		Budget:         11,
		ClassicPrompts: true,
		System2:        true,
	}
}

// Pipeline holds the configured parts of the method. Make it with New; it
// is safe for concurrent use. Open binds it to a graph.
type Pipeline struct {
	embedder llm.Embedder
	embed    llm.Embedder // embedder inside the telemetry wrapper
	model    llm.Model    // Config.Model inside the telemetry wrapper
	reranker llm.Reranker // Config.Reranker inside the telemetry wrapper
	obs      *telemetry.Obs
	scoring  score.Config
	router   flow.Router
	selector selector.Selector
	reader   reader.Reader
	judge    reader.Judge // nil: System 2 off
	proposer proposer
	budget   int
	cfg      Config
	notes    []string
}

// New validates cfg and makes a pipeline. Zero fields take their
// documented defaults; an invalid field is an error wrapping ErrConfig that
// names it.
func New(cfg Config) (*Pipeline, error) {
	p := &Pipeline{cfg: cfg, proposer: flowProposer{}, model: cfg.Model, scoring: cfg.Scoring, router: cfg.Router, selector: cfg.Selector, reader: cfg.Reader, budget: cfg.Budget}
	switch {
	case cfg.Budget < 0:
		return nil, fmt.Errorf("%w: Budget %d is negative", ErrConfig, cfg.Budget)
	case cfg.Concurrency < 0:
		return nil, fmt.Errorf("%w: Concurrency %d is negative", ErrConfig, cfg.Concurrency)
	case cfg.RerankTop < 0:
		return nil, fmt.Errorf("%w: RerankTop %d is negative", ErrConfig, cfg.RerankTop)
	case !(cfg.RerankWeight >= 0 && cfg.RerankWeight <= 1):
		return nil, fmt.Errorf("%w: RerankWeight %v is outside [0, 1]", ErrConfig, cfg.RerankWeight)
	}
	if err := p.scoring.Validate(); err != nil {
		return nil, fmt.Errorf("%w: Scoring: %w", ErrConfig, err)
	}
	if p.router == nil {
		p.router = &flow.Aspects{}
	}
	if p.selector == nil {
		p.selector = selector.Annealed()
	}
	if p.budget == 0 {
		p.budget = 16
	}
	p.embedder = cfg.Embedder
	if p.embedder == nil {
		p.embedder = local.Embedder()
		p.notes = append(p.notes, "embedded default embedder: "+p.embedder.(llm.Namer).Name()+" (offline GloVe word vectors, no server)")
	}
	if err := p.observe(); err != nil {
		return nil, err
	}
	if p.reader == nil {
		if cfg.Model != nil {
			// A model that fails (the reasoner, or every worker) leaves the
			// question to the extractive reader over the same chains: an
			// answer marked as the fallback's, with its confidence, rather
			// than none.
			p.reader = &reader.VLM{Model: p.model, Classic: cfg.ClassicPrompts, Concurrency: cfg.Concurrency, ImageRoot: cfg.ImageRoot,
				Fallback: &reader.Extractive{Embedder: p.embed}}
		} else {
			p.reader = &reader.Extractive{Embedder: p.embed}
			p.notes = append(p.notes, "embedded default reader: extractive (no model configured; answers are verbatim spans, not generated)")
		}
	}
	if cfg.System2 {
		j, ok := p.reader.(reader.Judge)
		switch {
		case ok:
			p.judge = j
		case cfg.Reader != nil:
			return nil, fmt.Errorf("%w: System2 needs a Reader that implements reader.Judge; %T does not", ErrConfig, cfg.Reader)
		default:
			p.notes = append(p.notes, "System 2 off: the extractive reader has no model to judge with")
		}
	}
	return p, nil
}

// Embedder returns the embedder in use: Config.Embedder, or the embedded
// default.
func (p *Pipeline) Embedder() llm.Embedder { return p.embedder }

// Notes lists the embedded defaults the pipeline fell back to; empty when
// every part was configured.
func (p *Pipeline) Notes() []string { return append([]string(nil), p.notes...) }

// Build turns ingested documents (package graph/ingest) into a content graph:
// node analysis (with the Model, else offline), embeddings, reading-order,
// kNN and (with a Model) LLM links. Save it with graph.Save; Open binds the
// pipeline to it.
func (p *Pipeline) Build(ctx context.Context, docs []graph.Document) (g *graph.Graph, err error) {
	ctx, done := p.observeBuild(ctx, docs)
	defer func() { done(g, err) }()
	g, err = p.builder(ctx).Build(ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("flowreader: build: %w", err)
	}
	return g, nil
}

// Index is a pipeline bound to one graph (Open) or to one collection of a
// store (OpenStore). Over a graph it owns the graph's scoring index (BM25
// postings, references) and the router's per-graph state, built once by
// Open; over a store it reads each question's candidate subgraph with the
// collection's statistics from the store. Either way it runs the steps of
// the method in process. It is safe for concurrent use; one pipeline may
// hold many Indexes.
type Index struct {
	p      *Pipeline
	g      *graph.Graph // nil over a store
	scores *score.Index
	router flow.GraphRouter
	store  *storeBinding // nil over a graph

	// docs lists each document's nodes (ascending), made for the first
	// filtered question over a graph.
	docsOnce sync.Once
	docs     map[string][]int
}

// Open binds the pipeline to g, doing every question-independent step now
// so that the first question costs what the later ones do. g must not be
// modified afterwards.
func (p *Pipeline) Open(ctx context.Context, g *graph.Graph) (_ *Index, err error) {
	if g == nil || len(g.Nodes) == 0 {
		return nil, ErrNoGraph
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, done := p.observeOpen(ctx, g)
	defer func() { done(err) }()
	// The scoring index and the router's per-graph state are independent:
	// on a large graph each takes seconds, so they are made side by side.
	idx := make(chan *score.Index, 1)
	go func() {
		ix := score.NewIndex(g)
		ix.Prepare(p.scoring)
		idx <- ix
	}()
	gr, err := p.router.Open(ctx, g)
	scores := <-idx
	if err != nil {
		return nil, fmt.Errorf("flowreader: open: %w", err)
	}
	// Questions on this graph are routed on candidate subgraphs: the
	// whole-graph statistics those routers take are computed here, not by
	// the first question.
	if so, ok := gr.(flow.SubgraphOpener); ok && p.candidates(g) > 0 {
		so.PrepareSubgraphs()
	}
	return &Index{p: p, g: g, scores: scores, router: gr}, nil
}

// Load reads a graph file saved with graph.Save, checks that its embeddings
// have the pipeline embedder's dimension (so that questions are not scored
// against vectors of another space), and opens it. An embedder whose
// dimension is unknown until its first call is asked to embed one probe
// text first.
func (p *Pipeline) Load(ctx context.Context, path string) (*Index, error) {
	dim := p.embedder.Dimension()
	if dim <= 0 {
		v, err := p.embed.Embed(ctx, []string{"dimension probe"}, llm.KindQuery)
		if err != nil {
			return nil, fmt.Errorf("flowreader: load: probe embedder dimension: %w", err)
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("flowreader: load: probe embedder dimension: %w", llm.ErrInvalidOutput)
		}
		dim = len(v[0])
	}
	g, err := graph.Load(path)
	if err != nil {
		return nil, fmt.Errorf("flowreader: load: %w", err)
	}
	if g.Dim != dim {
		return nil, fmt.Errorf("flowreader: load: %w: %s has dimension %d (embedder %q), want %d", graph.ErrDimension, path, g.Dim, g.Embedder, dim)
	}
	return p.Open(ctx, g)
}

// Graph returns the graph the index was opened on; nil for an index over
// a store.
func (ix *Index) Graph() *graph.Graph { return ix.g }

// Score embeds the question (as an llm.KindQuery) and scores every node
// (or the candidates, see Config.Candidates): relevance, and the configured
// scoring's further signals. Over a store it scores the candidates it
// reads from the store without their text: Scores.Graph's nodes carry
// their IDs, documents, pages, edges and embeddings, and Select reads the
// text of the chains it picks (Answer that of what it reads), so that a
// question asked step by step reads from the store what Retrieve reads.
func (ix *Index) Score(ctx context.Context, question string) (*score.Scores, error) {
	var s *score.Scores
	err := ix.retry(func() (err error) {
		s, err = ix.score(ctx, question, Filter{})
		return err
	})
	return s, err
}

// retry runs f again, at most storeAttempts times in all, while it fails
// because a node it read was removed meanwhile (an update committed
// during the question: the next attempt reads the new version).
func (ix *Index) retry(f func() error) error {
	var err error
	for range storeAttempts {
		if err = f(); !errors.Is(err, errGone) {
			return err
		}
	}
	return err
}

// score is Score for a question restricted to the documents f passes,
// without reading a store's node text (but for the reranker's).
func (ix *Index) score(ctx context.Context, question string, f Filter) (_ *score.Scores, err error) {
	if strings.TrimSpace(question) == "" {
		return nil, ErrQuestion
	}
	ctx, span := ix.p.obs.Start(ctx, "flowreader.score")
	defer func() { telemetry.End(span, err) }()
	vs, err := ix.p.embed.Embed(ctx, []string{question}, llm.KindQuery)
	if err != nil {
		return nil, fmt.Errorf("flowreader: score: embedding the question: %w", err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("flowreader: score: %w: %d vectors for 1 question", llm.ErrInvalidOutput, len(vs))
	}
	q := score.Query{Text: question, Embedding: vs[0]}
	var s *score.Scores
	switch {
	case ix.store != nil:
		if s, err = ix.scoreStore(ctx, q, f); err != nil {
			return nil, err
		}
	default:
		if !f.empty() {
			q.Nodes = ix.filterNodes(f)
		}
		if m := ix.p.candidates(ix.g); m > 0 {
			s, err = ix.scores.ScoreCandidates(ix.p.scoring, q, m)
		} else {
			s, err = ix.scores.Score(ix.p.scoring, q)
		}
		if err != nil {
			return nil, fmt.Errorf("flowreader: score: %w", err)
		}
	}
	if err := ix.rerank(ctx, s); err != nil {
		return nil, err
	}
	if ix.store != nil && len(s.Graph.Nodes) > 0 {
		// The subgraph's content classes (graph.Graph.Copies) are the
		// store's (score.Candidates.Copies), set when it was scored; a
		// store that keeps none leaves them to be found from the
		// subgraph's text on first use, into which Select writes text
		// later. Found now, from the text it holds before any Select
		// (none, or the reranker's), they are the same whenever Route
		// runs, and no Route reads text a Select is writing.
		s.Graph.Copies(0)
	}
	return s, nil
}

// Route routes the evidence flow for the scores of one question and
// decomposes it into chains, with Config.Budget.
func (ix *Index) Route(ctx context.Context, s *score.Scores) (*flow.Routing, error) {
	return ix.route(ctx, s, ix.p.budget)
}

func (ix *Index) route(ctx context.Context, s *score.Scores, budget int) (_ *flow.Routing, err error) {
	ctx, done := ix.observeRoute(ctx, budget)
	defer func() { done(err) }()
	gr, err := ix.routerOf(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("flowreader: route: %w", err)
	}
	r, err := gr.Route(ctx, s, budget)
	if err != nil {
		return nil, fmt.Errorf("flowreader: route: %w", err)
	}
	return r, nil
}

// Select picks the chains to read from a routing (at most Config.Budget).
// It stops with ctx.Err() when ctx is done first. Over a store it reads
// the text of the chains' nodes into r.Scores.Graph; a node an update
// removed since Score read it is an error wrapping ErrEvidence (the
// question is then asked again, on the new version), and so is a routing
// of scores another index made.
func (ix *Index) Select(ctx context.Context, r *flow.Routing) ([]flow.Chain, error) {
	if ix.store != nil && r != nil && r.Scores != nil && ix.question(r.Scores) == nil {
		// Its text is read through the scores' record, which only the
		// index that made them holds (Route refuses such scores too).
		return nil, fmt.Errorf("flowreader: select: %w: a routing of scores this index did not make", ErrEvidence)
	}
	chains, err := ix.observeSelect(ctx, r, ix.p.budget)
	if err != nil || r == nil {
		return chains, err
	}
	if err := ix.withText(ctx, r.Scores, chainNodes(chains)); err != nil {
		if errors.Is(err, errGone) {
			return nil, fmt.Errorf("flowreader: select: %w: %w", ErrEvidence, err)
		}
		return nil, fmt.Errorf("flowreader: select: %w", err)
	}
	return chains, nil
}

func (ix *Index) sel(ctx context.Context, r *flow.Routing, budget int) ([]flow.Chain, error) {
	if r == nil {
		return nil, nil
	}
	chains, err := ix.p.selector.Select(ctx, r, budget)
	if err != nil {
		return nil, fmt.Errorf("flowreader: select: %w", err)
	}
	return chains, nil
}

// Result is everything Answer (and so Ask) produced: the answer and the
// values that explain it. Its JSON form ([Result.MarshalJSON]) is the
// contract of the CLI's ask --json and of the server's /v1/ask. Node
// indexes in the answer (citations, drafts) and in Evidence are of the
// index's graph; those in Scores, Routing and System2's routing and chains
// are of the graph the steps ran on (Scores.Graph, the candidate subgraph,
// when there is one).
type Result struct {
	// Answer is the reader's answer; never nil in a Result, even a partial
	// one (then it holds what the reader did before it failed, or nothing).
	*reader.Answer
	// Evidence is what was read: the chains with their nodes' text,
	// scores and provenance, and the routing summary.
	Evidence *Evidence
	// Scores and Routing are the steps' values behind the evidence; nil
	// when the evidence was decoded from JSON.
	Scores  *score.Scores
	Routing *flow.Routing
	// System2 is the account of the gate and the System-2 pass; nil when
	// System 2 is off.
	System2 *System2
	// Notes lists the embedded defaults used (empty when every part was
	// configured); show them to users so that offline answers are not
	// mistaken for model answers.
	Notes []string
	// Stages is the wall time of each step done: the evidence's (score,
	// route, select) and answer.
	Stages map[string]time.Duration
	// Usage counts the calls made through the pipeline's Model and
	// Embedder for this result, with their tokens: by Ask, the question's
	// embedding, the reading and System 2; by Answer, the latter two.
	Usage llm.Totals

	stream *streamer // Options.Stream, told of the steps
}

// Answer reads the evidence and answers its question: the chains of
// ev.Chains as they are (a caller may drop chains or nodes first, and the
// reader reads what is left), each node's relevance its
// EvidenceNode.Score. With System 2 on, the gate may then trigger one
// System-2 pass (re-route, re-select, re-read), which needs the steps'
// state an Evidence decoded from JSON does not carry (see [Evidence]).
// With no chains, the answer is empty and says why, and no model call is
// spent.
//
// When reading fails or the context is cancelled, Answer returns a partial
// Result with the error: the evidence, and in Result.Answer what the reader
// did before it stopped (its drafts, and in Trace the calls made and tokens
// spent, when the reader reports them; see [reader.Reader]), and the
// System-2 account so far; over a store, when the evidence's text cannot be
// read (the store out of reach, ctx done), the Result holds the evidence
// and nothing read. Invalid input gives a nil Result: a nil
// Evidence or an empty question (ErrQuestion), or a node that is not the
// index's graph's (ErrEvidence).
func (ix *Index) Answer(ctx context.Context, ev *Evidence) (res *Result, err error) {
	if ev == nil || strings.TrimSpace(ev.Question) == "" {
		return nil, ErrQuestion
	}
	rd, err := ix.reading(ctx, ev)
	if err != nil {
		if errors.Is(err, ErrEvidence) {
			return nil, err
		}
		// The store out of reach or ctx done while reading the
		// evidence's text: nothing was read, the evidence stands.
		return ix.result(ev), err
	}
	res = ix.result(ev)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	ctx, done := ix.observeAnswer(ctx, len(rd.chains))
	defer func() { done(res, err) }()
	res.stream = newStreamer(ev.stream, rd)
	res.stream.evidence(ev)
	t := time.Now()
	in := &reader.Input{Question: ev.Question, Graph: rd.g, Chains: rd.chains, Relevance: rd.rel}
	res.stream.hook(in, 1)
	a, err := ix.read(ctx, in)
	if a != nil {
		res.Answer = a
	}
	if err == nil {
		res.stream.read(a, 1)
	}
	if err == nil && ix.p.judge != nil && len(rd.chains) > 0 {
		err = ix.observeSystem2(ctx, ev, rd, res)
	}
	// Every answer in the result names nodes of the index's graph.
	rd.toIndex(res.Answer)
	ix.citeCopies(rd, ev, res.Answer)
	if tr := res.System2; tr != nil {
		if tr.System1 != nil && tr.System1 != res.Answer {
			rd.toIndex(tr.System1)
			ix.citeCopies(rd, ev, tr.System1)
		}
		if tr.Answer != nil && tr.Answer != res.Answer && tr.Answer != tr.System1 {
			rd.toIndex(tr.Answer)
			ix.citeCopies(rd, ev, tr.Answer)
		}
	}
	if err != nil {
		return res, fmt.Errorf("flowreader: answer: %w", err)
	}
	res.Stages["answer"] = time.Since(t)
	res.stream.done(res)
	return res, nil
}

// result is the Result of ev before reading.
func (ix *Index) result(ev *Evidence) *Result {
	return &Result{Answer: &reader.Answer{}, Evidence: ev, Scores: ev.scores, Routing: ev.routing,
		Notes: ix.p.Notes(), Stages: maps.Clone(ev.Stages)}
}

// Ask answers one question: [Index.Retrieve], then [Index.Answer] over the
// evidence.
//
// The error contract: for an empty question (ErrQuestion) or bad options
// (ErrConfig) the Result is nil; on any later failure, a failed model call
// or a cancelled context, the Result is non-nil alongside the error and
// holds what was done: Stages of the steps completed, the evidence, and the
// reader's partial answer with its calls and tokens (see [Index.Answer]).
func (ix *Index) Ask(ctx context.Context, question string, o Options) (res *Result, err error) {
	ctx, done := ix.observeAsk(ctx)
	defer func() { done(res, err) }()
	ev, err := ix.Retrieve(ctx, question, o)
	if err != nil {
		if ev == nil {
			return nil, err
		}
		return ix.result(ev), err
	}
	return ix.Answer(ctx, ev)
}
