package flowreader_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flowreadertest"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const nestsQ = "How many nests did the East Arm have in 2025?"

func TestRetrieve(t *testing.T) {
	_, ix := build(t, flowreader.Config{})
	g := ix.Graph()
	ctx := context.Background()
	ev, err := ix.Retrieve(ctx, nestsQ, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.SchemaVersion != flowreader.SchemaVersion || ev.Question != nestsQ || ev.Budget != 16 || len(ev.Chains) == 0 {
		t.Fatalf("evidence: %+v", ev)
	}
	if ev.Scores != nil {
		t.Error("per-node scores without Options.Scores")
	}
	for _, st := range []string{"score", "route", "select"} {
		if _, ok := ev.Stages[st]; !ok {
			t.Errorf("no stage %s in %v", st, ev.Stages)
		}
	}
	if ev.Routing.Router != "aspects" || ev.Routing.ChainsRouted < len(ev.Chains) || len(ev.Routing.Aspects) == 0 {
		t.Errorf("routing summary: %+v", ev.Routing)
	}
	// The evidence is the steps' output, node for node.
	s, _ := ix.Score(ctx, nestsQ)
	r, _ := ix.Route(ctx, s)
	chains, err := ix.Select(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(chains) != len(ev.Chains) {
		t.Fatalf("%d chains, Select gives %d", len(ev.Chains), len(chains))
	}
	table := false
	for i, c := range chains {
		ec := ev.Chains[i]
		if ec.Flow != c.Flow || ec.Cost != c.Cost || ec.Aspect != c.Aspect || len(ec.Nodes) != len(c.Nodes) {
			t.Fatalf("chain %d: %+v vs %+v", i, ec, c)
		}
		for j, v := range c.Nodes {
			n, gn := ec.Nodes[j], g.Nodes[v]
			if n.Node != v || n.ID != gn.ID || n.Doc != gn.Doc || n.Page != gn.Page || n.Modality != gn.Modality.String() ||
				n.Text != gn.Content || n.Score != s.H[v] || n.Flow <= 0 {
				t.Errorf("chain %d node %d: %+v, graph %+v h %v", i, j, n, gn, s.H[v])
			}
			table = table || n.Modality == "table"
		}
	}
	if !table {
		t.Error("the table is not in the evidence")
	}

	// Per-call budget and per-node scores.
	ev2, err := ix.Retrieve(ctx, nestsQ, flowreader.Options{Budget: 2, Scores: true})
	if err != nil {
		t.Fatal(err)
	}
	if ev2.Budget != 2 || len(ev2.Chains) > 2 || len(ev2.Scores) != len(g.Nodes) || !reflect.DeepEqual(ev2.Scores, s.H) {
		t.Errorf("budget 2: budget %d, %d chains, %d scores", ev2.Budget, len(ev2.Chains), len(ev2.Scores))
	}
	// A huge budget is clamped to max(nodes, Config.Budget).
	ev3, err := ix.Retrieve(ctx, nestsQ, flowreader.Options{Budget: 1 << 30})
	if err != nil || ev3.Budget != max(len(g.Nodes), 16) {
		t.Errorf("huge budget: %v, budget %d", err, ev3.Budget)
	}
	// The default budget is the same as giving Config.Budget.
	ev4, _ := ix.Retrieve(ctx, nestsQ, flowreader.Options{Budget: 16})
	if !reflect.DeepEqual(stripTimes(exported(ev4)), stripTimes(exported(ev))) {
		t.Error("Options{Budget: Config.Budget} differs from no options")
	}

	for _, c := range []struct {
		q    string
		opts flowreader.Options
		want error
	}{
		{" ", flowreader.Options{}, flowreader.ErrQuestion},
		{nestsQ, flowreader.Options{Budget: -1}, flowreader.ErrConfig},
	} {
		ev, err := ix.Retrieve(ctx, c.q, c.opts)
		if !errors.Is(err, c.want) || ev != nil {
			t.Errorf("%q %v: %v, evidence %v", c.q, c.opts, err, ev)
		}
		res, err := ix.Ask(ctx, c.q, c.opts)
		if !errors.Is(err, c.want) || res != nil {
			t.Errorf("ask %q %v: %v, result %v", c.q, c.opts, err, res)
		}
	}
}

func stripTimes(ev *flowreader.Evidence) flowreader.Evidence {
	e := *ev
	e.Stages = nil
	return e
}

// Ask with a per-call budget reads the chains Retrieve selects with it.
func TestAskOptions(t *testing.T) {
	m := &fake.Model{}
	m.Rules = append(m.Rules, fake.Rule{Contains: "<output>", Reply: "<thought>t</thought><output>31</output>"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "type", Reply: `{"type":"value","length":"short"}`})
	m.Default = workerReply
	cfg := flowreader.Config{}
	cfg.Model = m
	_, ix := build(t, cfg)
	ctx := context.Background()
	ev, err := ix.Retrieve(ctx, nestsQ, flowreader.Options{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	before := len(m.Calls())
	res, err := ix.Ask(ctx, nestsQ, flowreader.Options{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evidence.Chains) != len(ev.Chains) || res.Evidence.Budget != 2 || !reflect.DeepEqual(stripTimes(exported(res.Evidence)), stripTimes(exported(ev))) {
		t.Errorf("ask read %d chains (budget %d), retrieve gave %d", len(res.Evidence.Chains), res.Evidence.Budget, len(ev.Chains))
	}
	if got := len(m.Calls()) - before; got != len(ev.Chains)+2 {
		t.Errorf("%d model calls for %d chains", got, len(ev.Chains))
	}
	for _, st := range []string{"score", "route", "select", "answer"} {
		if _, ok := res.Stages[st]; !ok {
			t.Errorf("no stage %s", st)
		}
	}
}

// A read that fails keeps its evidence: the Result comes back with the
// error, with the steps done, the calls made and the tokens spent.
func TestAskPartialResult(t *testing.T) {
	usage := func(text string) func(context.Context, *llm.Request) (*llm.Response, error) {
		return func(context.Context, *llm.Request) (*llm.Response, error) {
			return &llm.Response{Text: text, Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}}, nil
		}
	}
	t.Run("reasoner fails", func(t *testing.T) {
		down := fmt.Errorf("reasoner host: %w", llm.ErrUnavailable)
		m := &fake.Model{Rules: []fake.Rule{
			{Contains: "<output>", Err: down},
			{Contains: "type", Respond: usage(`{"type":"value","length":"short"}`)},
			{Respond: usage(workerReply)},
		}}
		cfg := flowreader.Config{}
		cfg.Model = m
		_, ix := build(t, cfg)
		// By default the extractive reader answers over the same chains,
		// and says so.
		res, err := ix.Ask(context.Background(), nestsQ, flowreader.Options{})
		if err != nil || res.Text == "" || res.Trace.ReasonerFallback != "fallback" || !strings.Contains(res.Trace.Note, "extractive") ||
			res.Trace.CallsByKind["reasoner"] != 1 || len(res.Citations) == 0 {
			t.Fatalf("default fallback: error %v, text %q, trace %+v", err, res.Text, res.Trace)
		}
		// A VLM without a Fallback returns the failure with the partial
		// result.
		cfg.Reader = &reader.VLM{Model: m}
		_, ix = build(t, cfg)
		res, err = ix.Ask(context.Background(), nestsQ, flowreader.Options{})
		if !errors.Is(err, reader.ErrReasoner) || !errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("error %v", err)
		}
		if res == nil || res.Answer == nil || res.Evidence == nil {
			t.Fatalf("no partial result: %+v", res)
		}
		n := len(res.Evidence.Chains)
		if n == 0 || len(res.Evidence.Chains) != n || res.Text != "" || len(res.Drafts) != n {
			t.Errorf("partial: %d chains, %d drafts, text %q", n, len(res.Drafts), res.Text)
		}
		// Every worker, the question type and the failed reasoner call.
		if tr := res.Trace; tr.Calls != n+2 || tr.PromptTokens != 100*(n+1) || tr.CompletionTokens != 10*(n+1) || tr.CallsByKind["reasoner"] != 1 {
			t.Errorf("trace: %d calls, %d+%d tokens, by kind %v (chains %d)", tr.Calls, tr.PromptTokens, tr.CompletionTokens, tr.CallsByKind, n)
		}
		for _, st := range []string{"score", "route", "select"} {
			if _, ok := res.Stages[st]; !ok {
				t.Errorf("stage %s missing", st)
			}
		}
		if _, ok := res.Stages["answer"]; ok {
			t.Error("the failed answer step is counted as done")
		}
		// The partial result has the JSON form of any result.
		b, err := json.Marshal(res)
		if err != nil || !bytes.Contains(b, []byte(`"calls":`+fmt.Sprint(n+2))) {
			t.Errorf("JSON of the partial result: %v %s", err, b)
		}
	})
	t.Run("cancelled mid-read", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var workers atomic.Int32
		var armed atomic.Bool // after the build, whose analysis calls the model too
		m := &fake.Model{Rules: []fake.Rule{
			{Contains: "type", Respond: usage(`{"type":"value","length":"short"}`)},
			{Contains: "<output>", Reply: "<output>31</output>"},
			{Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
				if armed.Load() && workers.Add(1) == 1 {
					cancel() // the caller gives up during the first worker call
				}
				return &llm.Response{Text: workerReply, Usage: llm.Usage{PromptTokens: 7}}, ctx.Err()
			}},
		}}
		cfg := flowreader.Config{}
		cfg.Model = m
		cfg.Concurrency = 1
		_, ix := build(t, cfg)
		armed.Store(true)
		res, err := ix.Ask(ctx, nestsQ, flowreader.Options{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
		if res == nil || res.Evidence == nil || len(res.Evidence.Chains) == 0 {
			t.Fatalf("no partial result: %+v", res)
		}
		if res.Trace.Calls < 1 || res.Trace.CallsByKind["worker"] < 1 || res.Trace.Reader != "vlm" {
			t.Errorf("trace of the cancelled read: %+v", res.Trace)
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		_, ix := build(t, flowreader.Config{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := ix.Ask(ctx, nestsQ, flowreader.Options{})
		if !errors.Is(err, context.Canceled) || res == nil || res.Answer == nil || res.Text != "" {
			t.Fatalf("%v, %+v", err, res)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	})
}

// TestJSONSchema pins the JSON contract: the keys and value types of the
// documents Retrieve and Ask give (values are not pinned, so a routing
// change does not touch it). A change here is a change of the contract:
// adding a field is fine; removing, renaming or retyping one needs a new
// SchemaVersion. go test -run TestJSONSchema -update rewrites the file.
func TestJSONSchema(t *testing.T) {
	ctx := context.Background()
	docs, err := ingest.Path(filepath.Join("examples", "quickstart", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Rules = append(m.Rules, fake.Rule{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`})
	m.Rules = append(m.Rules, fake.Rule{Contains: "CONTRADICT", Reply: "NO"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<thought>t</thought><output>131 km/h</output>"})
	m.Default = `{"status": "supported", "answer": "131 km/h", "evidence": "peak gust of 131 km/h"}`
	p, err := flowreader.New(flowreader.Config{Model: m, System2: true, Embedder: &fake.Embedder{}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	const q = "What was the peak gust of the storm that flooded the East Arm?"
	ev, err := ix.Retrieve(ctx, q, flowreader.Options{Scores: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Ask(ctx, q, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.System2 == nil || len(res.Citations) == 0 || !hasImage(ev) {
		t.Fatalf("the fixture must cover system2, citations and an image: %+v", res)
	}
	var out bytes.Buffer
	for _, doc := range []struct {
		name string
		v    any
	}{{"retrieve (with scores)", ev}, {"ask", res}} {
		b, err := json.Marshal(doc.v)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "# %s\n", doc.name)
		paths := map[string]string{}
		schemaPaths(v, "", paths)
		keys := make([]string, 0, len(paths))
		for k := range paths {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&out, "%s: %s\n", k, paths[k])
		}
	}
	// Decoding the retrieve document back gives the same evidence.
	b, _ := json.Marshal(ev)
	var back flowreader.Evidence
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(stripTimes(&back), stripTimes(exported(ev))) {
		t.Errorf("Evidence does not round-trip: %v", err)
	}
	golden := filepath.Join("testdata", "schema.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestJSONSchema -update)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("the JSON contract changed (go test -run TestJSONSchema -update, and bump SchemaVersion unless only fields were added):\n%s", lineDiff(string(want), got))
	}
}

// exported is ev as decoding its JSON gives it: the exported fields only.
func exported(ev *flowreader.Evidence) *flowreader.Evidence {
	b, _ := json.Marshal(ev)
	var e flowreader.Evidence
	json.Unmarshal(b, &e)
	return &e
}

func hasImage(ev *flowreader.Evidence) bool {
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			if n.Image != "" {
				return true
			}
		}
	}
	return false
}

// schemaPaths records the JSON type at every path of v: objects by key,
// arrays as [] (their elements merged), map-like objects (stages, calls by
// kind) as {}.
func schemaPaths(v any, path string, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		out[path] = "object"
		if strings.HasSuffix(path, "_ms") || strings.HasSuffix(path, "calls_by_kind") {
			for _, e := range x {
				schemaPaths(e, path+".{}", out)
			}
			return
		}
		for k, e := range x {
			schemaPaths(e, strings.TrimPrefix(path+"."+k, "."), out)
		}
	case []any:
		out[path] = "array"
		for _, e := range x {
			schemaPaths(e, path+"[]", out)
		}
	case string:
		out[path] = "string"
	case float64:
		out[path] = "number"
	case bool:
		out[path] = "boolean"
	case nil:
		out[path] = "null"
	}
}

func lineDiff(want, got string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

// With candidates forced on, the steps run on a subgraph, and the evidence
// and the JSON contract still name nodes of the index's graph.
func TestRetrieveCandidatesNameGraphNodes(t *testing.T) {
	cfg := flowreader.Config{}
	cfg.Candidates = 1
	var pairs []string
	words := []string{"harbour", "storm", "tern", "nests", "gust", "mole", "ridge", "kestrel", "flood", "survey"}
	for i := range 120 {
		pairs = append(pairs, fmt.Sprintf("doc%03d", i),
			fmt.Sprintf("Report %d on the %s and the %s: %d %s counted.", i, words[i%10], words[(i/10)%10], i*7, words[(i+3)%10]))
	}
	ix := flowreadertest.Open(t, cfg, flowreadertest.Passages(pairs...))
	g := ix.Graph()
	ctx := context.Background()
	res, err := ix.Ask(ctx, "How many kestrel nests were counted in the storm report?", flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scores.Graph == nil || len(res.Scores.Graph.Nodes) >= len(g.Nodes) {
		t.Fatalf("candidates not used: %v of %d nodes", res.Scores.Candidates, len(g.Nodes))
	}
	moved := false
	for _, c := range res.Evidence.Chains {
		for _, n := range c.Nodes {
			if n.Node < 0 || n.Node >= len(g.Nodes) || g.Nodes[n.Node].ID != n.ID {
				t.Errorf("evidence node %d (%s) is not graph node %d", n.Node, n.ID, n.Node)
			}
			if n.Node >= len(res.Scores.Graph.Nodes) || res.Scores.Graph.Nodes[n.Node].ID != n.ID {
				moved = true
			}
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Citations []struct {
			Node   int    `json:"node"`
			NodeID string `json:"node_id"`
		} `json:"citations"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Citations {
		if c.Node < 0 || c.Node >= len(g.Nodes) || g.Nodes[c.Node].ID != c.NodeID {
			t.Errorf("citation node %d is not %s", c.Node, c.NodeID)
		}
	}
	t.Logf("%d candidates of %d nodes; an index differs between subgraph and graph: %v", len(res.Scores.Candidates), len(g.Nodes), moved)
}
