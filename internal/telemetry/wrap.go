package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/llm"
)

// Wrapped reports whether v (a Model or an Embedder) is already wrapped
// by WrapModel or WrapEmbedder, so that its calls are counted.
func Wrapped(v any) bool {
	switch v.(type) {
	case *model, *streamModel, *embedder, *reranker:
		return true
	}
	return false
}

// WrapModel returns m wrapped so that each call is counted (internal/tally)
// and, as o asks, traced, measured and logged at debug level. o may be nil
// (counting only). The wrapper keeps m's name, image and streaming
// capabilities and unwraps to m.
func WrapModel(m llm.Model, o *Obs) llm.Model {
	w := &model{inner: m, o: o, name: nameOf(m)}
	w.spanName = OpChat
	if w.name != "" {
		w.spanName = OpChat + " " + w.name
	}
	if s, ok := m.(llm.Streamer); ok {
		return &streamModel{model: w, stream: s}
	}
	return w
}

// streamModel is WrapModel's wrapper of a model that streams: a streamed
// call is one span like any other, with the time to its first piece.
type streamModel struct {
	*model
	stream llm.Streamer
}

func (w *streamModel) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	return w.call(ctx, req, func(ctx context.Context, first func()) (*llm.Response, error) {
		seen := false
		return w.stream.GenerateStream(ctx, req, func(p string) {
			if !seen {
				seen = true
				first()
			}
			onText(p)
		})
	})
}

// WrapEmbedder is WrapModel for an embedder; it keeps e's dimension, name
// and batch size.
func WrapEmbedder(e llm.Embedder, o *Obs) llm.Embedder {
	w := &embedder{inner: e, o: o, name: nameOf(e)}
	w.spanName = OpEmbeddings
	if w.name != "" {
		w.spanName = OpEmbeddings + " " + w.name
	}
	return w
}

type model struct {
	inner          llm.Model
	o              *Obs
	name, spanName string
}

func (w *model) Name() string { return w.name }

func (w *model) AcceptsImages() bool {
	a, ok := w.inner.(llm.ImageAccepter)
	return ok && a.AcceptsImages()
}

func (w *model) Unwrap() llm.Model { return w.inner }

func (w *model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if o := w.o; !o.Tracing() && !o.metrics() && !o.debug(ctx) {
		resp, err := w.inner.Generate(ctx, req)
		if resp != nil {
			tally.Model(ctx, resp.Usage)
		} else {
			tally.Model(ctx, llm.Usage{})
		}
		return resp, err
	}
	return w.call(ctx, req, func(ctx context.Context, _ func()) (*llm.Response, error) {
		return w.inner.Generate(ctx, req)
	})
}

