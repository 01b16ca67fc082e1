package flowreader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/internal/purpose"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/faultserver"
	"github.com/flowreader/flowreader/internal/fixture"
	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/llm/openai"
)

// system2Script makes the gate fire T1 (with a low saturation) and T2 (two
// contradicting supported answers), so that one Ask makes every kind of
// reading call: question type, workers, reasoner, judge, bridge and edge
// scorers.
func system2Script() fixture.Script {
	s := fixture.DefaultScript()
	s.Judge = "YES"
	s.Worker = append(s.Worker, [2]string{"Dr Ilse Marrow", `{"status":"supported","answer":"212","evidence":"x"}`})
	return s
}

// system2Index is an Index over the fixture graph whose Ask runs System 2
// with model m and cfg's observability fields.
func system2Index(t *testing.T, m llm.Model, cfg Config) *Index {
	t.Helper()
	fr := &fakeRouter{next: &flow.Routing{Router: "re", Saturation: 0.95, Chains: []flow.Chain{{Nodes: []int{1}, Flow: 1}, {Nodes: []int{4}, Flow: 0.5}}}}
	cfg.Embedder, cfg.Model, cfg.Router, cfg.Selector = &fake.Embedder{Dim: 4}, m, fr, firstChains{}
	cfg.Budget, cfg.ClassicPrompts, cfg.System2 = 4, true, true
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.proposer = fakeFinder{cutPairsOut: many(3), cutEdgesOut: many(3), topFlow: [][2]int{{1, 2}, {3, 4}}, srcEdges: [][2]int{{1, 2}}, seeds: []int{7}, aff: 0.4}
	ix, err := p.Open(context.Background(), fixture.Graph(t))
	if err != nil {
		t.Fatal(err)
	}
	fr.first = &flow.Routing{Router: "test", Saturation: 0.3, Chains: fixture.Chains(4)}
	return ix
}

// wantPurpose is the purpose each prompt family must carry.
var wantPurpose = map[string]llm.Purpose{
	fixture.MarkQType:    purpose.QuestionType,
	fixture.MarkJudge:    purpose.Judge,
	fixture.MarkBridge:   purpose.System2,
	fixture.MarkEdge:     purpose.System2,
	fixture.MarkReasoner: purpose.Reasoner,
	fixture.MarkWorker:   purpose.Worker,
}

func purposeByPrompt(prompt string) llm.Purpose {
	for _, mark := range []string{fixture.MarkQType, fixture.MarkJudge, fixture.MarkBridge, fixture.MarkEdge, fixture.MarkReasoner, fixture.MarkWorker} {
		if strings.Contains(prompt, mark) {
			return wantPurpose[mark]
		}
	}
	return ""
}

// A middleware around the user's model sees the purpose of every call of
// a full Ask with System 2, and each is the right one for its prompt.
func TestPurposeSeenByMiddleware(t *testing.T) {
	m := system2Script().Model()
	var mu sync.Mutex
	seen := map[llm.Purpose]int{}
	mw := llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		got, want := llm.PurposeOf(ctx), purposeByPrompt(fake.Prompt(req))
		if got != want {
			t.Errorf("call %q…: purpose %q, want %q", fake.Prompt(req)[:40], got, want)
		}
		mu.Lock()
		seen[got]++
		mu.Unlock()
		return m.Generate(ctx, req)
	})
	res, err := system2Index(t, mw, Config{}).Ask(context.Background(), fixture.Question, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.System2 == nil || !res.System2.Ran {
		t.Fatalf("System 2 did not run: %+v", res.System2)
	}
	for _, p := range []llm.Purpose{purpose.Worker, purpose.QuestionType, purpose.Reasoner, purpose.Judge, purpose.System2} {
		if seen[p] == 0 {
			t.Errorf("no call with purpose %q (seen %v)", p, seen)
		}
	}
	// Usage counts every call the model received, and the question's
	// embedding.
	calls, prompt := 0, 0
	for _, c := range m.Calls() {
		calls++
		prompt += len(strings.Fields(fake.Prompt(c)))
	}
	u := res.Usage
	if u.Calls != calls || u.PromptTokens != prompt || u.CompletionTokens == 0 || u.EmbedCalls != 1 {
		t.Errorf("Usage %+v; the model received %d calls of %d prompt tokens", u, calls, prompt)
	}
	s1 := res.Answer
	if !res.System2.KeptSystem1 {
		s1 = res.System2.System1
	}
	if r := s1.Trace; u.Calls != r.Calls+res.System2.Calls+res.System2.Answer.Trace.Calls {
		t.Errorf("Usage.Calls %d, traces %d + %d + %d", u.Calls, r.Calls, res.System2.Calls, res.System2.Answer.Trace.Calls)
	}
}

