package flowreader_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

var buildIndex = build

// streamModel is the test collection's scripted model, streaming.
func streamModel() *fake.Model {
	m := &fake.Model{}
	m.Rules = append(m.Rules, fake.Rule{Contains: "<output>", Reply: "<thought>The East Arm row says 31.</thought><output>The East Arm had 31 nests in 2025.</output>"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "type", Reply: `{"type":"value","length":"short"}`})
	m.Default = workerReply
	return m
}

// kinds lists the events' kinds, consecutive repeats joined ("draft×5").
func kinds(evs []flowreader.Event) string {
	var out []string
	n := 0
	for i, e := range evs {
		n++
		if i+1 < len(evs) && evs[i+1].Kind == e.Kind {
			continue
		}
		if n > 1 {
			out = append(out, fmt.Sprintf("%s×%d", e.Kind, n))
		} else {
			out = append(out, e.Kind)
		}
		n = 0
	}
	return strings.Join(out, " ")
}

// Ask with Options.Stream tells the evidence before any model call of the
// reading returns, each draft as its worker finishes, the reasoner's reply
// as it streams (thought, then answer pieces that make the answer), the
// citations and the result.
func TestAskStream(t *testing.T) {
	m := streamModel()
	cfg := flowreader.Config{}
	cfg.Model = m
	_, ix := build(t, cfg)
	before := len(m.Calls())
	var evs []flowreader.Event
	callsAtEvidence := -1
	res, err := ix.Ask(context.Background(), "How many nests did the East Arm have in 2025?", flowreader.Options{Stream: func(e flowreader.Event) {
		if e.Kind == "evidence" {
			callsAtEvidence = len(m.Calls()) - before
		}
		evs = append(evs, e)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if callsAtEvidence != 0 {
		t.Errorf("%d model calls had returned before the evidence event", callsAtEvidence)
	}
	want := fmt.Sprintf("evidence draft×%d delta×", len(res.Evidence.Chains))
	if got := kinds(evs); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, " citations done") {
		t.Fatalf("events %s", got)
	}
	if evs[0].Evidence != res.Evidence || evs[len(evs)-1].Result != res {
		t.Error("evidence or result events carry other values than Ask returns")
	}
	var answer, thought strings.Builder
	for _, e := range evs {
		switch {
		case e.Kind == "delta" && e.Thought:
			thought.WriteString(e.Text)
		case e.Kind == "delta":
			answer.WriteString(e.Text)
		case e.Kind == "draft" && (e.Draft == nil || e.Pass != 1):
			t.Errorf("draft event %+v", e)
		}
	}
	if answer.String() != res.Text || res.Text != "The East Arm had 31 nests in 2025." || thought.String() != "The East Arm row says 31." {
		t.Fatalf("answer pieces %q, thought %q, answer %q", answer.String(), thought.String(), res.Text)
	}
	if n := strings.Count(kinds(evs), "delta"); n != 1 {
		t.Errorf("deltas interleaved with other events: %s", kinds(evs))
	}
}

// Without a model the extractive reader answers: evidence, the answer as
// one delta, citations, done. A model that does not stream gives its
// answer as one delta too.
func TestAskStreamWithoutStreaming(t *testing.T) {
	plain := streamModel()
	for name, m := range map[string]llm.Model{"offline": nil, "model without streaming": llmfunc.Model(plain.Generate)} {
		t.Run(name, func(t *testing.T) {
			cfg := flowreader.Config{}
			cfg.Model = m
			_, ix := build(t, cfg)
			var evs []flowreader.Event
			res, err := ix.Ask(context.Background(), "How many nests did the East Arm have in 2025?", flowreader.Options{Stream: func(e flowreader.Event) { evs = append(evs, e) }})
			if err != nil {
				t.Fatal(err)
			}
			got := kinds(evs)
			if !strings.HasPrefix(got, "evidence") || !strings.HasSuffix(got, "delta citations done") || strings.Count(got, "delta") != 1 {
				t.Fatalf("events %s", got)
			}
			for _, e := range evs {
				if e.Kind == "delta" && (e.Text != res.Text || e.Thought || res.Text == "") {
					t.Fatalf("delta %+v for answer %q", e, res.Text)
				}
			}
		})
	}
}

// System 2's re-read streams as pass 2, after the first reading.
func TestAskStreamSystem2(t *testing.T) {
	m := &fake.Model{}
	m.Rules = append(m.Rules, fake.Rule{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`})
	m.Rules = append(m.Rules, fake.Rule{Contains: "Do these answers CONTRADICT", Reply: "YES"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "logical reasoning connection", Reply: "EXISTS: YES\nSCORE: 0.9"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "Does reading Passage A then Passage B", Reply: "0.95"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<output>31</output>"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "Read the evidence passages and images below", Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Text: fmt.Sprintf(`{"status":"supported","answer":"%d","evidence":"x"}`, len(fake.Prompt(req)))}, nil
	}})
	cfg := flowreader.Classic()
	cfg.Model, cfg.Embedder = m, &fake.Embedder{Dim: 64}
	ix := quickstart(t, cfg)
	var evs []flowreader.Event
	res, err := ix.Ask(context.Background(), "How many nests did the North Mole hold in 2025?", flowreader.Options{Stream: func(e flowreader.Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.System2 == nil || !res.System2.Ran {
		t.Fatalf("System 2 did not run: %+v", res.System2)
	}
	pass := 1
	sawPass2 := false
	for _, e := range evs {
		if e.Kind == "draft" || e.Kind == "delta" {
			if e.Pass < pass {
				t.Fatalf("a pass-%d event after pass %d", e.Pass, pass)
			}
			pass = e.Pass
			sawPass2 = sawPass2 || e.Pass == 2
		}
	}
	if !sawPass2 {
		t.Fatalf("no pass-2 event: %s", kinds(evs))
	}
	if last := evs[len(evs)-1]; last.Kind != "done" || last.Result != res {
		t.Fatalf("last event %+v", last)
	}
}

// Cancelling the context from the stream (a client gone) ends Ask with the
// context's error, and every model call in flight sees its context end:
// none runs on.
func TestAskStreamCancelStopsModelCalls(t *testing.T) {
	var started, ended atomic.Int32
	var armed atomic.Bool // the build's analysis calls are answered at once
	release := make(chan struct{})
	var once sync.Once
	build := streamModel()
	m := llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if !armed.Load() {
			return build.Generate(ctx, req)
		}
		started.Add(1)
		defer ended.Add(1)
		if strings.Contains(fake.Prompt(req), "Classify") {
			return &llm.Response{Text: `{"type":"value","length":"short"}`}, nil
		}
		select {
		case <-release: // the first worker answers
			return &llm.Response{Text: workerReply}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	cfg := flowreader.Config{}
	cfg.Model = m
	_, ix := buildIndex(t, cfg)
	armed.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := ix.Ask(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{Stream: func(e flowreader.Event) {
		switch e.Kind {
		case "evidence":
			once.Do(func() { go func() { release <- struct{}{} }() })
		case "draft":
			cancel() // the client disconnects after the first draft
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if s, e := started.Load(), ended.Load(); s < 2 || s != e {
		t.Fatalf("%d model calls started, %d ended", s, e)
	}
}

// With candidates (a subgraph per question), streamed drafts name nodes of
// the index's graph, as the Result's drafts do.
func TestAskStreamCandidates(t *testing.T) {
	const n, dim = 1024, 100
	m := &fake.Model{Default: workerReply}
	m.Rules = append(m.Rules, fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<output>w7</output>"})
	cfg := flowreader.Config{Model: m, Embedder: &fake.Embedder{Dim: dim}, Candidates: 4}
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(context.Background(), synth.Topics(t, n, dim))
	if err != nil {
		t.Fatal(err)
	}
	var drafts []flowreader.Event
	res, err := ix.Ask(context.Background(), "w301 w302 w12", flowreader.Options{Stream: func(e flowreader.Event) {
		if e.Kind == "draft" {
			drafts = append(drafts, e)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(drafts) != len(res.Drafts) || len(drafts) == 0 || res.Scores.Candidates == nil {
		t.Fatalf("%d drafts streamed, %d in the result, candidates %v", len(drafts), len(res.Drafts), res.Scores.Candidates != nil)
	}
	for _, e := range drafts {
		want := res.Drafts[e.Draft.Chain].Nodes
		if fmt.Sprint(e.Draft.Nodes) != fmt.Sprint(want) {
			t.Fatalf("streamed draft %d names %v, the result %v", e.Draft.Chain, e.Draft.Nodes, want)
		}
	}
}

// Each event has one JSON form: its kind, its pass and its value, the
// evidence, draft, citations and result as the JSON contract writes them.
func TestEventJSON(t *testing.T) {
	cfg := flowreader.Config{Model: streamModel()}
	_, ix := buildIndex(t, cfg)
	var lines [][]byte
	res, err := ix.Ask(context.Background(), "How many nests did the East Arm have in 2025?", flowreader.Options{Stream: func(e flowreader.Event) {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(res)
	wantEv, _ := json.Marshal(res.Evidence)
	var text strings.Builder
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		var kind string
		json.Unmarshal(m["event"], &kind)
		switch kind {
		case "evidence":
			if string(m["evidence"]) != string(wantEv) {
				t.Errorf("evidence %s", m["evidence"])
			}
		case "draft":
			var d struct{ Status string }
			if json.Unmarshal(m["draft"], &d) != nil || d.Status == "" {
				t.Errorf("draft %s", m["draft"])
			}
		case "delta":
			var s string
			json.Unmarshal(m["text"], &s)
			if m["thought"] == nil {
				text.WriteString(s)
			}
		case "citations":
			var cs []map[string]any
			if json.Unmarshal(m["citations"], &cs) != nil || len(cs) != len(res.Citations) {
				t.Errorf("citations %s", m["citations"])
			}
		case "done":
			if string(m["result"]) != string(want) {
				t.Errorf("result %s\nwant %s", m["result"], want)
			}
		default:
			t.Errorf("event %s", l)
		}
	}
	if text.String() != res.Text {
		t.Errorf("deltas %q, answer %q", text.String(), res.Text)
	}
	if _, err := json.Marshal(flowreader.Event{Kind: "nope"}); err == nil {
		t.Error("unknown kind encoded")
	}
}