// call makes one model call through do, counted and, as the Obs asks,
// traced, measured and logged. do calls first when the first piece of a
// streamed answer arrives.
func (w *model) call(ctx context.Context, req *llm.Request, do func(ctx context.Context, first func()) (*llm.Response, error)) (*llm.Response, error) {
	o := w.o
	if !o.Tracing() && !o.metrics() && !o.debug(ctx) {
		resp, err := do(ctx, func() {})
		if resp != nil {
			tally.Model(ctx, resp.Usage)
		} else {
			tally.Model(ctx, llm.Usage{})
		}
		return resp, err
	}
	purpose := llm.PurposeOf(ctx)
	span := noSpan
	if o.Tracing() {
		attrs := []attribute.KeyValue{
			attribute.String(KeyOperation, OpChat),
			attribute.Float64(KeyTemperature, req.Temperature),
		}
		if w.name != "" {
			attrs = append(attrs, attribute.String(KeyModel, w.name))
		}
		if purpose != "" {
			attrs = append(attrs, attribute.String(KeyCallKind, string(purpose)))
		}
		if req.MaxTokens > 0 {
			attrs = append(attrs, attribute.Int(KeyMaxTokens, req.MaxTokens))
		}
		if req.Seed != 0 {
			attrs = append(attrs, attribute.Int64(KeySeed, req.Seed))
		}
		if len(req.JSONSchema) > 0 {
			attrs = append(attrs, attribute.String(KeyOutputType, "json"))
		}
		ctx, span = o.tracer.Start(ctx, w.spanName, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	}
	start := time.Now()
	var firstAt time.Duration
	resp, err := do(ctx, func() {
		firstAt = time.Since(start)
		if span.IsRecording() {
			span.AddEvent(EventFirstPiece)
		}
	})
	elapsed := time.Since(start)
	var u llm.Usage
	if resp != nil {
		u = resp.Usage
	}
	tally.Model(ctx, u)
	if span.IsRecording() {
		span.SetAttributes(attribute.Int(KeyInputTokens, u.PromptTokens), attribute.Int(KeyOutputTokens, u.CompletionTokens))
		if resp != nil && resp.FinishReason != "" {
			span.SetAttributes(attribute.StringSlice(KeyFinishReasons, []string{resp.FinishReason}))
		}
		if firstAt > 0 {
			span.SetAttributes(attribute.Float64(KeyFirstPiece, firstAt.Seconds()))
		}
		endCall(span, err)
	}
	o.record(ctx, OpChat, w.name, purpose, elapsed, err, u.PromptTokens, u.CompletionTokens, resp != nil)
	if o.debug(ctx) {
		args := []any{slog.String("model", w.name), slog.String("kind", string(purpose)),
			slog.Int("input_tokens", u.PromptTokens), slog.Int("output_tokens", u.CompletionTokens),
			slog.Duration("duration", elapsed)}
		if firstAt > 0 {
			args = append(args, slog.Duration("first_piece", firstAt))
		}
		if err != nil {
			args = append(args, slog.String("error_type", ErrorType(err)))
		}
		o.log.DebugContext(ctx, "model call", args...)
	}
	return resp, err
}

type embedder struct {
	inner          llm.Embedder
	o              *Obs
	name, spanName string
}

func (w *embedder) Name() string   { return w.name }
func (w *embedder) Dimension() int { return w.inner.Dimension() }

func (w *embedder) MaxBatch() int {
	if b, ok := w.inner.(llm.BatchSizer); ok {
		return b.MaxBatch()
	}
	return 0
}

func (w *embedder) Unwrap() llm.Embedder { return w.inner }

func (w *embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	o := w.o
	tally.Embed(ctx)
	if !o.Tracing() && !o.metrics() && !o.debug(ctx) {
		return w.inner.Embed(ctx, texts, kind)
	}
	kindName := "document"
	if kind == llm.KindQuery {
		kindName = "query"
	}
	purpose := llm.PurposeOf(ctx)
	span := noSpan
	if o.Tracing() {
		attrs := []attribute.KeyValue{
			attribute.String(KeyOperation, OpEmbeddings),
			attribute.String(KeyEmbedKind, kindName),
			attribute.Int(KeyEmbedInputs, len(texts)),
		}
		if w.name != "" {
			attrs = append(attrs, attribute.String(KeyModel, w.name))
		}
		if purpose != "" {
			attrs = append(attrs, attribute.String(KeyCallKind, string(purpose)))
		}
		ctx, span = o.tracer.Start(ctx, w.spanName, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	}
	// A tally of this call alone learns the tokens the embedder reports
	// (it passes them on to the enclosing tallies).
	cctx, t := tally.With(ctx)
	start := time.Now()
	vecs, err := w.inner.Embed(cctx, texts, kind)
	elapsed := time.Since(start)
	in := t.Totals().EmbedTokens
	if span.IsRecording() {
		if in > 0 {
			span.SetAttributes(attribute.Int(KeyInputTokens, in))
		}
		endCall(span, err)
	}
	o.record(ctx, OpEmbeddings, w.name, purpose, elapsed, err, in, -1, in > 0)
	if o.debug(ctx) {
		args := []any{slog.String("model", w.name), slog.String("kind", kindName),
			slog.Int("inputs", len(texts)), slog.Int("input_tokens", in), slog.Duration("duration", elapsed)}
		if err != nil {
			args = append(args, slog.String("error_type", ErrorType(err)))
		}
		o.log.DebugContext(ctx, "embedding call", args...)
	}
	return vecs, err
}

// endCall ends a model or embedding call's span. A failure is recorded by
// its error.type alone: a backend's error message may quote the request.
func endCall(span trace.Span, err error) {
	if err != nil {
		t := ErrorType(err)
		span.SetAttributes(attribute.String(KeyErrorType, t))
		span.SetStatus(codes.Error, t)
	}
	span.End()
}

func (o *Obs) debug(ctx context.Context) bool {
	return o != nil && o.log != nil && o.log.Enabled(ctx, slog.LevelDebug)
}

// record feeds the GenAI client metrics: the duration of every call, and
// the token counts when the backend reported them (out < 0: no output
// tokens, as for embeddings).
func (o *Obs) record(ctx context.Context, op, name string, purpose llm.Purpose, d time.Duration, err error, in, out int, usage bool) {
	if !o.metrics() {
		return
	}
	attrs := []attribute.KeyValue{attribute.String(KeyOperation, op)}
	if name != "" {
		attrs = append(attrs, attribute.String(KeyModel, name))
	}
	if purpose != "" {
		attrs = append(attrs, attribute.String(KeyCallKind, string(purpose)))
	}
	dattrs := attrs
	if err != nil {
		dattrs = append(attrs[:len(attrs):len(attrs)], attribute.String(KeyErrorType, ErrorType(err)))
	}
	o.duration.Record(ctx, d.Seconds(), metric.WithAttributes(dattrs...))
	if !usage || err != nil {
		return
	}
	o.tokens.Record(ctx, int64(in), metric.WithAttributes(append(attrs[:len(attrs):len(attrs)], attribute.String(KeyTokenType, "input"))...))
	if out >= 0 {
		o.tokens.Record(ctx, int64(out), metric.WithAttributes(append(attrs[:len(attrs):len(attrs)], attribute.String(KeyTokenType, "output"))...))
	}
}

// ErrorType is the error.type attribute: the sentinel of package llm the
// error wraps, the HTTP status of an API error, or the error's Go type.
func ErrorType(err error) string {
	var api *llm.APIError
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &api):
		return fmt.Sprint(api.StatusCode)
	case errors.Is(err, llm.ErrRateLimited):
		return "rate_limited"
	case errors.Is(err, llm.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, llm.ErrContextTooLong):
		return "context_too_long"
	case errors.Is(err, llm.ErrInvalidOutput):
		return "invalid_output"
	}
	return fmt.Sprintf("%T", err)
}

