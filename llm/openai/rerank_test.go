package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/llm"
)

// overlap is the stand-in cross-encoder: the share of the query's words
// found in the text, so that tests can predict every score.
func overlap(query, text string) float64 {
	q := strings.Fields(strings.ToLower(query))
	if len(q) == 0 {
		return 0
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		words[w] = true
	}
	n := 0
	for _, w := range q {
		if words[w] {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

// rerankServer speaks /rerank as one of the servers does:
//
//   - "vllm": Cohere/Jina shape, a model required, results sorted by score
//     with the document echoed, usage {"total_tokens"};
//   - "infinity": the same shape with "object":"rerank" and usage
//     {"prompt_tokens","total_tokens"};
//   - "tei": TEI's own shape, {"query","texts"} → [{"index","score"}]
//     sorted by score, 422 "Failed to deserialize the JSON body into the
//     target type: missing field `texts`" for a Cohere-shaped request, and
//     422 {"error":"batch size N > maximum allowed batch size M",
//     "error_type":"Validation"} above its --max-client-batch-size.
type rerankServer struct {
	*httptest.Server
	kind     string
	maxBatch int
	key      string
	mu       sync.Mutex
	sizes    []int
	inFlight atomic.Int32
	peak     atomic.Int32
	hold     chan struct{} // when set, each request waits for a token
}

func newRerankServer(t *testing.T, kind string, maxBatch int) *rerankServer {
	t.Helper()
	s := &rerankServer{kind: kind, maxBatch: maxBatch}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *rerankServer) serve(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	if s.hold != nil {
		<-s.hold
	}
	if s.key != "" && r.Header.Get("Authorization") != "Bearer "+s.key {
		writeErr(w, 401, "Unauthorized")
		return
	}
	if r.URL.Path != "/rerank" && r.URL.Path != "/v1/rerank" {
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeErr(w, 400, "bad JSON")
		return
	}
	query, _ := body["query"].(string)
	field := "documents"
	if s.kind == "tei" {
		field = "texts"
	}
	raw, ok := body[field].([]any)
	if !ok {
		if s.kind == "tei" {
			w.WriteHeader(422)
			fmt.Fprint(w, "Failed to deserialize the JSON body into the target type: missing field `texts` at line 1 column 80")
			return
		}
		writeErr(w, 400, "documents: field required")
		return
	}
	s.mu.Lock()
	s.sizes = append(s.sizes, len(raw))
	s.mu.Unlock()
	if s.maxBatch > 0 && len(raw) > s.maxBatch {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(422)
		json.NewEncoder(w).Encode(map[string]any{"error": fmt.Sprintf("batch size %d > maximum allowed batch size %d", len(raw), s.maxBatch), "error_type": "Validation"})
		return
	}
	if s.kind == "vllm" && body["model"] == nil {
		writeErr(w, 400, "model is required")
		return
	}
	type res struct {
		i     int
		score float64
		text  string
	}
	var rs []res
	tokens := len(strings.Fields(query)) * len(raw)
	for i, d := range raw {
		text, _ := d.(string)
		tokens += len(strings.Fields(text))
		rs = append(rs, res{i, overlap(query, text), text})
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].score > rs[b].score })
	w.Header().Set("Content-Type", "application/json")
	switch s.kind {
	case "tei":
		w.Header().Set("X-Compute-Tokens", fmt.Sprint(tokens))
		var out []any
		for _, x := range rs {
			out = append(out, map[string]any{"index": x.i, "score": x.score})
		}
		json.NewEncoder(w).Encode(out)
	default:
		var out []any
		for _, x := range rs {
			out = append(out, map[string]any{"index": x.i, "relevance_score": x.score, "document": map[string]any{"text": x.text}})
		}
		resp := map[string]any{"id": "rerank-1", "model": body["model"], "results": out, "usage": map[string]any{"total_tokens": tokens}}
		if s.kind == "infinity" {
			resp["object"] = "rerank"
			resp["usage"] = map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}
		}
		json.NewEncoder(w).Encode(resp)
	}
}

