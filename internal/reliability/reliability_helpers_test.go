package reliability

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/faultserver"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

// The corpus: three field reports with distinct paragraphs, so that every
// model request is distinct (the cache and the server log are keyed by
// request content), and one table.
var topics = []string{"ridge", "harbour", "marsh"}

func corpus() []graph.Document {
	var docs []graph.Document
	for d, topic := range topics {
		doc := graph.Document{ID: topic + "-report", Title: "Survey of the " + topic}
		for i := 0; i < 7; i++ {
			doc.Items = append(doc.Items, graph.Item{
				Modality: graph.ModalityText,
				Section:  fmt.Sprintf("Section %d", i/3+1),
				Page:     i / 3,
				Text: fmt.Sprintf("At the %s station %d observers logged %d sightings of %s during week %d. "+
					"Weather notes mention %s winds and visibility of %d kilometres.",
					topic, i, 10*d+i+3, []string{"gulls", "terns", "herons", "plovers", "kites", "owls", "swifts"}[i], i+d+1,
					[]string{"northerly", "westerly", "gusty", "calm", "southerly", "easterly", "variable"}[(i+d)%7], i+d+4),
			})
		}
		doc.Items = append(doc.Items, graph.Item{
			Modality: graph.ModalityTable, Page: 2, Caption: "Table 1: " + topic + " counts",
			Text: fmt.Sprintf("Species | Count\nkestrels | %d\nfalcons | %d", 40+d*2, 7+d),
		})
		docs = append(docs, doc)
	}
	docs[0].Items = append(docs[0].Items, graph.Item{Modality: graph.ModalityText, Page: 3, Section: "Summary",
		Text: "The ridge survey counted 42 kestrels at the north ridge in May, the highest count of the season."})
	return docs
}

// workerMarker opens both presets' worker prompts (v3 P4, v1 B.2).
const workerMarker = "Read the evidence passages and images below"

const question = "How many kestrels were counted at the north ridge?"

// respond is the scripted model behind the fault server: deterministic
// answers for the graph's P1/P2/P3 prompts and the reader's prompts, keyed
// only by the request's content.
func respond(r *faultserver.ChatRequest) string {
	p := r.Prompt()
	h := sha256.Sum256([]byte(p))
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	snippet := func(s string, n int) string {
		s = strings.Join(strings.Fields(s), " ")
		if len(s) > n {
			s = s[:n]
		}
		return s
	}
	switch r.Schema {
	case "text_node_analysis", "visual_node_analysis":
		in := p
		if i := strings.LastIndex(p, "Input Text: "); i >= 0 {
			in = p[i:]
		} else if i := strings.Index(p, "This is context:"); i >= 0 {
			in = p[i:]
		}
		return js(map[string]any{
			"keywords":     keywords(snippet(in, 60)),
			"summary":      "Summary of " + snippet(in, 140),
			"tags":         []string{"survey"},
			"text_content": snippet(in, 40),
		})
	case "node_linking":
		note := p
		if i := strings.Index(p, "The memory note content: "); i >= 0 {
			note = p[i+len("The memory note content: "):]
		}
		return js(map[string]any{
			"suggested_connections": []int{int(h[0] % 3), int(h[1] % 5)},
			"should_update":         h[2]%3 == 0,
			"new_summary":           "Evolved: " + snippet(note, 100),
			"new_keywords":          []string{"evolved", fmt.Sprintf("k%d", h[3]%7)},
		})
	case "question_type":
		return `{"type":"value","length":"short"}`
	}
	switch {
	case strings.Contains(p, workerMarker):
		if strings.Contains(p, "42 kestrels") {
			return `{"status":"supported","answer":"42 kestrels","evidence":"counted 42 kestrels at the north ridge"}`
		}
		if strings.Contains(p, "kestrels") {
			return `{"status":"supported","answer":"about 40 kestrels","evidence":"kestrels | 40"}`
		}
		return `{"status":"not_reported","answer":"","evidence":""}`
	case strings.Contains(p, "Does reading Passage A then Passage B"):
		return fmt.Sprintf("%.1f", float64(h[4]%10)/10)
	case strings.Contains(p, "EXISTS: YES or NO"):
		return fmt.Sprintf("EXISTS: YES SCORE: %.1f", float64(h[5]%10)/10)
	case strings.Contains(p, "CONTRADICT"):
		return "NO"
	case strings.Contains(p, "EVIDENCE PATHS"):
		return "<thought>The ridge survey gives the count.</thought><output>The ridge survey counted 42 kestrels at the north ridge.</output>"
	}
	return "NO"
}

