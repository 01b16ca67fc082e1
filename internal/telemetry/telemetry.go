// Package telemetry is the pipeline's observability: OpenTelemetry spans
// and metrics and log/slog records, all off unless the caller passes a
// provider or a logger (no global provider or logger is ever used). Model
// and embedder calls are wrapped (WrapModel, WrapEmbedder) so that each
// one is a span following the OpenTelemetry GenAI semantic conventions,
// feeds the gen_ai.client.* metrics and is counted (package internal/tally).
// No prompt, response or document text is put on spans or in records.
package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of the tracer and the meter.
const Scope = "github.com/flowreader/flowreader"

// Attribute keys: the GenAI semantic conventions' and flowreader's own.
const (
	KeyOperation     = "gen_ai.operation.name"
	KeyModel         = "gen_ai.request.model"
	KeyProvider      = "gen_ai.provider.name"
	KeyInputTokens   = "gen_ai.usage.input_tokens"
	KeyOutputTokens  = "gen_ai.usage.output_tokens"
	KeyFinishReasons = "gen_ai.response.finish_reasons"
	KeyTemperature   = "gen_ai.request.temperature"
	KeyMaxTokens     = "gen_ai.request.max_tokens"
	KeySeed          = "gen_ai.request.seed"
	KeyOutputType    = "gen_ai.output.type"
	KeyTokenType     = "gen_ai.token.type"
	KeyErrorType     = "error.type"
	KeyCallKind      = "flowreader.call.kind"
	KeyEmbedKind     = "flowreader.embed.kind"
	KeyEmbedInputs   = "flowreader.embed.inputs"
	// KeyFirstPiece is a streamed call's time to its first piece of text,
	// in seconds; EventFirstPiece marks that moment on the call's span.
	KeyFirstPiece   = "flowreader.call.time_to_first_piece"
	EventFirstPiece = "first piece"

	OpChat       = "chat"
	OpEmbeddings = "embeddings"
	// OpRerank is a reranker call (no GenAI convention names one).
	OpRerank        = "rerank"
	KeyRerankInputs = "flowreader.rerank.inputs"
)

// Metric names of the GenAI semantic conventions.
const (
	MetricTokenUsage = "gen_ai.client.token.usage"
	MetricDuration   = "gen_ai.client.operation.duration"
)

// Bucket boundaries the GenAI semantic conventions advise.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

// noSpan is the non-recording span of an empty context: Start returns it,
// without allocating, when tracing is off.
var noSpan = trace.SpanFromContext(context.Background())

// Obs is the observability of one pipeline. A nil *Obs, and the zero value,
// are off: no spans, no metrics, no records. It is safe for concurrent use.
type Obs struct {
	tracer   trace.Tracer // nil: no spans
	tokens   metric.Int64Histogram
	duration metric.Float64Histogram // nil: no metrics
	log      *slog.Logger            // nil: no records
}

// New makes the observability of a pipeline from its options; nil options
// are off.
func New(tp trace.TracerProvider, mp metric.MeterProvider, log *slog.Logger) (*Obs, error) {
	o := &Obs{log: log}
	if tp != nil {
		o.tracer = tp.Tracer(Scope)
	}
	if mp != nil {
		m := mp.Meter(Scope)
		var err error
		o.tokens, err = m.Int64Histogram(MetricTokenUsage, metric.WithUnit("{token}"),
			metric.WithDescription("Number of input and output tokens used."),
			metric.WithExplicitBucketBoundaries(tokenBuckets...))
		if err != nil {
			return nil, err
		}
		o.duration, err = m.Float64Histogram(MetricDuration, metric.WithUnit("s"),
			metric.WithDescription("GenAI operation duration."),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		if err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Tracing reports whether spans are made.
func (o *Obs) Tracing() bool { return o != nil && o.tracer != nil }

func (o *Obs) metrics() bool { return o != nil && o.duration != nil }

// Logger returns the logger, or nil when logging is off.
func (o *Obs) Logger() *slog.Logger {
	if o == nil {
		return nil
	}
	return o.log
}

// Start starts a span named name under ctx's span. With tracing off it
// returns ctx itself and a non-recording span, allocating nothing.
func (o *Obs) Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if !o.Tracing() {
		return ctx, noSpan
	}
	return o.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

// Stage starts a span named name under ctx's span, with the tracer
// provider of that span; when ctx holds no span (tracing is off) it returns
// ctx itself and a non-recording span. Packages that take no provider (the
// graph builder, the readers) mark their stages with it.
func Stage(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.SpanContext().IsValid() {
		return ctx, noSpan
	}
	return parent.TracerProvider().Tracer(Scope).Start(ctx, name, trace.WithAttributes(attrs...))
}

// End ends span, marking it failed when err is not nil: by the error's
// type alone (error.type, and the status description), never its message,
// which may quote a model server's error and so the prompt, the question
// and document text.
func End(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		t := ErrorType(err)
		span.SetAttributes(attribute.String(KeyErrorType, t))
		span.SetStatus(codes.Error, t)
	}
	span.End()
}

// ErrorAttr is the attribute a log record at info level or above carries
// for err: its type (see ErrorType), not its message. The message goes to
// debug records only.
func ErrorAttr(err error) slog.Attr { return slog.String("error_type", ErrorType(err)) }

type logKey struct{}

// WithLogger returns ctx carrying the logger of o, for the packages that
// take none (the graph builder, the readers); ctx itself when logging is
// off.
func (o *Obs) WithLogger(ctx context.Context) context.Context {
	if o.Logger() == nil {
		return ctx
	}
	return context.WithValue(ctx, logKey{}, o.log)
}

// Logger returns the logger ctx carries, or nil.
func Logger(ctx context.Context) *slog.Logger {
	l, _ := ctx.Value(logKey{}).(*slog.Logger)
	return l
}

// Warn logs msg at warn level on ctx's logger, if any.
func Warn(ctx context.Context, msg string, args ...any) {
	if l := Logger(ctx); l != nil {
		l.WarnContext(ctx, msg, args...)
	}
}