func docs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("passage %d about min cost flow", i)
		if i%3 == 0 {
			out[i] = fmt.Sprintf("passage %d about routing evidence", i)
		}
	}
	return out
}

func TestRerankShapes(t *testing.T) {
	for _, kind := range []string{"vllm", "infinity", "tei"} {
		t.Run(kind, func(t *testing.T) {
			s := newRerankServer(t, kind, 0)
			s.key = testKey
			url := s.URL
			if kind == "vllm" {
				url += "/v1"
			}
			r, err := NewReranker(Config{RerankURL: url, RerankModel: "BAAI/bge-reranker-v2-m3", RerankKey: testKey})
			if err != nil {
				t.Fatal(err)
			}
			texts := docs(10)
			ctx, tl := tally.With(context.Background())
			scores, err := r.Rerank(ctx, "routing evidence", texts)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range scores {
				if want := overlap("routing evidence", texts[i]); x != want {
					t.Fatalf("score %d = %v, want %v (input order)", i, x, want)
				}
			}
			if tl.Totals().RerankTokens == 0 {
				t.Errorf("no tokens counted: %+v", tl.Totals())
			}
		})
	}
}

// TEI is found by its refusal of the Cohere shape, and its batch limit by
// its 422: the batch is split to the size it names, and later calls start
// there.
func TestRerankTEIBatchLimit(t *testing.T) {
	s := newRerankServer(t, "tei", 8)
	rr, _ := NewReranker(Config{RerankURL: s.URL, RerankBatch: 20})
	r := rr.(*reranker)
	texts := docs(20)
	scores, err := r.Rerank(context.Background(), "min cost flow", texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range scores {
		if x != overlap("min cost flow", texts[i]) {
			t.Fatalf("score %d = %v", i, x)
		}
	}
	if r.MaxBatch() != 8 {
		t.Fatalf("batch %d after the server's limit of 8", r.MaxBatch())
	}
	s.mu.Lock()
	s.sizes = nil
	s.mu.Unlock()
	if _, err := r.Rerank(context.Background(), "flow", docs(17)); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.sizes) != "[8 8 1]" && fmt.Sprint(s.sizes) != "[8 1 8]" && fmt.Sprint(s.sizes) != "[1 8 8]" {
		t.Fatalf("batches %v, want 8, 8, 1", s.sizes)
	}
}

// A 413 that names no limit halves the batch until it passes.
func TestRerank413Halves(t *testing.T) {
	var sizes []int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		sizes = append(sizes, len(body.Documents))
		mu.Unlock()
		if len(body.Documents) > 5 {
			w.WriteHeader(413)
			fmt.Fprint(w, "Request Entity Too Large")
			return
		}
		var out []any
		for i := range body.Documents {
			out = append(out, map[string]any{"index": i, "relevance_score": 0.5})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	defer srv.Close()
	rr, _ := NewReranker(Config{RerankURL: srv.URL, RerankBatch: 16})
	r := rr.(*reranker)
	scores, err := r.Rerank(context.Background(), "q", docs(16))
	if err != nil || len(scores) != 16 {
		t.Fatalf("%v, %v", scores, err)
	}
	if r.MaxBatch() > 5 {
		t.Fatalf("batch %d", r.MaxBatch())
	}
}

func TestRerankErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		body  string
		code  int
		check func(error) bool
	}{
		{"unauthorized", `{"error":{"message":"Unauthorized","type":"AuthenticationError","code":401}}`, 401, func(err error) bool {
			var api *llm.APIError
			return errors.As(err, &api) && api.StatusCode == 401
		}},
		{"overloaded", `{"error":"Model is overloaded","error_type":"Overloaded"}`, 429, func(err error) bool { return errors.Is(err, llm.ErrRateLimited) }},
		{"too long", `{"error":{"message":"This model's maximum context length is 512 tokens","code":400}}`, 400, func(err error) bool { return errors.Is(err, llm.ErrContextTooLong) }},
		{"missing result", `{"results":[{"index":0,"relevance_score":0.1}]}`, 200, func(err error) bool { return errors.Is(err, llm.ErrInvalidOutput) }},
		{"repeated index", `{"results":[{"index":0,"relevance_score":0.1},{"index":0,"relevance_score":0.2}]}`, 200, func(err error) bool { return errors.Is(err, llm.ErrInvalidOutput) }},
		{"raw logits", `{"results":[{"index":0,"relevance_score":-3.2},{"index":1,"relevance_score":4.1}]}`, 200, func(err error) bool { return errors.Is(err, llm.ErrInvalidOutput) }},
		{"not JSON", `<html>`, 200, func(err error) bool { return errors.Is(err, llm.ErrInvalidOutput) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.code)
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			r, _ := NewReranker(Config{RerankURL: srv.URL, RerankKey: testKey})
			_, err := r.Rerank(context.Background(), "q", []string{"a", "b"})
			if !c.check(err) {
				t.Fatalf("err %v", err)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Fatal("key in the error")
			}
		})
	}
}

