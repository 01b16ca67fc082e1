package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// chatStandIn is an OpenAI-compatible chat server for the quickstart
// collection: workers find the gust, the reasoner answers, streaming word
// by word when asked to.
func chatStandIn(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream bool `json:"stream"`
		}
		json.Unmarshal(body, &req)
		text := `{"status":"supported","answer":"131 km/h","evidence":"gusts of 131 km/h"}`
		switch p := string(body); {
		case strings.Contains(p, "Classify the question"):
			text = `{"type":"value","length":"short"}`
		case strings.Contains(p, "EVIDENCE PATHS"):
			text = "<thought>The station report gives the gust.</thought><output>Storm Elda's peak gust was 131 km/h.</output>"
		}
		if !req.Stream {
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": text}, "finish_reason": "stop"}}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range strings.SplitAfter(text, " ") {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": p}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAskStreamOffline(t *testing.T) {
	g := buildQuickstart(t)
	so, se, code := cli(t, nil, "ask", "-g", g, "--stream", gustQuestion)
	plain, _, plainCode := cli(t, nil, "ask", "-g", g, gustQuestion)
	switch {
	case code != plainCode:
		t.Fatalf("exit %d streamed, %d plain: %s", code, plainCode, se)
	case code == 0 && so != plain:
		t.Errorf("streamed output differs from the plain one:\n%s\n---\n%s", so, plain)
	case code == 4 && !(strings.Contains(so, "Not sure") && strings.Contains(plain, "Not sure") && strings.Contains(so, "»")):
		// Below the confidence threshold both say so and mark the span.
		t.Errorf("a low-confidence answer not said so:\n%s\n---\n%s", so, plain)
	case code != 0 && code != 4:
		t.Fatalf("exit %d: %s", code, se)
	}
	if !strings.Contains(se, "ask: reading ") {
		t.Errorf("stderr %s", se)
	}
}

func TestAskStreamModel(t *testing.T) {
	g := buildQuickstart(t)
	srv := chatStandIn(t)
	e := env{envLLMURL: srv.URL, envLLMModel: "standin"}
	so, se, code := cli(t, e, "ask", "-g", g, "--stream", gustQuestion)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	if !strings.HasPrefix(so, "Q: "+gustQuestion+"\nA: Storm Elda's peak gust was 131 km/h.\ncitations:") || strings.Contains(so, "A (final)") {
		t.Errorf("stdout:\n%s", so)
	}
	if strings.Contains(so, "station report gives") {
		t.Error("the reasoner's thought printed as the answer")
	}
	if !strings.Contains(se, "read (1 of ") || !strings.Contains(se, "): supported") {
		t.Errorf("no reading progress on stderr:\n%s", se)
	}
	// --json: one event per line, evidence first, the result last.
	so, se, code = cli(t, e, "ask", "-g", g, "--stream", "--json", gustQuestion)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, se)
	}
	lines := strings.Split(strings.TrimSpace(so), "\n")
	var kinds []string
	var answer strings.Builder
	for _, l := range lines {
		var ev struct {
			Event   string `json:"event"`
			Text    string `json:"text"`
			Thought bool   `json:"thought"`
			Result  struct {
				Answer string `json:"answer"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		kinds = append(kinds, ev.Event)
		if ev.Event == "delta" && !ev.Thought {
			answer.WriteString(ev.Text)
		}
		if ev.Event == "done" && ev.Result.Answer != answer.String() {
			t.Errorf("result %q, deltas %q", ev.Result.Answer, answer.String())
		}
	}
	if kinds[0] != "evidence" || kinds[len(kinds)-1] != "done" || kinds[len(kinds)-2] != "citations" {
		t.Errorf("events %v", kinds)
	}
}

// --rerank-url: the top nodes are reranked by a /rerank server before
// routing, and the JSON's scoring says so.
func TestAskRerank(t *testing.T) {
	g := buildQuickstart(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			Model     string   `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.URL.Path != "/rerank" || req.Model != "bge-reranker" || r.Header.Get("Authorization") != "Bearer rk" {
			http.Error(w, "bad request", 400)
			return
		}
		var out []any
		for i, d := range req.Documents {
			s := 0.1
			if strings.Contains(d, "131") {
				s = 0.95
			}
			out = append(out, map[string]any{"index": i, "relevance_score": s})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	defer srv.Close()
	e := env{envRerankURL: srv.URL, envRerankKey: "rk"}
	so, se, code := cli(t, e, "ask", "-g", g, "--json", "--rerank-model", "bge-reranker", gustQuestion)
	if code != 0 && code != 4 { // 4: answered below the confidence threshold
		t.Fatalf("exit %d: %s", code, se)
	}
	var res struct {
		Scoring []string `json:"scoring"`
		Answer  string   `json:"answer"`
	}
	if err := json.Unmarshal([]byte(so), &res); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || res.Scoring[len(res.Scoring)-1] != "rerank" || !strings.Contains(res.Answer, "131") {
		t.Fatalf("%d rerank calls, scoring %v, answer %q", calls.Load(), res.Scoring, res.Answer)
	}
	if _, se, code := cli(t, nil, "ask", "-g", g, "--rerank-model", "m", gustQuestion); code != 2 || !strings.Contains(se, "--rerank-url") {
		t.Fatalf("a model without a server: exit %d: %s", code, se)
	}
}

// flowreader serve answers a streamed ask over the real binary: the
// events as server-sent events, the answer's tokens from the model's
// stream.
func TestServeStream(t *testing.T) {
	g := buildQuickstart(t)
	chat := chatStandIn(t)
	p := startServe(t, "-g", g, "--llm-url", chat.URL, "--llm-model", "standin")
	resp, err := http.Post(p.url+"/v1/ask", "application/json", strings.NewReader(`{"question": "`+gustQuestion+`", "stream": true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), p.log())
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var answer strings.Builder
	for _, ev := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		name, data, ok := strings.Cut(ev, "\ndata: ")
		if !ok || !strings.HasPrefix(name, "event: ") {
			t.Fatalf("event %q", ev)
		}
		kind := strings.TrimPrefix(name, "event: ")
		if len(kinds) == 0 || kinds[len(kinds)-1] != kind {
			kinds = append(kinds, kind)
		}
		var e struct {
			Text    string `json:"text"`
			Thought bool   `json:"thought"`
		}
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("data %q: %v", data, err)
		}
		if kind == "delta" && !e.Thought {
			answer.WriteString(e.Text)
		}
	}
	if strings.Join(kinds, " ") != "evidence draft delta citations done" || answer.String() != "Storm Elda's peak gust was 131 km/h." {
		t.Fatalf("events %v, answer %q", kinds, answer.String())
	}
}
