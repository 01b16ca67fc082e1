package flowreader_test

import (
	"io"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowreader/flowreader"
)

// BenchmarkAskObservability is BenchmarkAsk with each observability option
// off and on, side by side (docs/observability.md has the figures).
func BenchmarkAskObservability(b *testing.B) {
	b.Run("off", func(b *testing.B) { askBench(b, flowreader.Config{}) })
	b.Run("logger-warn", func(b *testing.B) {
		askBench(b, flowreader.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	})
	b.Run("logger-debug", func(b *testing.B) {
		askBench(b, flowreader.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	})
	b.Run("tracing", func(b *testing.B) {
		exp := tracetest.NewNoopExporter()
		askBench(b, flowreader.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))})
	})
}
