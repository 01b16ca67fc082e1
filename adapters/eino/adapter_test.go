package eino_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/embedding"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"

	"github.com/flowreader/flowreader"
	einoadapter "github.com/flowreader/flowreader/adapters/eino"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

// chatModel is a tiny Eino model.BaseChatModel: it records what it is sent
// and answers reply, or fails with err.
type chatModel struct {
	mu    sync.Mutex
	reply string
	err   error
	got   [][]*schema.Message
	opts  []*model.Options
}

func (c *chatModel) Generate(_ context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, in)
	c.opts = append(c.opts, model.GetCommonOptions(&model.Options{}, opts...))
	if c.err != nil {
		return nil, c.err
	}
	return &schema.Message{Role: schema.Assistant, Content: c.reply, ResponseMeta: &schema.ResponseMeta{
		FinishReason: "stop", Usage: &schema.TokenUsage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17}}}, nil
}

// Stream answers reply word by word, the usage on the last chunk, as
// eino-ext's OpenAI component streams.
func (c *chatModel) Stream(_ context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, in)
	c.opts = append(c.opts, model.GetCommonOptions(&model.Options{}, opts...))
	if c.err != nil {
		return nil, c.err
	}
	var chunks []*schema.Message
	for _, w := range strings.SplitAfter(c.reply, " ") {
		chunks = append(chunks, &schema.Message{Role: schema.Assistant, Content: w})
	}
	chunks = append(chunks, &schema.Message{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{
		FinishReason: "stop", Usage: &schema.TokenUsage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17}}})
	return schema.StreamReaderFromArray(chunks), nil
}

// embedder is a tiny Eino embedding.Embedder: vector (len(text), 1, 0).
type embedder struct {
	mu     sync.Mutex
	inputs []string
	err    error
}

func (e *embedder) EmbedStrings(_ context.Context, texts []string, _ ...embedding.Option) ([][]float64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return nil, e.err
	}
	e.inputs = append(e.inputs, texts...)
	out := make([][]float64, len(texts))
	for i, t := range texts {
		out[i] = []float64{float64(len(t)), 1, 0}
	}
	return out, nil
}

// apiError has the shape of go-openai's APIError, which Eino's
// OpenAI-protocol components return.
type apiError struct {
	HTTPStatusCode int
	Message        string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("error, status code: %d, message: %s", e.HTTPStatusCode, e.Message)
}

