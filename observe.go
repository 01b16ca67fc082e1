package flowreader

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/internal/telemetry"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/reader"
)

// Observability: Config.Logger, TracerProvider and MeterProvider. Every
// hook here costs a nil check when they are unset (docs/observability.md
// measures it); the counting of calls and tokens (Result.Usage,
// graph.Graph.Usage) is always on.

// Span attribute keys of flowreader's own spans.
const (
	attrDocuments = "flowreader.documents"
	attrNodes     = "flowreader.nodes"
	attrEdges     = "flowreader.edges"
	attrChains    = "flowreader.chains"
	attrBudget    = "flowreader.budget"
	attrRouter    = "flowreader.router"
	attrCalls     = "flowreader.calls"
	attrInTokens  = "flowreader.usage.input_tokens"
	attrOutTokens = "flowreader.usage.output_tokens"
	attrEmbTokens = "flowreader.usage.embedding_tokens"
	// attrRerankCalls and attrRerankTokens count Config.Reranker's calls
	// and the tokens it reports.
	attrRerankCalls  = "flowreader.usage.rerank_calls"
	attrRerankTokens = "flowreader.usage.rerank_tokens"
)

// noSpan is the non-recording span used when tracing is off.
var noSpan = trace.SpanFromContext(context.Background())

// observe sets up the pipeline's observability from its Config and wraps
// the model and the embedder, so that the calls of user models are traced
// and counted too.
func (p *Pipeline) observe() error {
	o, err := telemetry.New(p.cfg.TracerProvider, p.cfg.MeterProvider, p.cfg.Logger)
	if err != nil {
		return fmt.Errorf("%w: MeterProvider: %w", ErrConfig, err)
	}
	p.obs = o
	p.embed = telemetry.WrapEmbedder(p.embedder, o)
	if p.cfg.Model != nil {
		p.model = telemetry.WrapModel(p.cfg.Model, o)
	}
	if p.cfg.Reranker != nil {
		p.reranker = telemetry.WrapReranker(p.cfg.Reranker, o)
	}
	if l := o.Logger(); l != nil {
		for _, n := range p.notes {
			l.Info("flowreader: default in use", "note", n)
		}
	}
	return nil
}

func usageAttrs(u llm.Totals) []attribute.KeyValue {
	a := []attribute.KeyValue{
		attribute.Int(attrCalls, u.Calls),
		attribute.Int(attrInTokens, u.PromptTokens),
		attribute.Int(attrOutTokens, u.CompletionTokens),
		attribute.Int(attrEmbTokens, u.EmbedTokens),
	}
	if u.RerankCalls > 0 {
		a = append(a, attribute.Int(attrRerankCalls, u.RerankCalls), attribute.Int(attrRerankTokens, u.RerankTokens))
	}
	return a
}

func usageLog(u llm.Totals) slog.Attr {
	return slog.Group("usage", "calls", u.Calls, "input_tokens", u.PromptTokens,
		"output_tokens", u.CompletionTokens, "embed_calls", u.EmbedCalls, "embed_tokens", u.EmbedTokens)
}

// observeBuild opens the build's span and logs its start; done ends both.
func (p *Pipeline) observeBuild(ctx context.Context, docs []graph.Document) (context.Context, func(*graph.Graph, error)) {
	if !p.obs.Tracing() && p.obs.Logger() == nil {
		return ctx, func(*graph.Graph, error) {}
	}
	start := time.Now()
	ctx, span := p.obs.Start(ctx, "flowreader.build", attribute.Int(attrDocuments, len(docs)))
	ctx = p.obs.WithLogger(ctx)
	l := p.obs.Logger()
	if l != nil {
		l.InfoContext(ctx, "flowreader: build", "documents", len(docs))
	}
	return ctx, func(g *graph.Graph, err error) {
		if g != nil {
			span.SetAttributes(attribute.Int(attrNodes, len(g.Nodes)), attribute.Int(attrEdges, len(g.Edges)))
			span.SetAttributes(usageAttrs(g.Usage)...)
		}
		telemetry.End(span, err)
		if l == nil {
			return
		}
		if err != nil {
			l.InfoContext(ctx, "flowreader: build failed", telemetry.ErrorAttr(err), "duration", time.Since(start))
			l.DebugContext(ctx, "flowreader: build error", "error", err)
			return
		}
		l.InfoContext(ctx, "flowreader: build done", "nodes", len(g.Nodes), "edges", len(g.Edges),
			"embedder", g.Embedder, "dimension", g.Dim, usageLog(g.Usage), "duration", time.Since(start))
	}
}

// progress is Config.Progress, with each build stage's start logged.
func (p *Pipeline) progress(ctx context.Context) func(done, total int, stage string) {
	l, fn := p.obs.Logger(), p.cfg.Progress
	if l == nil {
		return fn
	}
	return func(done, total int, stage string) {
		if done == 0 {
			l.InfoContext(ctx, "flowreader: build stage", "stage", stage, "total", total)
		}
		if fn != nil {
			fn(done, total, stage)
		}
	}
}

// observeOpen opens the span of Open and logs it.
func (p *Pipeline) observeOpen(ctx context.Context, g *graph.Graph) (context.Context, func(error)) {
	if !p.obs.Tracing() && p.obs.Logger() == nil {
		return ctx, func(error) {}
	}
	start := time.Now()
	ctx, span := p.obs.Start(ctx, "flowreader.open", attribute.Int(attrNodes, len(g.Nodes)), attribute.Int(attrEdges, len(g.Edges)))
	return ctx, func(err error) {
		telemetry.End(span, err)
		if l := p.obs.Logger(); l != nil {
			if err != nil {
				l.InfoContext(ctx, "flowreader: open failed", telemetry.ErrorAttr(err))
				l.DebugContext(ctx, "flowreader: open error", "error", err)
				return
			}
			l.InfoContext(ctx, "flowreader: open", "nodes", len(g.Nodes), "edges", len(g.Edges),
				"embedder", g.Embedder, "dimension", g.Dim, "duration", time.Since(start))
		}
	}
}

