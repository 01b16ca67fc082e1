package langchaingo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/flowreader/flowreader"
	lcadapter "github.com/flowreader/flowreader/adapters/langchaingo"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

// server speaks enough of the OpenAI protocol for LangChainGo's client:
// chat completions and embeddings, or the given status for every call.
type server struct {
	mu     sync.Mutex
	status int
	chat   []map[string]any // chat request bodies received
	inputs []string         // embedding inputs received
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	if s.status != 0 {
		w.WriteHeader(s.status)
		_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"requests"}}`)
		return
	}
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		var in struct{ Input []string }
		_ = json.Unmarshal(body, &in)
		s.inputs = append(s.inputs, in.Input...)
		var data []map[string]any
		for i, t := range in.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(len(t)), 1, 0}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "emb"})
	case req["stream"] == true:
		s.chat = append(s.chat, req)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range []string{"forty", " one"} {
			fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", p)
		}
		_, _ = io.WriteString(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	default:
		s.chat = append(s.chat, req)
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"answer\":\"31\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}`)
	}
}

func client(t *testing.T, s *server) *openai.LLM {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	c, err := openai.New(openai.WithBaseURL(ts.URL+"/v1"), openai.WithToken("test"), openai.WithModel("m"), openai.WithEmbeddingModel("emb"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestModelOverOpenAIProtocol(t *testing.T) {
	s := &server{}
	m, err := lcadapter.NewModel(client(t, s), "openai/m", lcadapter.ModelOptions{Images: true})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{
		Messages: []llm.Message{{Role: "user", Parts: []llm.Part{
			{Text: "How many nests?"}, {Image: &llm.Image{Data: []byte{1, 2, 3}, MIME: "image/png"}}}}},
		JSONSchema: []byte(`{"type":"object","properties":{"answer":{"type":"string"}}}`), SchemaName: "answer",
		MaxTokens: 64, Seed: 7,
	}
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"answer":"31"}` || resp.FinishReason != "stop" {
		t.Errorf("response %+v", resp)
	}
	if resp.Usage != (llm.Usage{PromptTokens: 12, CompletionTokens: 5}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if m.Name() != "openai/m" || !m.AcceptsImages() {
		t.Error("capabilities")
	}
	body, _ := json.Marshal(s.chat[0])
	for _, want := range []string{`"json_object"`, `data:image/png;base64,AQID`, `"seed":7`, `validates against this JSON schema`, `"role":"system"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("request lacks %s: %s", want, body)
		}
	}
}

func TestErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   error
	}{{429, llm.ErrRateLimited}, {503, llm.ErrUnavailable}, {500, llm.ErrUnavailable}} {
		s := &server{status: tc.status}
		c := client(t, s)
		m, _ := lcadapter.NewModel(c, "openai/m", lcadapter.ModelOptions{})
		_, err := m.Generate(context.Background(), userText("hi"))
		if !errors.Is(err, tc.want) {
			t.Errorf("status %d: %v, want %v", tc.status, err, tc.want)
		}
		var api *llm.APIError
		if !errors.As(err, &api) || api.StatusCode != tc.status {
			t.Errorf("status %d: no APIError with the status: %v", tc.status, err)
		}
		e, _ := embeddings.NewEmbedder(c)
		emb, _ := lcadapter.NewEmbedder(e, "openai/emb", 3, lcadapter.EmbedderOptions{})
		if _, err := emb.Embed(context.Background(), []string{"x"}, llm.KindDocument); !errors.Is(err, tc.want) {
			t.Errorf("embed, status %d: %v", tc.status, err)
		}
	}
	// A 400 is permanent: an APIError with no retryable sentinel.
	m, _ := lcadapter.NewModel(client(t, &server{status: 400}), "openai/m", lcadapter.ModelOptions{})
	_, err := m.Generate(context.Background(), userText("hi"))
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 400 || errors.Is(err, llm.ErrRateLimited) || errors.Is(err, llm.ErrUnavailable) {
		t.Errorf("400: %v", err)
	}
	// An unreachable server is temporary.
	ts := httptest.NewServer(&server{})
	ts.Close()
	c, _ := openai.New(openai.WithBaseURL(ts.URL+"/v1"), openai.WithToken("test"))
	m, _ = lcadapter.NewModel(c, "openai/m", lcadapter.ModelOptions{})
	if _, err := m.Generate(context.Background(), userText("hi")); !errors.Is(err, llm.ErrUnavailable) {
		t.Errorf("closed server: %v", err)
	}
	// LangChainGo's standard errors.
	fm := lcadapter.ModelFunc(func() error { return llms.NewError(llms.ErrCodeRateLimit, "anthropic", "overloaded") })
	m, _ = lcadapter.NewModel(fm, "x", lcadapter.ModelOptions{})
	if _, err := m.Generate(context.Background(), userText("hi")); !errors.Is(err, llm.ErrRateLimited) {
		t.Errorf("llms.Error rate limit: %v", err)
	}
}

