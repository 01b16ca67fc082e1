package telemetry

import (
	"context"
	"testing"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/internal/purpose"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

type namedModel struct{ *fake.Model }

func (namedModel) Name() string { return "m1" }

type namedEmbedder struct{ *fake.Embedder }

func (namedEmbedder) Name() string  { return "e1" }
func (namedEmbedder) MaxBatch() int { return 7 }

// keys returns the keys a cache over m stores for one request.
type keyStore struct{ keys []string }

func (s *keyStore) Get(string) ([]byte, bool) { return nil, false }
func (s *keyStore) Put(k string, _ []byte) error {
	s.keys = append(s.keys, k)
	return nil
}

// The wrappers keep the capabilities and names that cache keys and graph
// headers are made of: a cache over a wrapped backend uses the keys it
// would use over the backend itself.
func TestWrapKeepsIdentity(t *testing.T) {
	m := namedModel{&fake.Model{Default: "x", Images: true}}
	wm := WrapModel(m, nil)
	if n := wm.(llm.Namer).Name(); n != "m1" || !wm.(llm.ImageAccepter).AcceptsImages() || wm.(interface{ Unwrap() llm.Model }).Unwrap() != llm.Model(m) {
		t.Errorf("model wrapper: name %q", n)
	}
	e := namedEmbedder{&fake.Embedder{Dim: 5}}
	we := WrapEmbedder(e, nil)
	if we.Dimension() != 5 || we.(llm.Namer).Name() != "e1" || we.(llm.BatchSizer).MaxBatch() != 7 {
		t.Errorf("embedder wrapper loses capabilities")
	}
	if !Wrapped(wm) || !Wrapped(we) || Wrapped(m) {
		t.Error("Wrapped")
	}
	ctx := context.Background()
	var plain, wrapped keyStore
	if _, err := llm.Wrap(m, llm.Middleware{Cache: &plain}).Generate(ctx, llmfunc.UserText("q")); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Wrap(wm, llm.Middleware{Cache: &wrapped}).Generate(ctx, llmfunc.UserText("q")); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.WrapEmbedder(e, llm.Middleware{Cache: &plain}).Embed(ctx, []string{"a"}, llm.KindQuery); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.WrapEmbedder(we, llm.Middleware{Cache: &wrapped}).Embed(ctx, []string{"a"}, llm.KindQuery); err != nil {
		t.Fatal(err)
	}
	if len(plain.keys) != 2 || len(wrapped.keys) != 2 || plain.keys[0] != wrapped.keys[0] || plain.keys[1] != wrapped.keys[1] {
		t.Errorf("cache keys differ: %v vs %v", plain.keys, wrapped.keys)
	}
}

// Counts reach every enclosing tally; a call's own tally sees only it.
func TestTallyNesting(t *testing.T) {
	ctx, outer := tally.With(context.Background())
	wm := WrapModel(&fake.Model{Default: "three word answer"}, nil)
	if _, err := wm.Generate(ctx, llmfunc.UserText("one two")); err != nil {
		t.Fatal(err)
	}
	inner, it := tally.With(ctx)
	if _, err := wm.Generate(inner, llmfunc.UserText("a b c d")); err != nil {
		t.Fatal(err)
	}
	tally.Embedded(inner, 9)
	if got := outer.Totals(); got != (llm.Totals{Calls: 2, PromptTokens: 6, CompletionTokens: 6, EmbedTokens: 9}) {
		t.Errorf("outer %+v", got)
	}
	if got := it.Totals(); got != (llm.Totals{Calls: 1, PromptTokens: 4, CompletionTokens: 3, EmbedTokens: 9}) {
		t.Errorf("inner %+v", got)
	}
}

// Stage makes no span without a parent span, and a child of it with one.
func TestStage(t *testing.T) {
	_, s := Stage(context.Background(), "x")
	if s.IsRecording() || s.SpanContext().IsValid() {
		t.Error("span without a parent")
	}
	exp := tracetest.NewInMemoryExporter()
	o, err := New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, root := o.Start(context.Background(), "root")
	_, child := Stage(ctx, "child")
	End(child, nil)
	End(root, nil)
	spans := exp.GetSpans()
	if len(spans) != 2 || spans[0].Name != "child" || spans[0].Parent.SpanID() != spans[1].SpanContext.SpanID() {
		t.Errorf("spans %v", spans)
	}
}

// A streamed call through the wrapper passes every piece on, is counted,
// and is one span that records when its first piece came; a model that
// does not stream is not made to look as if it did.
func TestWrapStreamer(t *testing.T) {
	plain := llmfunc.Model(func(context.Context, *llm.Request) (*llm.Response, error) { return &llm.Response{Text: "x"}, nil })
	if _, ok := WrapModel(plain, nil).(llm.Streamer); ok {
		t.Fatal("wrapper of a model without streaming streams")
	}
	exp := tracetest.NewInMemoryExporter()
	o, err := New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := WrapModel(namedModel{&fake.Model{Default: "three word answer"}}, o)
	s, ok := w.(llm.Streamer)
	if !ok || !Wrapped(w) {
		t.Fatal("wrapper hides Streamer")
	}
	ctx, tl := tally.With(context.Background())
	var got []string
	resp, err := s.GenerateStream(ctx, llmfunc.UserText("q"), func(p string) { got = append(got, p) })
	if err != nil || resp.Text != "three word answer" || len(got) != 3 {
		t.Fatalf("got %q, %+v, %v", got, resp, err)
	}
	if tl.Totals().Calls != 1 {
		t.Errorf("tally %+v", tl.Totals())
	}
	spans := exp.GetSpans()
	if len(spans) != 1 || len(spans[0].Events) != 1 || spans[0].Events[0].Name != EventFirstPiece {
		t.Fatalf("spans %+v", spans)
	}
	found := false
	for _, a := range spans[0].Attributes {
		found = found || string(a.Key) == KeyFirstPiece && a.Value.AsFloat64() >= 0
	}
	if !found {
		t.Errorf("no %s on %v", KeyFirstPiece, spans[0].Attributes)
	}
}

type namedReranker struct{}

func (namedReranker) Name() string  { return "r1" }
func (namedReranker) MaxBatch() int { return 9 }
func (namedReranker) Rerank(ctx context.Context, q string, texts []string) ([]float64, error) {
	tally.Reranked(ctx, 5)
	return make([]float64, len(texts)), nil
}

// A rerank call is counted with the tokens its reranker reports, and is
// one span.
func TestWrapReranker(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	o, err := New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := WrapReranker(namedReranker{}, o)
	if w.(llm.Namer).Name() != "r1" || w.(llm.BatchSizer).MaxBatch() != 9 || !Wrapped(w) {
		t.Fatal("wrapper loses capabilities")
	}
	ctx, tl := tally.With(context.Background())
	if s, err := w.Rerank(ctx, "q", []string{"a", "b"}); err != nil || len(s) != 2 {
		t.Fatal(s, err)
	}
	if tot := tl.Totals(); tot.RerankCalls != 1 || tot.RerankTokens != 5 {
		t.Errorf("tally %+v", tot)
	}
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "rerank r1" {
		t.Fatalf("spans %+v", spans)
	}
}

var sink *llm.Response

// BenchmarkGenerate is one model call straight to the backend, through
// the wrapper with everything off (the pipeline's default), and with its
// purpose set on the context as the readers do.
func BenchmarkGenerate(b *testing.B) {
	resp := &llm.Response{Text: "x", Usage: llm.Usage{PromptTokens: 3}}
	m := llmfunc.Model(func(context.Context, *llm.Request) (*llm.Response, error) { return resp, nil })
	req := llmfunc.UserText("q")
	ctx, _ := tally.With(context.Background())
	for _, c := range []struct {
		name    string
		m       llm.Model
		purpose bool
	}{{"direct", m, false}, {"wrapped-off", WrapModel(m, nil), false}, {"wrapped-off+purpose", WrapModel(m, nil), true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cctx := ctx
				if c.purpose {
					cctx = llm.WithPurpose(ctx, purpose.Worker)
				}
				r, _ := c.m.Generate(cctx, req)
				sink = r
			}
		})
	}
}
