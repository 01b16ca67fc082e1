package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/server"
)

// collection is a small two-document collection: a table of nest counts
// and the paragraph that explains one row.
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

const question = "How many nests did the East Arm have in 2025?"

func index(t testing.TB, cfg flowreader.Config) *flowreader.Index {
	t.Helper()
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

// gatedEmbedder blocks question embeddings while closed is set, until
// released or the call's context ends; it counts the calls waiting.
type gatedEmbedder struct {
	fake.Embedder
	closed  atomic.Bool
	waiting atomic.Int32
	release chan struct{}
}

func (e *gatedEmbedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	if kind == llm.KindQuery && e.closed.Load() {
		e.waiting.Add(1)
		defer e.waiting.Add(-1)
		select {
		case <-e.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return e.Embedder.Embed(ctx, texts, kind)
}

func newServer(t *testing.T, ix *flowreader.Index, opt server.Options) *httptest.Server {
	t.Helper()
	h, err := server.New(ix, opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

type errorBody struct {
	SchemaVersion int `json:"schema_version"`
	Error         struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Partial json.RawMessage `json:"partial"`
}

func do(t *testing.T, method, url, ctype, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, url, ct)
	}
	return resp.StatusCode, resp.Header, b
}

const jsonType = "application/json"

func TestEndpoints(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{})

	code, _, b := do(t, "GET", ts.URL+"/healthz", "", "")
	if code != 200 || !bytes.Contains(b, []byte(`"status":"ok"`)) || !bytes.Contains(b, []byte(`"schema_version":1`)) {
		t.Errorf("healthz: %d %s", code, b)
	}
	code, _, b = do(t, "GET", ts.URL+"/v1/graph", "", "")
	var info struct {
		SchemaVersion                      int
		Nodes, Edges, Documents, Dimension int
		Embedder                           string
	}
	if err := json.Unmarshal(b, &info); err != nil || code != 200 {
		t.Fatalf("graph: %d %s %v", code, b, err)
	}
	g := ix.Graph()
	if info.Nodes != len(g.Nodes) || info.Edges != len(g.Edges) || info.Documents != 2 || info.Dimension != g.Dim || info.Embedder != g.Embedder {
		t.Errorf("graph summary %+v", info)
	}

	code, _, b = do(t, "POST", ts.URL+"/v1/retrieve", jsonType, `{"question": "`+question+`", "budget": 2}`)
	if code != 200 {
		t.Fatalf("retrieve: %d %s", code, b)
	}
	var ev flowreader.Evidence
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	want, err := ix.Retrieve(context.Background(), question, flowreader.Options{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ev.SchemaVersion != 1 || ev.Budget != 2 || len(ev.Chains) != len(want.Chains) || len(ev.Chains[0].Nodes) == 0 || ev.Chains[0].Nodes[0].ID != want.Chains[0].Nodes[0].ID || ev.Scores != nil {
		t.Errorf("retrieve: %s", b)
	}
	code, _, b = do(t, "POST", ts.URL+"/v1/retrieve", jsonType+"; charset=utf-8", `{"question": "`+question+`", "scores": true}`)
	if err := json.Unmarshal(b, &ev); err != nil || code != 200 || len(ev.Scores) != len(g.Nodes) || ev.Budget != 16 {
		t.Errorf("retrieve with scores: %d %v %d scores, budget %d", code, err, len(ev.Scores), ev.Budget)
	}

	code, _, b = do(t, "POST", ts.URL+"/v1/ask", jsonType, `{"question": "`+question+`", "budget": 4}`)
	var res struct {
		SchemaVersion int    `json:"schema_version"`
		Answer        string `json:"answer"`
		Budget        int    `json:"budget"`
		Citations     []struct {
			NodeID string `json:"node_id"`
		} `json:"citations"`
		Chains []struct {
			Nodes []struct {
				Text string `json:"text"`
			} `json:"nodes"`
		} `json:"chains"`
		Trace struct {
			Reader string `json:"reader"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(b, &res); err != nil || code != 200 {
		t.Fatalf("ask: %d %s %v", code, b, err)
	}
	if res.SchemaVersion != 1 || res.Budget != 4 || !strings.Contains(res.Answer, "31") || len(res.Citations) == 0 || len(res.Chains) == 0 || res.Chains[0].Nodes[0].Text == "" || res.Trace.Reader != "extractive" {
		t.Errorf("ask: %s", b)
	}
}

func TestBadRequests(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{MaxBodyBytes: 1 << 10})
	for _, c := range []struct {
		name, method, path, ctype, body string
		status                          int
		code, msg                       string
	}{
		{"bad JSON", "POST", "/v1/ask", jsonType, `{"question": `, 400, "bad_request", "invalid JSON"},
		{"not an object", "POST", "/v1/retrieve", jsonType, `["q"]`, 400, "bad_request", "invalid JSON"},
		{"wrong type", "POST", "/v1/retrieve", jsonType, `{"question": "q", "budget": "many"}`, 400, "bad_request", "budget"},
		{"unknown field", "POST", "/v1/retrieve", jsonType, `{"question": "q", "top_k": 3}`, 400, "bad_request", `unknown field "top_k"`},
		{"trailing data", "POST", "/v1/ask", jsonType, `{"question": "q"} {"question": "r"}`, 400, "bad_request", "data after the object"},
		{"empty body", "POST", "/v1/ask", jsonType, ``, 400, "bad_request", "empty body"},
		{"empty question", "POST", "/v1/ask", jsonType, `{"question": "  "}`, 400, "empty_question", "question"},
		{"no question", "POST", "/v1/retrieve", jsonType, `{"budget": 3}`, 400, "empty_question", "question"},
		{"negative budget", "POST", "/v1/retrieve", jsonType, `{"question": "q", "budget": -2}`, 400, "bad_budget", "-2"},
		{"huge body", "POST", "/v1/ask", jsonType, `{"question": "` + strings.Repeat("storm ", 1000) + `"}`, 413, "too_large", "1024 bytes"},
		{"form body", "POST", "/v1/ask", "application/x-www-form-urlencoded", `question=q`, 415, "unsupported_media_type", "application/json"},
		{"GET retrieve", "GET", "/v1/retrieve", "", ``, 405, "method_not_allowed", "POST"},
		{"POST graph", "POST", "/v1/graph", jsonType, `{}`, 405, "method_not_allowed", "GET"},
		{"DELETE healthz", "DELETE", "/healthz", "", ``, 405, "method_not_allowed", "GET"},
		{"unknown path", "GET", "/v2/ask", "", ``, 404, "not_found", "/v2/ask"},
		{"root", "GET", "/", "", ``, 404, "not_found", "/v1/retrieve"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, hdr, b := do(t, c.method, ts.URL+c.path, c.ctype, c.body)
			var e errorBody
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("not JSON: %s", b)
			}
			if status != c.status || e.Error.Code != c.code || !strings.Contains(e.Error.Message, c.msg) || e.SchemaVersion != 1 {
				t.Errorf("%d %s, want %d %s with %q", status, b, c.status, c.code, c.msg)
			}
			if status == 405 && hdr.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
}

// Calls beyond MaxInFlight are refused with 503 busy, not queued; a call
// past Timeout is cancelled with 504; others go on being served.
func TestLimits(t *testing.T) {
	emb := &gatedEmbedder{release: make(chan struct{})}
	ix := index(t, flowreader.Config{Embedder: emb})
	ts := newServer(t, ix, server.Options{MaxInFlight: 2, MaxQueue: -1, Timeout: time.Minute})
	emb.closed.Store(true)
	body := `{"question": "` + question + `"}`
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(ts.URL+"/v1/retrieve", jsonType, strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	for emb.waiting.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	status, hdr, b := do(t, "POST", ts.URL+"/v1/ask", jsonType, body)
	var e errorBody
	json.Unmarshal(b, &e)
	if status != 503 || e.Error.Code != "busy" || hdr.Get("Retry-After") == "" {
		t.Errorf("third call: %d %s", status, b)
	}
	// Health and the graph summary are not bounded.
	if status, _, _ := do(t, "GET", ts.URL+"/healthz", "", ""); status != 200 {
		t.Errorf("healthz while busy: %d", status)
	}
	close(emb.release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("a call in flight ended %d", c)
		}
	}

	// Timeout.
	emb2 := &gatedEmbedder{release: make(chan struct{})}
	ix2 := index(t, flowreader.Config{Embedder: emb2})
	ts2 := newServer(t, ix2, server.Options{Timeout: 50 * time.Millisecond})
	emb2.closed.Store(true)
	status, _, b = do(t, "POST", ts2.URL+"/v1/retrieve", jsonType, body)
	json.Unmarshal(b, &e)
	if status != 504 || e.Error.Code != "timeout" {
		t.Errorf("timeout: %d %s", status, b)
	}
}

// A failed ask answers with the partial result: the evidence and the calls
// made before the model failed.
func TestAskFailureKeepsPartial(t *testing.T) {
	m := &fake.Model{Rules: []fake.Rule{
		{Contains: "EVIDENCE PATHS", Err: fmt.Errorf("reasoner: %w", llm.ErrUnavailable)},
		{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`},
	}, Default: `{"status": "supported", "answer": "31", "evidence": "East Arm | 97 | 31"}`}
	// A VLM without a Fallback: the model's failure reaches the client
	// (the default pipeline answers with the extractive reader instead).
	ix := index(t, flowreader.Config{Model: m, Reader: &reader.VLM{Model: m}})
	ts := newServer(t, ix, server.Options{})
	status, _, b := do(t, "POST", ts.URL+"/v1/ask", jsonType, `{"question": "`+question+`", "budget": 2, "partial": true}`)
	var e errorBody
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if status != 502 || e.Error.Code != "model_failed" || !strings.Contains(e.Error.Message, "reasoner") {
		t.Fatalf("%d %s", status, b)
	}
	var partial struct {
		Chains []json.RawMessage `json:"chains"`
		Trace  struct {
			Calls int `json:"calls"`
		} `json:"trace"`
		StagesMS map[string]float64 `json:"stages_ms"`
	}
	if err := json.Unmarshal(e.Partial, &partial); err != nil {
		t.Fatalf("partial: %v in %s", err, b)
	}
	if len(partial.Chains) == 0 || partial.Trace.Calls != len(partial.Chains)+2 || len(partial.StagesMS) != 3 {
		t.Errorf("partial: %s", e.Partial)
	}
}

func TestNewChecksOptions(t *testing.T) {
	ix := index(t, flowreader.Config{})
	for _, o := range []server.Options{{MaxInFlight: -1}, {MaxBodyBytes: -1}, {Timeout: -time.Second}} {
		if _, err := server.New(ix, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
		if _, err := server.NewMCP(ix, o); err == nil {
			t.Errorf("NewMCP %+v accepted", o)
		}
	}
	if _, err := server.New(nil, server.Options{}); err == nil {
		t.Error("nil index accepted")
	}
}

// Many clients at once over one index get the answers one client gets.
func TestConcurrentClients(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{MaxInFlight: 64})
	body := `{"question": "` + question + `", "budget": 3}`
	_, _, first := do(t, "POST", ts.URL+"/v1/retrieve", jsonType, body)
	strip := func(b []byte) string {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err.Error()
		}
		delete(m, "stages_ms")
		out, _ := json.Marshal(m)
		return string(out)
	}
	want := strip(first)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(ts.URL+"/v1/retrieve", jsonType, strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if got := strip(b); resp.StatusCode != 200 || got != want {
				t.Errorf("%d: %s", resp.StatusCode, got)
			}
		}()
	}
	wg.Wait()
}