func TestEmbedderKindsAndPrefixes(t *testing.T) {
	s := &server{}
	e, err := embeddings.NewEmbedder(client(t, s))
	if err != nil {
		t.Fatal(err)
	}
	emb, err := lcadapter.NewEmbedder(e, "nomic-embed-text", 3, lcadapter.EmbedderOptions{
		DocumentPrefix: lcadapter.NomicDocumentPrefix, QueryPrefix: lcadapter.NomicQueryPrefix, MaxBatch: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	vs, err := emb.Embed(ctx, []string{"a", "bb"}, llm.KindDocument)
	if err != nil || len(vs) != 2 || vs[1][0] != float32(len("search_document: bb")) {
		t.Fatalf("documents: %v %v", vs, err)
	}
	if _, err := emb.Embed(ctx, []string{"q"}, llm.KindQuery); err != nil {
		t.Fatal(err)
	}
	want := []string{"search_document: a", "search_document: bb", "search_query: q"}
	if strings.Join(s.inputs, "|") != strings.Join(want, "|") {
		t.Errorf("inputs %q, want %q", s.inputs, want)
	}
	if emb.Dimension() != 3 || emb.Name() != "nomic-embed-text" || emb.MaxBatch() != 8 {
		t.Error("capabilities")
	}
	wrong, _ := lcadapter.NewEmbedder(e, "x", 4, lcadapter.EmbedderOptions{})
	if _, err := wrong.Embed(ctx, []string{"a"}, llm.KindDocument); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Errorf("wrong dimension: %v", err)
	}
	if _, err := lcadapter.NewEmbedder(e, "", 3, lcadapter.EmbedderOptions{}); err == nil {
		t.Error("no name accepted")
	}
}

// GenerateStream passes the provider's chunks on as they come; a provider
// that does not stream has its answer passed on whole.
func TestModelStream(t *testing.T) {
	m, _ := lcadapter.NewModel(client(t, &server{}), "openai/m", lcadapter.ModelOptions{})
	var s llm.Streamer = m
	var pieces []string
	resp, err := s.GenerateStream(context.Background(), userText("how many?"), func(p string) { pieces = append(pieces, p) })
	if err != nil || strings.Join(pieces, "|") != "forty| one" || resp.Text != "forty one" {
		t.Fatalf("pieces %q, %+v, %v", pieces, resp, err)
	}
	f, _ := lcadapter.NewModel(fake.NewFakeLLM([]string{"forty"}), "fake", lcadapter.ModelOptions{})
	pieces = nil
	resp, err = f.GenerateStream(context.Background(), userText("how many?"), func(p string) { pieces = append(pieces, p) })
	if err != nil || len(pieces) != 1 || pieces[0] != "forty" || resp.Text != "forty" {
		t.Fatalf("fake: pieces %q, %+v, %v", pieces, resp, err)
	}
}

func TestModelWithFakeLLM(t *testing.T) {
	m, _ := lcadapter.NewModel(fake.NewFakeLLM([]string{"forty"}), "fake", lcadapter.ModelOptions{})
	resp, err := m.Generate(context.Background(), userText("how many?"))
	if err != nil || resp.Text != "forty" || resp.Usage != (llm.Usage{}) {
		t.Fatalf("%+v %v", resp, err)
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
	r, err := lcadapter.NewRetriever(ix, 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := r.GetRelevantDocuments(context.Background(), "How many nests did the East Arm have in 2025?")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 || len(docs) > len(ix.Graph().Nodes) {
		t.Fatalf("%d documents", len(docs))
	}
	seen := map[string]bool{}
	table := false
	for _, d := range docs {
		id := d.Metadata["id"].(string)
		if seen[id] {
			t.Errorf("node %s twice", id)
		}
		seen[id] = true
		table = table || id == "survey#1"
		for _, k := range []string{"document", "page", "modality", "section", "chain", "flow", "h"} {
			if _, ok := d.Metadata[k]; !ok {
				t.Errorf("%s: no %s", id, k)
			}
		}
	}
	if !table {
		t.Errorf("the table is not retrieved: %v", seen)
	}
	one, _ := lcadapter.NewRetriever(ix, 1)
	if docs, _ := one.GetRelevantDocuments(context.Background(), "East Arm nests"); len(docs) != 1 {
		t.Errorf("limit 1: %d documents", len(docs))
	}
	if _, err := r.GetRelevantDocuments(context.Background(), " "); err == nil {
		t.Error("empty query accepted")
	}
}

// The adapted embedder and model drive a whole pipeline: build and ask.
func TestPipelineOverAdapters(t *testing.T) {
	s := &server{}
	c := client(t, s)
	e, _ := embeddings.NewEmbedder(c)
	emb, _ := lcadapter.NewEmbedder(e, "openai/emb", 3, lcadapter.EmbedderOptions{})
	m, _ := lcadapter.NewModel(c, "openai/m", lcadapter.ModelOptions{})
	ix := index(t, flowreader.Config{Embedder: emb, Model: m, Budget: 2})
	if ix.Graph().Embedder != "openai/emb" {
		t.Errorf("graph embedder %q", ix.Graph().Embedder)
	}
	if _, err := ix.Ask(context.Background(), "How many nests did the East Arm have in 2025?", flowreader.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(s.chat) == 0 {
		t.Error("no model call")
	}
}

// userText is a single-message, text-only request.
func userText(prompt string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: prompt}}}}}
}