// stack is one client configuration against a server: the openai adapters
// through llm.Wrap with retries, with a per-attempt timeout.
type stack struct {
	hc    *http.Client
	model llm.Model
	emb   llm.Embedder
	chat  llm.Model
}

// retryConfig retries fast (the server's Retry-After is short) and
// deterministically.
func retryConfig() llm.Middleware {
	return llm.Middleware{Attempts: 4, BaseDelay: 2 * time.Millisecond, MaxDelay: 20 * time.Millisecond, Seed: 1}
}

func newStack(t testing.TB, s *faultserver.Server, key string, attempt time.Duration) *stack {
	t.Helper()
	hc := s.Client()
	t.Cleanup(hc.CloseIdleConnections)
	hc.Timeout = attempt
	cfg := openai.Config{BaseURL: s.BaseURL(), APIKey: key, Model: "vlm-test", EmbedModel: "embed-test", HTTPClient: hc}
	chat, err := openai.NewChat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := openai.NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &stack{
		hc:    hc,
		chat:  chat,
		model: llm.Wrap(chat, retryConfig()),
		emb:   llm.WrapEmbedder(emb, retryConfig()),
	}
}

// pipeline is the Aspects preset over st, with store as the build cache.
func (st *stack) pipeline(t testing.TB, store llm.Store) *flowreader.Pipeline {
	t.Helper()
	return st.pipelineWith(t, flowreader.Config{}, store)
}

// pipelineWith is pipeline with another base configuration.
func (st *stack) pipelineWith(t testing.TB, cfg flowreader.Config, store llm.Store) *flowreader.Pipeline {
	t.Helper()
	cfg.Model, cfg.Embedder, cfg.Cache, cfg.Concurrency = st.model, st.emb, store, 4
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ingestOne ingests the file p with c, failing with the file's own error
// when it is skipped (as ingest.Path does with the zero Config).
func ingestOne(c ingest.Config, p string) ([]graph.Document, error) {
	docs, rep, err := c.Read(context.Background(), p)
	if err == nil && len(docs) == 0 && len(rep.Files) == 1 && rep.Files[0].Err != nil {
		err = rep.Files[0].Err
	}
	return docs, err
}

// encode returns g's file bytes.
func encode(t testing.TB, g *graph.Graph) []byte {
	t.Helper()
	var b strings.Builder
	if err := graph.Write(&b, g); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// faultClasses is the table order of fault classes.
var faultClasses = faultserver.Faults()

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// serve starts a fault server that is closed when the test ends, even when
// it fails early.
func serve(t testing.TB, cfg faultserver.Config) *faultserver.Server {
	s := faultserver.New(cfg)
	t.Cleanup(s.Close)
	return s
}

// keywords are the second to fourth words of s (the first is a prompt label).
func keywords(s string) []string {
	w := strings.Fields(s)
	if len(w) <= 1 {
		return nil
	}
	return w[1:min(4, len(w))]
}

// askOn opens g with p and asks q: most tests ask one question per graph.
func askOn(ctx context.Context, p *flowreader.Pipeline, g *graph.Graph, q string) (*flowreader.Result, error) {
	ix, err := p.Open(ctx, g)
	if err != nil {
		return nil, err
	}
	return ix.Ask(ctx, q, flowreader.Options{})
}