func TestPurposeOf(t *testing.T) {
	ctx := context.Background()
	if p := llm.PurposeOf(ctx); p != "" {
		t.Errorf("empty context: %q", p)
	}
	ctx = llm.WithPurpose(ctx, purpose.Judge)
	if p := llm.PurposeOf(llm.WithPurpose(ctx, purpose.Worker)); p != purpose.Worker {
		t.Errorf("inner purpose %q", p)
	}
	if p := llm.PurposeOf(ctx); p != purpose.Judge {
		t.Errorf("outer purpose %q", p)
	}
}

// named gives a model a name, as a served model has.
type named struct{ llm.Model }

func (named) Name() string { return "gpt-test" }

func spanNames(spans tracetest.SpanStubs) map[string]int {
	n := map[string]int{}
	for _, s := range spans {
		n[s.Name]++
	}
	return n
}

func attrs(s tracetest.SpanStub) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

func TestSpansOfAsk(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	m := system2Script().Model()
	ix := system2Index(t, named{m}, Config{TracerProvider: tp})
	exp.Reset() // the open span
	res, err := ix.Ask(context.Background(), fixture.Question, Options{})
	if err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	names := spanNames(spans)
	for _, n := range []string{"flowreader.ask", "flowreader.score", "flowreader.route", "flowreader.select", "flowreader.answer", "flowreader.read", "flowreader.system2", "embeddings"} {
		if names[n] == 0 {
			t.Errorf("no span %q in %v", n, names)
		}
	}
	if names["chat gpt-test"] != len(m.Calls()) {
		t.Errorf("%d chat spans for %d calls: %v", names["chat gpt-test"], len(m.Calls()), names)
	}
	byID := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s
	}
	trace := spans[0].SpanContext.TraceID()
	kinds := map[string]int{}
	in, out := 0, 0
	for _, s := range spans {
		if s.SpanContext.TraceID() != trace {
			t.Errorf("span %s in another trace", s.Name)
		}
		a := attrs(s)
		for k, v := range a {
			if v.Type() == attribute.STRING && (strings.Contains(v.AsString(), "North Mole") || strings.Contains(v.AsString(), fixture.Question) || len(v.AsString()) > 80) {
				t.Errorf("span %s attribute %s = %q: content on a span", s.Name, k, v.AsString())
			}
		}
		if s.Name != "chat gpt-test" {
			continue
		}
		if a["gen_ai.operation.name"].AsString() != "chat" || a["gen_ai.request.model"].AsString() != "gpt-test" {
			t.Errorf("chat span attributes %v", a)
		}
		if fr := a["gen_ai.response.finish_reasons"].AsStringSlice(); len(fr) != 1 || fr[0] != "stop" {
			t.Errorf("finish reasons %v", fr)
		}
		kind := a["flowreader.call.kind"].AsString()
		kinds[kind]++
		in += int(a["gen_ai.usage.input_tokens"].AsInt64())
		out += int(a["gen_ai.usage.output_tokens"].AsInt64())
		parent := byID[s.Parent.SpanID().String()].Name
		switch llm.Purpose(kind) {
		case purpose.Worker, purpose.Reasoner, purpose.QuestionType:
			if parent != "flowreader.read" {
				t.Errorf("%s call under %q", kind, parent)
			}
		case purpose.Judge, purpose.System2:
			if parent != "flowreader.system2" {
				t.Errorf("%s call under %q", kind, parent)
			}
		default:
			t.Errorf("chat span without a known kind: %q", kind)
		}
	}
	if kinds["worker"] == 0 || kinds["reasoner"] == 0 || kinds["judge"] == 0 || kinds["system2"] == 0 || kinds["question_type"] == 0 {
		t.Errorf("kinds on spans: %v", kinds)
	}
	if in != res.Usage.PromptTokens || out != res.Usage.CompletionTokens {
		t.Errorf("span tokens %d/%d, Usage %+v", in, out, res.Usage)
	}
}

func TestSpansOfBuild(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	m := &fake.Model{Default: `{"summary":"a passage","keywords":["k"],"tags":["t"]}`}
	p, err := New(Config{Embedder: &fake.Embedder{Dim: 8}, Model: m, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), testDocs())
	if err != nil {
		t.Fatal(err)
	}
	names := spanNames(exp.GetSpans())
	for _, n := range []string{"flowreader.build", "flowreader.build.analyse", "flowreader.build.embed", "flowreader.build.evolve", "flowreader.build.knn", "chat", "embeddings"} {
		if names[n] == 0 {
			t.Errorf("no span %q in %v", n, names)
		}
	}
	if names["flowreader.build.evolve"] != 3 || names["chat"] != len(m.Calls()) {
		t.Errorf("spans %v for %d model calls", names, len(m.Calls()))
	}
	kinds := map[string]int{}
	for _, s := range exp.GetSpans() {
		if s.Name == "chat" {
			kinds[attrs(s)["flowreader.call.kind"].AsString()]++
		}
	}
	n := len(g.Nodes)
	if kinds["analysis"] != n || kinds["evolution"] != 3*n {
		t.Errorf("kinds %v for %d nodes", kinds, n)
	}
	if g.Usage.Calls != len(m.Calls()) || g.Usage.PromptTokens == 0 || g.Usage.EmbedCalls != 4 {
		t.Errorf("build usage %+v, %d model calls", g.Usage, len(m.Calls()))
	}
}

