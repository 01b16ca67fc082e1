package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/telemetry"
)

// telemetryFlags are the logging and tracing flags of build and ask.
type telemetryFlags struct {
	logLevel string
	trace    string
}

const defaultLogLevel = "warn"

func (t *telemetryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.logLevel, "log-level", defaultLogLevel, "structured log records on stderr at this level and above: debug, info, warn or error (debug shows every question stage and model call; only debug records may quote a model server's error messages, which can quote the prompt)")
	fs.StringVar(&t.trace, "trace", "", "write the OpenTelemetry spans (build stages, open, score, route, select, read, each model call) to this file as JSON lines")
}

// parseLevel reads a --log-level value.
func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		l = slog.LevelDebug
	case "info":
		l = slog.LevelInfo
	case "warn", "warning":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		return l, fmt.Errorf("unknown --log-level %q (debug, info, warn or error): %w", s, errUsage)
	}
	return l, nil
}

// logger makes the stderr logger of --log-level.
func (t *telemetryFlags) logger(stderr io.Writer) (*slog.Logger, error) {
	lvl, err := parseLevel(t.logLevel)
	if err != nil {
		return nil, err
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl})), nil
}

// tracing sets cfg.TracerProvider when --trace is given. The spans are
// kept in memory and written to the file, atomically, by the returned
// function, which the command calls once on its way out (also after a
// failure, so that the trace shows where it failed).
func (t *telemetryFlags) tracing(cfg *flowreader.Config) (flush func() error, err error) {
	if t.trace == "" {
		return func() error { return nil }, nil
	}
	var buf bytes.Buffer
	exp, err := stdouttrace.New(stdouttrace.WithWriter(&buf))
	if err != nil {
		return nil, err
	}
	// A synchronous exporter: spans are written as they end, in that order,
	// and nothing is lost to a batch on exit.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	cfg.TracerProvider = tp
	path := t.trace
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		if err := writeFileAtomic(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		return nil
	}, nil
}

// streamTrace is tracing for a long-running command (serve, mcp): each span
// is written to the --trace file as it ends, so that memory does not grow
// with the spans of every call. The returned function ends the trace and
// closes the file.
func (t *telemetryFlags) streamTrace(cfg *flowreader.Config) (flush func() error, err error) {
	if t.trace == "" {
		return func() error { return nil }, nil
	}
	f, err := os.OpenFile(t.trace, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	exp, err := stdouttrace.New(stdouttrace.WithWriter(f))
	if err != nil {
		f.Close()
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	cfg.TracerProvider = tp
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := tp.Shutdown(ctx)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		return nil
	}, nil
}

// retryWarner logs each retry of a model or embedder call at warn level.
func retryWarner(l *slog.Logger, what string) func(attempt int, err error, delay time.Duration) {
	if l == nil {
		return nil
	}
	return func(attempt int, err error, delay time.Duration) {
		// The error's type only at warn level: a model server's message may
		// quote the prompt. The message itself at debug level.
		l.Warn("retrying "+what+" call", "attempt", attempt, "delay", delay, telemetry.ErrorAttr(err))
		l.Debug("retrying "+what+" call: error", "attempt", attempt, "error", err)
	}
}
