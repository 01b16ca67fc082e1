package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sse is one server-sent event.
type sse struct{ event, data string }

// readEvents reads events from r until it ends or stop returns true.
func readEvents(t *testing.T, r io.Reader, stop func(sse) bool) []sse {
	t.Helper()
	var out []sse
	var cur sse
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" || cur.data != "" {
				out = append(out, cur)
				if stop != nil && stop(cur) {
					return out
				}
			}
			cur = sse{}
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func streamModel() *fake.Model {
	m := &fake.Model{Default: `{"status": "supported", "answer": "31", "evidence": "East Arm | 97 | 31"}`}
	m.Rules = append(m.Rules, fake.Rule{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`})
	m.Rules = append(m.Rules, fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<thought>The table row says 31.</thought><output>The East Arm had 31 nests in 2025.</output>"})
	return m
}

func postStream(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/v1/ask", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", jsonType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// POST /v1/ask with "stream": true answers text/event-stream: evidence,
// drafts, deltas, citations, done, each event's data the Event's JSON, and
// the result as a non-streamed ask answers it.
func TestAskStream(t *testing.T) {
	ts := newServer(t, index(t, flowreader.Config{Model: streamModel()}), server.Options{})
	resp := postStream(t, context.Background(), ts.URL, `{"question": "`+question+`", "stream": true}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := readEvents(t, resp.Body, nil)
	var kinds []string
	var answer strings.Builder
	var result struct {
		Answer    string            `json:"answer"`
		Citations []json.RawMessage `json:"citations"`
	}
	for _, e := range evs {
		if len(kinds) == 0 || kinds[len(kinds)-1] != e.event {
			kinds = append(kinds, e.event)
		}
		var ev struct {
			Event   string          `json:"event"`
			Text    string          `json:"text"`
			Thought bool            `json:"thought"`
			Result  json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(e.data), &ev); err != nil || ev.Event != e.event {
			t.Fatalf("event %q data %s: %v", e.event, e.data, err)
		}
		if ev.Event == "delta" && !ev.Thought {
			answer.WriteString(ev.Text)
		}
		if ev.Event == "done" {
			json.Unmarshal(ev.Result, &result)
		}
	}
	if strings.Join(kinds, " ") != "evidence draft delta citations done" {
		t.Fatalf("events %v", kinds)
	}
	if result.Answer != "The East Arm had 31 nests in 2025." || answer.String() != result.Answer || len(result.Citations) == 0 {
		t.Fatalf("answer %q, deltas %q", result.Answer, answer.String())
	}
	// retrieve has nothing to stream.
	status, _, b := do(t, "POST", ts.URL+"/v1/retrieve", jsonType, `{"question": "`+question+`", "stream": true}`)
	if status != 400 || !strings.Contains(string(b), "stream") {
		t.Fatalf("retrieve: %d %s", status, b)
	}
}

// A failure after the stream began is an "error" event with the error body
// of a non-streamed ask, the partial result included when asked for.
func TestAskStreamError(t *testing.T) {
	m := &fake.Model{Rules: []fake.Rule{
		{Contains: "EVIDENCE PATHS", Err: fmt.Errorf("reasoner: %w", llm.ErrUnavailable)},
		{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`},
	}, Default: `{"status": "supported", "answer": "31", "evidence": "East Arm | 97 | 31"}`}
	// A VLM without a Fallback: the model's failure reaches the client
	// (the default pipeline answers with the extractive reader instead).
	ts := newServer(t, index(t, flowreader.Config{Model: m, Reader: &reader.VLM{Model: m}}), server.Options{})
	for _, partial := range []bool{false, true} {
		resp := postStream(t, context.Background(), ts.URL, fmt.Sprintf(`{"question": %q, "stream": true, "partial": %v}`, question, partial))
		evs := readEvents(t, resp.Body, nil)
		resp.Body.Close()
		last := evs[len(evs)-1]
		var e errorBody
		if last.event != "error" || json.Unmarshal([]byte(last.data), &e) != nil || e.Error.Code != "model_failed" || (len(e.Partial) > 0) != partial {
			t.Fatalf("partial %v: last event %+v", partial, last)
		}
		for _, ev := range evs {
			if ev.event == "done" {
				t.Fatal("done after a failure")
			}
		}
	}
}

// blockingModel answers the question type at once and blocks every other
// call until its context ends, recording when each call started and
// ended.
type blockingModel struct {
	armed   atomic.Bool
	build   *fake.Model
	mu      sync.Mutex
	started int
	ends    []time.Time
	blocked chan struct{} // closed when a call is blocked
	block   sync.Once
}

func (m *blockingModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if !m.armed.Load() {
		return m.build.Generate(ctx, req)
	}
	p := fake.Prompt(req)
	if strings.Contains(p, "Classify the question below") {
		return &llm.Response{Text: `{"type":"value","length":"short"}`}, nil
	}
	m.mu.Lock()
	m.started++
	first := m.started == 1
	m.mu.Unlock()
	if first {
		// One worker answers once another is in flight, so that a draft
		// is streamed while calls run.
		select {
		case <-m.blocked:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &llm.Response{Text: `{"status": "supported", "answer": "31", "evidence": "x"}`}, nil
	}
	m.block.Do(func() { close(m.blocked) })
	<-ctx.Done()
	m.mu.Lock()
	m.ends = append(m.ends, time.Now())
	m.mu.Unlock()
	return nil, ctx.Err()
}

// inFlight is the number of blocked calls that have not ended.
func (m *blockingModel) inFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.started - 1 - len(m.ends)
}

// A client that disconnects mid-stream cancels every model call of its
// question: each call in flight sees its context end. The time from the
// disconnect to the last call's end is logged (docs/streaming.md).
func TestAskStreamDisconnectCancelsModelCalls(t *testing.T) {
	m := &blockingModel{build: streamModel(), blocked: make(chan struct{})}
	ix := index(t, flowreader.Config{Model: m})
	m.armed.Store(true)
	ts := newServer(t, ix, server.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	resp := postStream(t, ctx, ts.URL, `{"question": "`+question+`", "stream": true}`)
	evs := readEvents(t, resp.Body, func(e sse) bool { return e.event == "draft" })
	if len(evs) == 0 || evs[len(evs)-1].event != "draft" {
		t.Fatalf("events %v", evs)
	}
	gone := time.Now()
	cancel()
	resp.Body.Close()
	// Wait for every call to end (the server's handler returns only after
	// the question's calls have all returned).
	for deadline := time.Now().Add(30 * time.Second); m.inFlight() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("model calls still running 30 s after the client left (%d in flight)", m.inFlight())
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	last := m.ends[0]
	for _, e := range m.ends {
		if e.After(last) {
			last = e
		}
	}
	t.Logf("%d model calls in flight; the last ended %v after the client left", len(m.ends), last.Sub(gone).Round(time.Microsecond))
}

// The MCP ask tool sends progress notifications to a call that asked for
// them: the evidence, each chain read, the answer being written, done.
func TestMCPAskProgress(t *testing.T) {
	ix := index(t, flowreader.Config{Model: streamModel()})
	s, err := server.NewMCP(ix, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": question}}
	params.SetProgressToken("q1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	// Notifications may be handled after the result: wait for the last.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		done := n > 0 && got[n-1].Message == "answered"
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications, no final one", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(got[0].Message, "evidence: ") || got[0].ProgressToken != "q1" {
		t.Fatalf("first %+v", got[0])
	}
	for i := 1; i < len(got); i++ {
		if got[i].Progress <= got[i-1].Progress || got[i].Total != got[0].Total {
			t.Fatalf("progress %v then %v", got[i-1], got[i])
		}
	}
	if last := got[len(got)-1]; last.Progress != last.Total {
		t.Fatalf("last %+v", last)
	}
}