func nameOf(v any) string {
	if n, ok := v.(llm.Namer); ok {
		return n.Name()
	}
	return ""
}

// WrapReranker is WrapModel for a reranker: each call is counted, and as o
// asks, a span (operation "rerank", with the number of texts and the
// tokens the reranker reports), a duration and a debug record. It keeps
// r's name and batch size.
func WrapReranker(r llm.Reranker, o *Obs) llm.Reranker {
	w := &reranker{inner: r, o: o, name: nameOf(r)}
	w.spanName = OpRerank
	if w.name != "" {
		w.spanName = OpRerank + " " + w.name
	}
	return w
}

type reranker struct {
	inner          llm.Reranker
	o              *Obs
	name, spanName string
}

func (w *reranker) Name() string { return w.name }

func (w *reranker) MaxBatch() int {
	if b, ok := w.inner.(llm.BatchSizer); ok {
		return b.MaxBatch()
	}
	return 0
}

func (w *reranker) Unwrap() llm.Reranker { return w.inner }

func (w *reranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	o := w.o
	tally.Rerank(ctx)
	if !o.Tracing() && !o.metrics() && !o.debug(ctx) {
		return w.inner.Rerank(ctx, query, texts)
	}
	purpose := llm.PurposeOf(ctx)
	span := noSpan
	if o.Tracing() {
		attrs := []attribute.KeyValue{
			attribute.String(KeyOperation, OpRerank),
			attribute.Int(KeyRerankInputs, len(texts)),
		}
		if w.name != "" {
			attrs = append(attrs, attribute.String(KeyModel, w.name))
		}
		ctx, span = o.tracer.Start(ctx, w.spanName, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	}
	cctx, t := tally.With(ctx)
	start := time.Now()
	scores, err := w.inner.Rerank(cctx, query, texts)
	elapsed := time.Since(start)
	in := t.Totals().RerankTokens
	if span.IsRecording() {
		if in > 0 {
			span.SetAttributes(attribute.Int(KeyInputTokens, in))
		}
		endCall(span, err)
	}
	o.record(ctx, OpRerank, w.name, purpose, elapsed, err, in, -1, in > 0)
	if o.debug(ctx) {
		args := []any{slog.String("model", w.name), slog.Int("inputs", len(texts)), slog.Int("input_tokens", in), slog.Duration("duration", elapsed)}
		if err != nil {
			args = append(args, slog.String("error_type", ErrorType(err)))
		}
		o.log.DebugContext(ctx, "rerank call", args...)
	}
	return scores, err
}
