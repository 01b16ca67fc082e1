package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

const gustQuestion = "What was the peak gust of the storm that flooded the East Arm?"

func TestAskQuickstart(t *testing.T) {
	g := buildQuickstart(t)
	so, se, code := cli(t, nil, "ask", "-g", g, gustQuestion)
	if code != 0 && code != exitNotSure {
		t.Fatalf("exit %d: %s", code, se)
	}
	// A confident answer has its line and citations; below the confidence
	// threshold (exit 4) ask says it is not sure and marks the span in the
	// best passage.
	answered := []string{"\nA: ", "citations:\n  [1] "}
	if code == exitNotSure {
		answered = []string{"\nNot sure (confidence ", "\n  [1] ", "»", "«"}
	}
	for _, want := range append([]string{"Q: " + gustQuestion, "note: embedded default embedder", "note: embedded default reader: extractive"}, answered...) {
		if !strings.Contains(so, want) {
			t.Errorf("stdout lacks %q:\n%s", want, so)
		}
	}
	// The evidence is split: the gust is in the station report (table and
	// paragraph), the flooding in the harbour survey. Both are cited.
	if !strings.Contains(so, "131") || !strings.Contains(so, "station-report") || !strings.Contains(so, "harbour-survey.md") {
		t.Errorf("citations miss the split evidence:\n%s", so)
	}
	if strings.Contains(so, "routing (") {
		t.Error("routing printed without --explain")
	}
}

func TestAskExplain(t *testing.T) {
	g := buildQuickstart(t)
	so, se, code := cli(t, nil, "ask", "-g", g, "--explain", gustQuestion)
	if code != 0 && code != exitNotSure {
		t.Fatalf("exit %d: %s", code, se)
	}
	for _, re := range []string{
		`routing \(aspects\): demand [0-9.]+, routed [0-9.]+, max-flow [0-9.]+, saturation σ [0-9.]+, total cost -?[0-9.]+`,
		`relevant set \d+ nodes, κ [0-9.]+, \d+ aspects:`,
		`aspect 0: σ_a [0-9.]+, capacity [0-9.]+, flow [0-9.]+, fed by \d+ nodes`,
		`chains: \d+ routed over \d+ distinct nodes, \d+ read`,
		`read  1  flow [0-9.]+  cost -?[0-9.]+ → aspect \d+: \[(text|table|figure) `,
		`time: score `,
	} {
		if !regexp.MustCompile(re).MatchString(so) {
			t.Errorf("explain output does not match %s:\n%s", re, so)
		}
	}
	// Classic has sources and sinks instead of aspects.
	so, se, code = cli(t, nil, "ask", "-g", g, "--explain", "--preset", "classic", gustQuestion)
	if code != 0 && code != exitNotSure {
		t.Fatalf("classic: exit %d: %s", code, se)
	}
	if !strings.Contains(so, "routing (classic)") || !strings.Contains(so, "sources ") {
		t.Errorf("classic explain:\n%s", so)
	}
}