// testDocs is a small collection: two documents of three passages.
func testDocs() []graph.Document {
	var docs []graph.Document
	for d := 0; d < 2; d++ {
		doc := graph.Document{ID: fmt.Sprintf("doc%d", d)}
		for i := 0; i < 3; i++ {
			doc.Items = append(doc.Items, graph.Item{Modality: graph.ModalityText, Page: -1,
				Text: fmt.Sprintf("Confidential passage %d of document %d: the Kestrel Bay gauge read %d.", i, d, 10*d+i)})
		}
		docs = append(docs, doc)
	}
	return docs
}

// A cached re-build makes no calls, and counts none.
func TestBuildUsageCache(t *testing.T) {
	m := &fake.Model{Default: `{"summary":"a passage","keywords":["k"],"tags":["t"]}`}
	cfg := Config{Embedder: &fake.Embedder{Dim: 8}, Model: m, Cache: llmutil.NewMemoryStore()}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g1, err := p.Build(context.Background(), testDocs())
	if err != nil {
		t.Fatal(err)
	}
	g2, err := p.Build(context.Background(), testDocs())
	if err != nil {
		t.Fatal(err)
	}
	if g1.Usage.Calls == 0 || g2.Usage != (llm.Totals{}) {
		t.Errorf("first build %+v, cached re-build %+v", g1.Usage, g2.Usage)
	}
}