// observeAsk opens the span of Ask and the tally of its calls; done fills
// Result.Usage and logs the question's stages at debug level.
func (ix *Index) observeAsk(ctx context.Context) (context.Context, func(*Result, error)) {
	ctx, t := tally.With(ctx)
	o := ix.p.obs
	span := noSpan
	if o.Tracing() {
		ctx, span = o.Start(ctx, "flowreader.ask", attribute.Int(attrBudget, ix.p.budget))
	}
	ctx = o.WithLogger(ctx)
	return ctx, func(res *Result, err error) {
		u := t.Totals()
		if res != nil {
			res.Usage = u
		}
		if span.IsRecording() {
			span.SetAttributes(usageAttrs(u)...)
			if res != nil {
				span.SetAttributes(attribute.Int(attrChains, len(res.Evidence.Chains)))
			}
		}
		telemetry.End(span, err)
		l := o.Logger()
		if l == nil || !l.Enabled(ctx, slog.LevelDebug) {
			return
		}
		if err != nil {
			l.DebugContext(ctx, "flowreader: question failed", "error", err, usageLog(u))
			return
		}
		stages := make([]any, 0, len(res.Stages))
		for _, k := range []string{"score", "route", "select", "answer"} {
			if d, ok := res.Stages[k]; ok {
				stages = append(stages, slog.Duration(k, d))
			}
		}
		l.DebugContext(ctx, "flowreader: question answered", slog.Group("stages", stages...),
			"chains", len(res.Evidence.Chains), "citations", len(res.Citations), usageLog(u))
	}
}

// observeRoute opens the span of Route.
func (ix *Index) observeRoute(ctx context.Context, budget int) (context.Context, func(error)) {
	if !ix.p.obs.Tracing() {
		return ctx, func(error) {}
	}
	ctx, span := ix.p.obs.Start(ctx, "flowreader.route", attribute.Int(attrBudget, budget))
	return ctx, func(err error) { telemetry.End(span, err) }
}

// observeSelect is Select in a span.
func (ix *Index) observeSelect(ctx context.Context, r *flow.Routing, budget int) (_ []flow.Chain, err error) {
	ctx, span := ix.p.obs.Start(ctx, "flowreader.select")
	defer func() { telemetry.End(span, err) }()
	chains, err := ix.sel(ctx, r, budget)
	if span.IsRecording() {
		span.SetAttributes(attribute.Int(attrChains, len(chains)))
	}
	return chains, err
}

// observeAnswer opens the span and the tally of Answer.
func (ix *Index) observeAnswer(ctx context.Context, chains int) (context.Context, func(*Result, error)) {
	ctx, t := tally.With(ctx)
	span := noSpan
	if ix.p.obs.Tracing() {
		ctx, span = ix.p.obs.Start(ctx, "flowreader.answer", attribute.Int(attrChains, chains))
	}
	return ctx, func(res *Result, err error) {
		if res != nil {
			res.Usage = t.Totals()
		}
		if span.IsRecording() {
			span.SetAttributes(usageAttrs(t.Totals())...)
		}
		telemetry.End(span, err)
	}
}

// read runs the reader in a span and warns of the chains whose worker
// call failed (they are dropped from the answer).
func (ix *Index) read(ctx context.Context, in *reader.Input) (*reader.Answer, error) {
	span := noSpan
	if ix.p.obs.Tracing() {
		ctx, span = ix.p.obs.Start(ctx, "flowreader.read", attribute.String("flowreader.reader", fmt.Sprintf("%T", ix.p.reader)), attribute.Int(attrChains, len(in.Chains)))
	}
	a, err := ix.p.reader.Read(ctx, in)
	if a != nil {
		failed := 0
		for _, d := range a.Drafts {
			if d.Status == reader.StatusFailed {
				failed++
			}
		}
		if span.IsRecording() {
			span.SetAttributes(attribute.Int(attrCalls, a.Trace.Calls), attribute.Int(attrInTokens, a.Trace.PromptTokens),
				attribute.Int(attrOutTokens, a.Trace.CompletionTokens), attribute.Int("flowreader.drafts.failed", failed))
		}
		if failed > 0 {
			telemetry.Warn(ctx, "flowreader: worker calls failed; their chains were dropped", "failed", failed, "chains", len(a.Drafts))
		}
	}
	telemetry.End(span, err)
	return a, err
}

// observeSystem2 runs the gate and the System-2 pass in a span.
func (ix *Index) observeSystem2(ctx context.Context, ev *Evidence, rd *read, res *Result) error {
	ctx, span := ix.p.obs.Start(ctx, "flowreader.system2")
	err := ix.system2(ctx, ev, rd, res)
	if tr := res.System2; tr != nil {
		if span.IsRecording() {
			span.SetAttributes(attribute.StringSlice("flowreader.system2.triggers", tr.Triggers),
				attribute.Bool("flowreader.system2.ran", tr.Ran), attribute.Int(attrCalls, tr.Calls))
		}
		if tr.Skipped != "" {
			telemetry.Warn(ctx, "flowreader: System 2 fired but did not run", "reason", tr.Skipped)
		}
	}
	telemetry.End(span, err)
	return err
}