func TestAskJSONAndPictures(t *testing.T) {
	g := buildQuickstart(t)
	dir := t.TempDir()
	dot, mmd := filepath.Join(dir, "flow.dot"), filepath.Join(dir, "flow.mmd")
	// Flags after the question work too.
	so, se, code := cli(t, nil, "ask", "-g", g, gustQuestion, "--json", "--dot", dot, "--mermaid", mmd)
	if code != 0 && code != exitNotSure {
		t.Fatalf("exit %d: %s", code, se)
	}
	// The library's contract (flowreader.Result's JSON), decoded as a
	// client would.
	var res struct {
		SchemaVersion int    `json:"schema_version"`
		Question      string `json:"question"`
		Answer        string `json:"answer"`
		Citations     []struct {
			Doc    string `json:"doc"`
			Node   int    `json:"node"`
			NodeID string `json:"node_id"`
			Quote  string `json:"quote"`
		} `json:"citations"`
		Chains []struct {
			Flow  float64 `json:"flow"`
			Nodes []struct {
				Node int    `json:"node"`
				ID   string `json:"id"`
				Text string `json:"text"`
			} `json:"nodes"`
		} `json:"chains"`
		Routing struct {
			Router   string  `json:"router"`
			Demand   float64 `json:"demand"`
			Routed   float64 `json:"routed"`
			Kappa    float64 `json:"kappa"`
			Aspects  []struct{ Capacity float64 }
			Distinct int `json:"distinct_nodes"`
		} `json:"routing"`
		Trace map[string]any `json:"trace"`
		Notes []string       `json:"notes"`
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(so), &raw); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, so)
	}
	for _, k := range []string{"schema_version", "question", "budget", "answer", "citations", "chains", "routing", "trace", "notes", "stages_ms"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if _, ok := raw["scores"]; ok {
		t.Error("JSON has the per-node scores without asking")
	}
	if err := json.Unmarshal([]byte(so), &res); err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != flowreader.SchemaVersion || res.Question != gustQuestion || res.Answer == "" || len(res.Citations) == 0 || len(res.Chains) == 0 || len(res.Notes) != 2 {
		t.Fatalf("JSON content: %+v", res)
	}
	if res.Routing.Router != "aspects" || res.Routing.Demand <= 0 || res.Routing.Kappa <= 0 || len(res.Routing.Aspects) == 0 {
		t.Errorf("routing: %+v", res.Routing)
	}
	if res.Trace["reader"] != "extractive" {
		t.Errorf("trace reader %v", res.Trace["reader"])
	}
	gr, err := graph.Load(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Citations {
		if c.Node < 0 || c.Node >= len(gr.Nodes) || gr.Nodes[c.Node].ID != c.NodeID || !strings.Contains(gr.Nodes[c.Node].Content, c.Quote) {
			t.Errorf("citation %+v does not quote its node", c)
		}
	}
	readNodes := map[int]bool{}
	for _, c := range res.Chains {
		for _, n := range c.Nodes {
			readNodes[n.Node] = true
			if gr.Nodes[n.Node].ID != n.ID || n.Text == "" {
				t.Errorf("chain node %d has ID %q, JSON says %q (text %q)", n.Node, gr.Nodes[n.Node].ID, n.ID, n.Text)
			}
		}
	}

	d, err := os.ReadFile(dot)
	if err != nil {
		t.Fatal(err)
	}
	checkDOT(t, string(d), readNodes)
	m, err := os.ReadFile(mmd)
	if err != nil {
		t.Fatal(err)
	}
	checkMermaid(t, string(m), readNodes)
}

func TestAskErrors(t *testing.T) {
	g := buildQuickstart(t)
	dir := t.TempDir()
	// A graph of another embedder: dimension 8.
	small, err := graph.New([]graph.Node{{ID: "a#0", Doc: "a", Content: "x"}, {ID: "a#1", Doc: "a", Content: "y"}}, 8,
		[]float32{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	small.Embedder = "tiny-8"
	other := filepath.Join(dir, "other.frg")
	if err := graph.Save(other, small); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.frg")
	os.WriteFile(junk, []byte("not a graph"), 0o644)
	missing := filepath.Join(dir, "missing.frg")
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"bad flag", []string{"ask", "-g", g, "--bogus", "Q?"}, 2, []string{"flag provided but not defined: -bogus"}},
		{"no graph flag", []string{"ask", "Q?"}, 2, []string{"-g GRAPHFILE is required"}},
		{"no question", []string{"ask", "-g", g}, 2, []string{"no QUESTION"}},
		{"bad preset", []string{"ask", "-g", g, "--preset", "v9", "Q?"}, 2, []string{"unknown --preset"}},
		{"missing graph", []string{"ask", "-g", missing, "Q?"}, 1, []string{missing, "does not exist", "flowreader build -o"}},
		{"not a graph", []string{"ask", "-g", junk, "Q?"}, 1, []string{junk, "graph file"}},
		{"dimension mismatch", []string{"ask", "-g", other, "Q?"}, 1, []string{"dimension mismatch", "dimension 8", "tiny-8", "glove", "dimension 100"}},
		{"model without url", []string{"ask", "-g", g, "--llm-model", "qwen3-vl", "Q?"}, 2, []string{"no chat server"}},
		{"negative embed dim", []string{"ask", "-g", g, "--embed-dim", "-3", "Q?"}, 2, []string{"negative"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			so, se, code := cli(t, nil, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %s", code, c.code, se)
			}
			if so != "" {
				t.Errorf("stdout %q on error", so)
			}
			lines := strings.Split(strings.TrimSpace(se), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "flowreader ask: ") {
				t.Errorf("last stderr line %q", last)
			}
			for _, w := range c.want {
				if !strings.Contains(last, w) {
					t.Errorf("message %q lacks %q", last, w)
				}
			}
		})
	}
}

func TestParseInterspersed(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  []string
		json bool
	}{
		{[]string{"--json", "a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "--json", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b"}, []string{"a", "b"}, false},
		{[]string{"--", "-x", "--json"}, []string{"-x", "--json"}, false},
		{[]string{"a", "--", "--json"}, []string{"a", "--json"}, false},
		{nil, nil, false},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		j := fs.Bool("json", false, "")
		pos, err := parseInterspersed(fs, c.args)
		if err != nil || !reflect.DeepEqual(pos, c.pos) || *j != c.json {
			t.Errorf("%q: %q json=%v err=%v; want %q json=%v", c.args, pos, *j, err, c.pos, c.json)
		}
	}
}

func TestAskBudget(t *testing.T) {
	g := buildQuickstart(t)
	so, se, code := cli(t, nil, "ask", "-g", g, "--explain", "--budget", "3", gustQuestion)
	if code != 0 && code != exitNotSure {
		t.Fatalf("exit %d: %s", code, se)
	}
	if !strings.Contains(so, "demand 3.000") || !regexp.MustCompile(`chains: \d+ routed over \d+ distinct nodes, [0-3] read`).MatchString(so) {
		t.Errorf("--budget 3 not applied:\n%s", so)
	}
	if _, _, code := cli(t, nil, "ask", "-g", g, "--budget", "-1", gustQuestion); code != 2 {
		t.Errorf("negative budget: exit %d, want 2", code)
	}
}

// ask --filter over a graph file: the evidence and citations come only
// from the documents the filter passes; a malformed filter is a usage
// error.
func TestAskFilter(t *testing.T) {
	g := buildQuickstart(t)
	out, errs, code := cli(t, nil, "ask", "-g", g, "--json", "--filter", `{"ids": ["fieldnotes/harbour-survey.md"]}`, gustQuestion)
	if code != 0 && code != 4 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if strings.Contains(out, `"doc": "station-report"`) || !strings.Contains(out, `"doc": "fieldnotes/harbour-survey.md"`) {
		t.Fatalf("ask --filter read other documents:\n%s", out)
	}
	for _, f := range []string{`{"ids": [""]}`, `{"tags": ["x"]}`, `[1]`, `{"ids": ["a"]} x`} {
		if _, errs, code := cli(t, nil, "ask", "-g", g, "--filter", f, gustQuestion); code != 2 {
			t.Errorf("--filter %s: exit %d\n%s", f, code, errs)
		}
	}
}