func TestModel(t *testing.T) {
	c := &chatModel{reply: `{"answer":"31"}`}
	m, err := einoadapter.NewModel(c, "eino/fake", einoadapter.ModelOptions{Images: true})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{
		Messages: []llm.Message{
			{Role: "system", Parts: []llm.Part{{Text: "Be brief."}}},
			{Role: "user", Parts: []llm.Part{{Text: "How many nests?"}, {Image: &llm.Image{Data: []byte{1, 2, 3}, MIME: "image/png"}}}},
		},
		JSONSchema: []byte(`{"type":"object"}`), SchemaName: "answer", Temperature: 0.5, MaxTokens: 64,
	}
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"answer":"31"}` || resp.FinishReason != "stop" || resp.Usage != (llm.Usage{PromptTokens: 12, CompletionTokens: 5}) {
		t.Errorf("response %+v", resp)
	}
	in := c.got[0]
	if len(in) != 3 || in[0].Role != schema.System || !strings.Contains(in[0].Content, `{"type":"object"}`) || in[1].Content != "Be brief." {
		t.Fatalf("messages %+v", in)
	}
	parts := in[2].UserInputMultiContent
	if len(parts) != 2 || parts[0].Text != "How many nests?" || parts[1].Image == nil ||
		*parts[1].Image.Base64Data != "AQID" || parts[1].Image.MIMEType != "image/png" {
		t.Errorf("user parts %+v", parts)
	}
	o := c.opts[0]
	if o.Temperature == nil || *o.Temperature != 0.5 || o.MaxTokens == nil || *o.MaxTokens != 64 {
		t.Errorf("options %+v", o)
	}
	if m.Name() != "eino/fake" || !m.AcceptsImages() {
		t.Error("capabilities")
	}

	// With a Schema function, the schema goes as the provider's options.
	var gotName string
	m, _ = einoadapter.NewModel(c, "eino/fake", einoadapter.ModelOptions{Schema: func(name string, _ []byte) []model.Option {
		gotName = name
		return []model.Option{model.WithModel("structured")}
	}})
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if o := c.opts[1]; gotName != "answer" || o.Model == nil || *o.Model != "structured" || len(c.got[1]) != 2 {
		t.Errorf("schema options: name %q, %d messages", gotName, len(c.got[1]))
	}
}

// GenerateStream passes the model's chunks on and sums them as Generate
// answers.
func TestModelStream(t *testing.T) {
	cm := &chatModel{reply: "The North Mole had 248 nests."}
	m, err := einoadapter.NewModel(cm, "eino-test", einoadapter.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var s llm.Streamer = m
	var pieces []string
	resp, err := s.GenerateStream(context.Background(), userText("q"), func(p string) { pieces = append(pieces, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 6 || strings.Join(pieces, "") != resp.Text || resp.Text != cm.reply || resp.FinishReason != "stop" || resp.Usage.CompletionTokens != 5 {
		t.Fatalf("pieces %q, %+v", pieces, resp)
	}
	cm.err = &apiError{HTTPStatusCode: 503, Message: "busy"}
	if _, err := s.GenerateStream(context.Background(), userText("q"), func(string) {}); !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
}

func TestErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		err    error
		want   error
		status int
	}{
		{&apiError{429, "slow down"}, llm.ErrRateLimited, 429},
		{fmt.Errorf("openai: %w", &apiError{503, "overloaded"}), llm.ErrUnavailable, 503},
		{errors.New("request failed: status code: 500"), llm.ErrUnavailable, 500},
		{errors.New("dial tcp: connection refused"), llm.ErrUnavailable, 0},
	} {
		m, _ := einoadapter.NewModel(&chatModel{err: tc.err}, "x", einoadapter.ModelOptions{})
		_, err := m.Generate(context.Background(), userText("hi"))
		if !errors.Is(err, tc.want) {
			t.Errorf("%v: %v, want %v", tc.err, err, tc.want)
		}
		var api *llm.APIError
		if tc.status != 0 && (!errors.As(err, &api) || api.StatusCode != tc.status) {
			t.Errorf("%v: no APIError %d: %v", tc.err, tc.status, err)
		}
		e, _ := einoadapter.NewEmbedder(&embedder{err: tc.err}, "x", 3, einoadapter.EmbedderOptions{})
		if _, err := e.Embed(context.Background(), []string{"a"}, llm.KindQuery); !errors.Is(err, tc.want) {
			t.Errorf("embed %v: %v", tc.err, err)
		}
	}
	m, _ := einoadapter.NewModel(&chatModel{err: &apiError{400, "bad"}}, "x", einoadapter.ModelOptions{})
	_, err := m.Generate(context.Background(), userText("hi"))
	if errors.Is(err, llm.ErrRateLimited) || errors.Is(err, llm.ErrUnavailable) {
		t.Errorf("400 made temporary: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ = einoadapter.NewModel(&chatModel{err: errors.New("request cancelled")}, "x", einoadapter.ModelOptions{})
	if _, err := m.Generate(ctx, userText("hi")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestEmbedder(t *testing.T) {
	f := &embedder{}
	e, err := einoadapter.NewEmbedder(f, "nomic-embed-text", 3, einoadapter.EmbedderOptions{
		DocumentPrefix: einoadapter.NomicDocumentPrefix, QueryPrefix: einoadapter.NomicQueryPrefix, MaxBatch: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	vs, err := e.Embed(ctx, []string{"a", "bb"}, llm.KindDocument)
	if err != nil || len(vs) != 2 || vs[1][0] != float32(len("search_document: bb")) {
		t.Fatalf("%v %v", vs, err)
	}
	if _, err := e.Embed(ctx, []string{"q"}, llm.KindQuery); err != nil {
		t.Fatal(err)
	}
	want := "search_document: a|search_document: bb|search_query: q"
	if got := strings.Join(f.inputs, "|"); got != want {
		t.Errorf("inputs %q, want %q", got, want)
	}
	if e.Dimension() != 3 || e.Name() != "nomic-embed-text" || e.MaxBatch() != 8 {
		t.Error("capabilities")
	}
	wrong, _ := einoadapter.NewEmbedder(f, "x", 4, einoadapter.EmbedderOptions{})
	if _, err := wrong.Embed(ctx, []string{"a"}, llm.KindDocument); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Errorf("wrong dimension: %v", err)
	}
	if _, err := einoadapter.NewEmbedder(f, "x", 0, einoadapter.EmbedderOptions{}); err == nil {
		t.Error("no dimension accepted")
	}
}

func collection() []graph.Document {
	return []graph.Document{
		{ID: "survey", Title: "Harbour survey", Items: []graph.Item{
			{Modality: graph.ModalityText, Page: 0, Text: "The harbour survey counts seabird nests on three breakwaters every June."},
			{Modality: graph.ModalityTable, Page: 0, Caption: "Table 1: Nests per breakwater.",
				Text: "Breakwater | Nests 2024 | Nests 2025\nNorth Mole | 212 | 248\nEast Arm | 97 | 31\nLighthouse Spit | 58 | 66"},
			{Modality: graph.ModalityText, Page: 0, Text: "The East Arm lost its tern colony after the May storm flooded its lower sections."},
		}},
		{ID: "station", Title: "Weather station report", Items: []graph.Item{
			{Modality: graph.ModalityText, Page: 0, Text: "Storm Elda arrived on 14 May with gusts of 131 km/h and a surge of 2.1 metres."},
			{Modality: graph.ModalityText, Page: 1, Text: "Rainfall was highest in November and lowest in July."},
		}},
	}
}

func index(t testing.TB, cfg flowreader.Config) *flowreader.Index {
	ctx := context.Background()
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctx, collection())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestRetriever(t *testing.T) {
	ix := index(t, flowreader.Config{})
	r, err := einoadapter.NewRetriever(ix, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q := "How many nests did the East Arm have in 2025?"
	docs, err := r.Retrieve(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 || len(docs) > len(ix.Graph().Nodes) {
		t.Fatalf("%d documents", len(docs))
	}
	seen := map[string]bool{}
	for _, d := range docs {
		if seen[d.ID] {
			t.Errorf("node %s twice", d.ID)
		}
		seen[d.ID] = true
		for _, k := range []string{"id", "document", "page", "modality", "section", "chain", "flow", "h"} {
			if _, ok := d.MetaData[k]; !ok {
				t.Errorf("%s: no %s", d.ID, k)
			}
		}
		if d.Score() != d.MetaData["h"].(float64) {
			t.Errorf("%s: score %v", d.ID, d.Score())
		}
	}
	if !seen["survey#1"] {
		t.Errorf("the table is not retrieved: %v", seen)
	}
	if docs, _ := r.Retrieve(ctx, q, retriever.WithTopK(1)); len(docs) != 1 {
		t.Errorf("top 1: %d documents", len(docs))
	}
	if docs, _ := r.Retrieve(ctx, q, retriever.WithScoreThreshold(2)); len(docs) != 0 {
		t.Errorf("threshold above every h: %d documents", len(docs))
	}
}

// The adapted embedder and model drive a whole pipeline: build and ask.
func TestPipelineOverAdapters(t *testing.T) {
	f := &embedder{}
	c := &chatModel{reply: "31"}
	e, _ := einoadapter.NewEmbedder(f, "eino/emb", 3, einoadapter.EmbedderOptions{})
	m, _ := einoadapter.NewModel(c, "eino/chat", einoadapter.ModelOptions{})
	ix := index(t, flowreader.Config{Embedder: e, Model: m, Budget: 2})
	if ix.Graph().Embedder != "eino/emb" {
		t.Errorf("graph embedder %q", ix.Graph().Embedder)
	}
	if _, err := ix.Ask(context.Background(), "How many nests did the East Arm have in 2025?", flowreader.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(c.got) == 0 {
		t.Error("no model call")
	}
}

// userText is a single-message, text-only request.
func userText(prompt string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: prompt}}}}}
}
