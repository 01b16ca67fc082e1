package flowreader_test

import (
	"context"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// askBench runs Ask over a 1024-node graph with a model that answers at
// once (workers, question type and reasoner), so that the per-call cost
// of the pipeline's own code is what is measured. It uses only the API
// that predates Config's observability fields, so that the same benchmark
// runs on older commits (docs/observability.md compares them).
func askBench(b *testing.B, cfg flowreader.Config) {
	ctx := context.Background()
	const n, dim = 1024, 100
	cfg.Embedder = &fake.Embedder{Dim: dim}
	cfg.Model = llmfunc.Model(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		text := `{"status":"supported","answer":"w7","evidence":"w7"}`
		if p := req.Messages[len(req.Messages)-1].Parts[0].Text; strings.Contains(p, "EVIDENCE PATHS") {
			text = "<output>w7</output>"
		} else if strings.Contains(p, "Classify the question") {
			text = `{"type":"value","length":"short"}`
		}
		return &llm.Response{Text: text, FinishReason: "stop", Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}}, nil
	})
	p, err := flowreader.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := p.Open(ctx, synth.Topics(b, n, dim))
	if err != nil {
		b.Fatal(err)
	}
	questions := []string{"w7 w8 w9 w40", "w301 w302 w12", "w1500 w77 w78"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ix.Ask(ctx, questions[i%len(questions)], flowreader.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAsk is Ask with the observability options unset.
func BenchmarkAsk(b *testing.B) { askBench(b, flowreader.Config{}) }
