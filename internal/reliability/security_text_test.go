package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/llm/openai"
)

// A model server whose every error quotes the request it got (as vLLM's
// validation errors do): the question, the prompt and the document text it
// holds never reach a log record at info level or above, nor a span (its
// status, attributes or events); they may reach debug records, which a
// user turns on to see them.
func TestSecurityQuotedInputStaysOutOfLogsAndSpans(t *testing.T) {
	const question = "Which harbour did the QUESTION-SECRET-7731 survey visit?"
	const docText = "DOC-SECRET-4412 nests were counted on the North Mole breakwater in June."
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, "invalid request: "+string(b))
	}))
	defer srv.Close()
	chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))

	docs := []graph.Document{{ID: "survey", Title: "Survey", Items: []graph.Item{
		{Modality: graph.ModalityText, Text: docText},
		{Modality: graph.ModalityText, Text: "The East Arm lost its colony after the May storm."},
	}}}
	offline, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{Dim: 8}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := offline.Build(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{Dim: 8}, Model: chat, Logger: log, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	// The extractive fallback answers; its note says the model failed
	// without quoting the model's message.
	res, err := ix.Ask(context.Background(), question, flowreader.Options{})
	if err != nil || res.Trace.ReasonerFallback != "fallback" || !strings.Contains(res.Trace.Note, "the model failed") {
		t.Fatalf("ask against a failing model: %v", err)
	}
	for _, s := range []string{"QUESTION-SECRET-7731", "DOC-SECRET-4412"} {
		if strings.Contains(res.Trace.Note, s) {
			t.Errorf("the fallback note quotes %s: %q", s, res.Trace.Note)
		}
	}
	// A build with the model fails too, and logs its failure.
	if _, err := p.Build(context.Background(), docs); err == nil {
		t.Fatal("build against a failing model succeeded")
	}
	secrets := []string{"QUESTION-SECRET-7731", "DOC-SECRET-4412"}
	debugHas := false
	for _, line := range strings.Split(strings.TrimSpace(string(logs.Bytes())), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		for _, s := range secrets {
			if !strings.Contains(line, s) {
				continue
			}
			if r["level"] == "DEBUG" {
				debugHas = true
				continue
			}
			t.Errorf("%s record holds %s: %.300s", r["level"], s, line)
		}
	}
	if !debugHas {
		t.Log("no debug record quotes the model server's error (allowed, not required)")
	}
	spans := rec.Ended()
	if len(spans) == 0 {
		t.Fatal("no spans")
	}
	for _, s := range spans {
		var all strings.Builder
		fmt.Fprintf(&all, "%s %s %v", s.Name(), s.Status().Description, s.Attributes())
		for _, e := range s.Events() {
			fmt.Fprintf(&all, " %s %v", e.Name, e.Attributes)
		}
		for _, sec := range secrets {
			if strings.Contains(all.String(), sec) {
				t.Errorf("span %s holds %s: %.300s", s.Name(), sec, all.String())
			}
		}
	}
}
