package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A model server whose reasoner call fails: ask answers with the extractive
// reader over the same chains, says so in a note, and does not print the
// server's message.
func TestAskModelFallback(t *testing.T) {
	g := buildQuickstart(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		text := `{"status":"supported","answer":"131 km/h","evidence":"gusts of 131 km/h"}`
		switch p := string(body); {
		case strings.Contains(p, "EVIDENCE PATHS"):
			http.Error(w, "overloaded: SERVER-MESSAGE-5521", http.StatusBadRequest)
			return
		case strings.Contains(p, "Classify the question"):
			text = `{"type":"value","length":"short"}`
		}
		q, _ := json.Marshal(text)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":`+string(q)+`},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	e := env{envLLMURL: srv.URL, envLLMModel: "standin"}
	so, se, code := cli(t, e, "ask", "-g", g, gustQuestion)
	if code != 0 && code != 4 {
		t.Fatalf("exit %d: %s", code, se)
	}
	if !strings.Contains(so, "131") || !strings.Contains(so, "note: the model failed (the reasoner failed with HTTP status 400); answered by the fallback reader (extractive)") {
		t.Errorf("stdout:\n%s", so)
	}
	if strings.Contains(so+se, "SERVER-MESSAGE-5521") {
		t.Errorf("the server's message is printed:\n%s\n%s", so, se)
	}
}