// At most four batches of one call are in flight.
func TestRerankConcurrency(t *testing.T) {
	s := newRerankServer(t, "infinity", 0)
	s.hold = make(chan struct{})
	r, _ := NewReranker(Config{RerankURL: s.URL, RerankBatch: 2})
	done := make(chan error, 1)
	go func() {
		_, err := r.Rerank(context.Background(), "flow", docs(20))
		done <- err
	}()
	for range 10 {
		s.hold <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if p := s.peak.Load(); p > rerankInFlight {
		t.Fatalf("%d requests in flight", p)
	}
}

func TestRerankConfig(t *testing.T) {
	if _, err := NewReranker(Config{}); !errors.Is(err, ErrConfig) {
		t.Fatalf("no URL: %v", err)
	}
	if _, err := NewReranker(Config{RerankURL: "http://x", RerankBatch: -1}); !errors.Is(err, ErrConfig) {
		t.Fatalf("negative batch: %v", err)
	}
	rr, _ := NewReranker(Config{RerankURL: "http://x/rerank/", RerankModel: "bge-reranker:latest", APIKey: "chat-key"})
	r := rr.(*reranker)
	if r.url != "http://x/rerank" || r.Name() != "bge-reranker" || r.tr.key != "" || r.MaxBatch() != 32 {
		t.Fatalf("url %q name %q key %q batch %d", r.url, r.Name(), r.tr.key, r.MaxBatch())
	}
	if got := fmt.Sprintf("%+v", Config{RerankKey: "secret-rerank"}); strings.Contains(got, "secret-rerank") {
		t.Fatalf("printed key: %s", got)
	}
}

func FuzzParseRerank(f *testing.F) {
	for _, s := range []string{
		`{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.1}],"usage":{"total_tokens":9}}`,
		`[{"index":0,"score":0.3},{"index":1,"score":1}]`,
		`{"object":"rerank","results":[{"index":0,"relevance_score":0,"document":{"text":"x"}},{"index":1,"relevance_score":0.5}],"usage":{"prompt_tokens":3,"total_tokens":3}}`,
		`{"results":[{"index":2,"relevance_score":0.1},{"index":0,"relevance_score":0.1}]}`, `{"results":null}`, `[]`, `{}`,
		`{"results":[{"index":0,"relevance_score":1e400},{"index":1,"relevance_score":0}]}`,
	} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		out := make([]float64, n)
		tokens, err := parseRerank(data, out)
		if err != nil {
			if !errors.Is(err, llm.ErrInvalidOutput) {
				t.Fatalf("%v wraps no sentinel", err)
			}
			return
		}
		if tokens < 0 {
			t.Fatalf("tokens %d", tokens)
		}
		for _, x := range out {
			if math.IsNaN(x) || x < 0 || x > 1 {
				t.Fatalf("score %v accepted", x)
			}
		}
	})
}
