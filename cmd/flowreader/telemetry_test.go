package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/internal/faultserver"
)

// flowreaderProcess runs the command in a child process, with none of the
// FLOWREADER_ variables of the test's environment.
func flowreaderProcess(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FLOWREADER_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "FLOWREADER_TEST_MAIN=1")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatal(err)
	}
	return so.String(), se.String(), code
}

// span is the part of the stdout exporter's JSON that the tests read.
type span struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ SpanID string }
	Attributes  []struct {
		Key   string
		Value struct {
			Type  string
			Value any
		}
	}
}

func (s span) attr(k string) any {
	for _, a := range s.Attributes {
		if a.Key == k {
			return a.Value.Value
		}
	}
	return nil
}

// readSpans reads a --trace file: one JSON object per line.
func readSpans(t *testing.T, path string) []span {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var spans []span
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s span
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		spans = append(spans, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return spans
}

// build --trace and ask --trace on the quickstart, the ask with a chat
// model served by an OpenAI-compatible test server: the trace files hold
// the pipeline's spans and GenAI chat spans with their attributes.
func TestTraceQuickstart(t *testing.T) {
	docs, err := filepath.Abs(quickstartDocs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, se, code := flowreaderProcess(t, dir, "build", "-o", "q.frg", "--quiet", "--log-level", "info", "--trace", "build.jsonl", docs)
	if code != 0 {
		t.Fatalf("build exit %d: %s", code, se)
	}
	if !strings.Contains(se, `level=INFO msg="flowreader: build done"`) || !strings.Contains(se, "stage=knn") {
		t.Errorf("build --log-level info stderr:\n%s", se)
	}
	names := map[string]int{}
	for _, s := range readSpans(t, filepath.Join(dir, "build.jsonl")) {
		names[s.Name]++
	}
	for _, n := range []string{"flowreader.build", "flowreader.build.embed", "flowreader.build.knn", "embeddings glove-6b-100d-sif"} {
		if names[n] == 0 {
			t.Errorf("build trace lacks %q: %v", n, names)
		}
	}

	srv := faultserver.New(faultserver.Config{Chat: func(req *faultserver.ChatRequest) string {
		if strings.Contains(req.Prompt(), "EVIDENCE PATHS") {
			return "<output>131 km/h.</output>"
		}
		return `{"status":"supported","answer":"131 km/h","evidence":"peak gust of 131 km/h"}`
	}})
	defer srv.Close()
	so, se, code := flowreaderProcess(t, dir, "ask", "-g", "q.frg", "--images", docs, "--llm-url", srv.BaseURL(), "--llm-model", "test-chat", "--text-only",
		"--trace", "ask.jsonl", "--log-level", "debug", gustQuestion)
	if code != 0 && code != exitNotSure {
		t.Fatalf("ask exit %d: %s", code, se)
	}
	if !strings.Contains(so, "A: ") || !strings.Contains(se, `msg="model call" model=test-chat kind=worker`) {
		t.Errorf("ask stdout:\n%s\nstderr:\n%s", so, se)
	}
	spans := readSpans(t, filepath.Join(dir, "ask.jsonl"))
	names = map[string]int{}
	byID := map[string]span{}
	for _, s := range spans {
		names[s.Name]++
		byID[s.SpanContext.SpanID] = s
	}
	for _, n := range []string{"flowreader.open", "flowreader.ask", "flowreader.score", "flowreader.route", "flowreader.select", "flowreader.answer", "flowreader.read", "chat test-chat"} {
		if names[n] == 0 {
			t.Errorf("ask trace lacks %q: %v", n, names)
		}
	}
	kinds := map[string]int{}
	for _, s := range spans {
		if s.Name != "chat test-chat" {
			continue
		}
		kind, _ := s.attr("flowreader.call.kind").(string)
		kinds[kind]++
		in, _ := s.attr("gen_ai.usage.input_tokens").(float64)
		out, _ := s.attr("gen_ai.usage.output_tokens").(float64)
		fr, _ := s.attr("gen_ai.response.finish_reasons").([]any)
		if s.attr("gen_ai.operation.name") != "chat" || s.attr("gen_ai.request.model") != "test-chat" || in <= 0 || out <= 0 || len(fr) != 1 || fr[0] != "stop" {
			t.Errorf("chat span attributes %+v", s.Attributes)
		}
		if p := byID[s.Parent.SpanID].Name; p != "flowreader.read" {
			t.Errorf("chat span under %q", p)
		}
	}
	if kinds["worker"] == 0 || kinds["reasoner"] != 1 || kinds["question_type"] != 1 {
		t.Errorf("call kinds %v", kinds)
	}
}

func TestLogLevelFlag(t *testing.T) {
	g := buildQuickstart(t)
	_, se, code := cli(t, nil, "ask", "-g", g, "--log-level", "loud", gustQuestion)
	if code != 2 || !strings.Contains(se, "--log-level") {
		t.Errorf("exit %d: %s", code, se)
	}
	// The default (warn) adds nothing to a successful ask's stderr.
	_, se, code = cli(t, nil, "ask", "-g", g, leaderQuestion)
	if code != 0 || strings.Contains(se, "level=") {
		t.Errorf("exit %d, stderr %q", code, se)
	}
}

// A model server that answers 503 quoting the request: the retries are
// logged at warn level by their error's type, and no warn record (nor the
// trace) holds the question or the prompt; the CLI's error line, which
// the user asked for, may.
func TestAskWarnRecordsKeepQuotedInputOut(t *testing.T) {
	g := buildQuickstart(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, "overloaded, dropped: "+string(b))
	}))
	defer srv.Close()
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	const q = "What did the QUESTION-SECRET-5531 storm do?"
	_, se, code := cli(t, nil, "ask", "-g", g, "--llm-url", srv.URL, "--llm-model", "m", "--trace", trace, q)
	if code == 0 {
		t.Fatalf("ask against a failing model succeeded: %s", se)
	}
	warns := 0
	for _, line := range strings.Split(se, "\n") {
		if !strings.Contains(line, "level=WARN") {
			continue
		}
		warns++
		if strings.Contains(line, "QUESTION-SECRET") || strings.Contains(line, "Storm") {
			t.Errorf("warn record quotes the request: %.300s", line)
		}
	}
	if warns == 0 {
		t.Errorf("no retry was logged at warn level:\n%s", se)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "QUESTION-SECRET") {
		t.Error("the trace quotes the request")
	}
}