// Nil providers use no global provider.
func TestNoGlobalProvider(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	ix := system2Index(t, system2Script().Model(), Config{})
	if _, err := ix.Ask(context.Background(), fixture.Question, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(exp.GetSpans()); n != 0 {
		t.Errorf("%d spans on the global provider", n)
	}
}

// recMeter records histogram values by instrument name and token type.
type recMeter struct {
	metricnoop.MeterProvider
	mu   sync.Mutex
	ints map[string]int64
	obs  map[string]int
}

type recMeterImpl struct {
	metricnoop.Meter
	r *recMeter
}

type recInt struct {
	metricnoop.Int64Histogram
	r    *recMeter
	name string
}

type recFloat struct {
	metricnoop.Float64Histogram
	r    *recMeter
	name string
}

func (r *recMeter) Meter(string, ...metric.MeterOption) metric.Meter { return recMeterImpl{r: r} }

func (m recMeterImpl) Int64Histogram(name string, _ ...metric.Int64HistogramOption) (metric.Int64Histogram, error) {
	return recInt{r: m.r, name: name}, nil
}

func (m recMeterImpl) Float64Histogram(name string, _ ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	return recFloat{r: m.r, name: name}, nil
}

func (h recInt) Record(_ context.Context, v int64, opts ...metric.RecordOption) {
	c := metric.NewRecordConfig(opts)
	set := c.Attributes()
	tt, _ := set.Value("gen_ai.token.type")
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	h.r.ints[h.name+"/"+tt.AsString()] += v
	h.r.obs[h.name]++
}

func (h recFloat) Record(_ context.Context, v float64, opts ...metric.RecordOption) {
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	if v < 0 {
		h.r.obs["negative duration"]++
	}
	h.r.obs[h.name]++
}

func TestMetrics(t *testing.T) {
	mp := &recMeter{ints: map[string]int64{}, obs: map[string]int{}}
	m := system2Script().Model()
	res, err := system2Index(t, m, Config{MeterProvider: mp}).Ask(context.Background(), fixture.Question, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := res.Usage
	if got := mp.ints["gen_ai.client.token.usage/input"]; got != int64(u.PromptTokens) {
		t.Errorf("input tokens %d, Usage %+v", got, u)
	}
	if got := mp.ints["gen_ai.client.token.usage/output"]; got != int64(u.CompletionTokens) {
		t.Errorf("output tokens %d, Usage %+v", got, u)
	}
	// One duration per model call and per embedding call.
	if got := mp.obs["gen_ai.client.operation.duration"]; got != u.Calls+u.EmbedCalls || mp.obs["negative duration"] != 0 {
		t.Errorf("%v durations, Usage %+v", mp.obs, u)
	}
}

// logLines runs f with a debug-level JSON logger and returns its records.
func logLines(t *testing.T, f func(*slog.Logger)) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	f(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	var recs []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// No prompt, question, document text or key is logged at info level or
// above, over a build, an Ask with System 2, and a failing build whose
// server quotes the key in its errors.
func TestLogsKeepContentOut(t *testing.T) {
	const key = "sk-test-7f3a9c1e5b"
	srv := faultserver.New(faultserver.Config{APIKey: key + "-other", EchoAuth: true})
	defer srv.Close()
	var prompts []string
	levels := map[string]int{}
	var msgs []string
	recs := logLines(t, func(l *slog.Logger) {
		bm := &fake.Model{Default: `{"summary":"a passage","keywords":["k"],"tags":["t"]}`}
		p, err := New(Config{Embedder: &fake.Embedder{Dim: 8}, Model: bm, Logger: l})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Build(context.Background(), testDocs()); err != nil {
			t.Fatal(err)
		}
		m := system2Script().Model()
		ix := system2Index(t, m, Config{Logger: l})
		if _, err := ix.Ask(context.Background(), fixture.Question, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, c := range append(bm.Calls(), m.Calls()...) {
			prompts = append(prompts, fake.Prompt(c))
		}
		chat, err := openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		p, err = New(Config{Embedder: &fake.Embedder{Dim: 8}, Model: chat, Logger: l})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Build(context.Background(), testDocs()); err == nil {
			t.Fatal("build with a refused key succeeded")
		}
	})
	secrets := []string{key, fixture.Question, "Confidential passage", "Kestrel", "North Mole"}
	for _, p := range prompts {
		if len(p) > 60 {
			secrets = append(secrets, p[:60])
		}
	}
	for _, r := range recs {
		lvl, _ := r["level"].(string)
		levels[lvl]++
		msgs = append(msgs, fmt.Sprint(r["msg"]))
		if lvl == "DEBUG" {
			continue
		}
		line, _ := json.Marshal(r)
		for _, s := range secrets {
			if strings.Contains(string(line), s) {
				t.Errorf("%s record holds %q: %s", lvl, s, line)
			}
		}
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{"flowreader: build", "flowreader: build stage", "flowreader: build done", "flowreader: open", "flowreader: question answered", "model call", "embedding call", "flowreader: build failed"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no record %q in\n%s", want, joined)
		}
	}
	if levels["INFO"] == 0 || levels["DEBUG"] == 0 {
		t.Errorf("levels %v", levels)
	}
}

// A nil logger is silent and a logger above debug level skips the
// per-call records.
func TestLoggerLevels(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ix := system2Index(t, system2Script().Model(), Config{Logger: l})
	if _, err := ix.Ask(context.Background(), fixture.Question, Options{}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("warn-level logger got %q", buf.String())
	}
}

// Embedding tokens the server reports are counted (openai embedder,
// httptest server speaking the embeddings protocol).
func TestEmbeddingTokens(t *testing.T) {
	srv := faultserver.New(faultserver.Config{Dim: 8})
	defer srv.Close()
	emb, err := openai.NewEmbedder(openai.Config{EmbedURL: srv.BaseURL(), EmbedModel: "e"})
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	p, err := New(Config{Embedder: emb, TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), testDocs())
	if err != nil {
		t.Fatal(err)
	}
	if g.Usage.EmbedCalls != 1 || g.Usage.EmbedTokens <= 0 {
		t.Errorf("build usage %+v", g.Usage)
	}
	spanTokens := 0
	for _, s := range exp.GetSpans() {
		if s.Name == "embeddings e" {
			spanTokens += int(attrs(s)["gen_ai.usage.input_tokens"].AsInt64())
		}
	}
	if spanTokens != g.Usage.EmbedTokens {
		t.Errorf("span tokens %d, usage %+v", spanTokens, g.Usage)
	}
}

// A failing model call marks its span with the error type, not the
// message.
func TestSpanOfFailedCall(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	m := &fake.Model{Rules: []fake.Rule{{Err: &llm.APIError{StatusCode: 503, Message: "secret prompt echoed"}}}}
	p, err := New(Config{Embedder: &fake.Embedder{Dim: 8}, Model: m, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Build(context.Background(), testDocs())
	var api *llm.APIError
	if !errors.As(err, &api) {
		t.Fatalf("build error %v", err)
	}
	// The first failure cancels the other analysis calls in flight.
	found := 0
	for _, s := range exp.GetSpans() {
		if s.Name != "chat" {
			continue
		}
		a := attrs(s)
		typ := a["error.type"].AsString()
		if typ == "503" {
			found++
		}
		if (typ != "503" && typ != "canceled") || s.Status.Description != typ {
			t.Errorf("failed call span: %v %+v", a, s.Status)
		}
		for _, e := range s.Events {
			t.Errorf("event %v on a model span", e)
		}
	}
	if found == 0 {
		t.Error("no chat span of the failed call")
	}
}
