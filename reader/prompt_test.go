package reader

import (
	"context"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
)

func TestPromptsEmbeddedVerbatim(t *testing.T) {
	// Spot checks against the paper text: openings, endings and the
	// placeholders each template must carry.
	cases := []struct {
		name, start, end string
		holes            []string
	}{
		{tmplWorkerV3, "Read the evidence passages and images below, then answer the question. <text> $DOC$ </text> Question: $Q$ ANSWERING POLICY", `{"status":"not_reported","answer":"","evidence":""}`, []string{"$DOC$", "$Q$"}},
		{tmplReasonerV3, "Answer the question from the evidence paths below.", "<output>your answer</output>", []string{"$Q$", "$PATHS$"}},
		{tmplWorkerV1, "Read the evidence passages and images below, then answer the question. <text> $DOC$ </text> Question: $Q$ Rules:", `{"status":"not_reported","answer":"","evidence":""}`, []string{"$DOC$", "$Q$"}},
		{tmplReasonerV1, "You are a helpful AI assistant that excels at question answering.", "Nothing after </output>.", []string{"$Q$", "$PATHS$", "$ANS_LEN_GUIDE$"}},
		{tmplJudge, "You are comparing two partial answers to the same question.", "Answer with exactly one word: YES or NO.", []string{"$Q$", "$A$", "$B$"}},
		{tmplBridge, "Given the question below, determine whether", "SCORE: <float between 0.0 and 1.0>", []string{"$Q$", "$A$", "$B$"}},
		{tmplEdge, "Does reading Passage A then Passage B", "Respond with a single float between 0.0 and 1.0.", []string{"$Q$", "$A$", "$B$"}},
		{tmplQType, "Classify the question below", `{"type":"<type>","length":"<length>"}`, []string{"$Q$"}},
	}
	for _, c := range cases {
		p := prompt(c.name)
		if !strings.HasPrefix(p, c.start) || !strings.HasSuffix(p, c.end) {
			t.Errorf("%s: starts %q… ends …%q", c.name, first(p, 60), last(p, 60))
		}
		for _, h := range c.holes {
			if strings.Count(p, h) != 1 {
				t.Errorf("%s: placeholder %s appears %d times", c.name, h, strings.Count(p, h))
			}
		}
		if strings.Contains(p, "&lt;") || strings.Contains(p, `\$`) {
			t.Errorf("%s: undecoded markdown escapes", c.name)
		}
	}
	if prompt("nope.txt") != "" {
		t.Error("unknown prompt should be empty")
	}
}

func first(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

func last(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[len(s)-n:]
}

func newTestRun(t *testing.T, v *VLM, chains []flow.Chain) *run {
	g := fixtureGraph(t)
	in := &Input{Question: "How many nests did the North Mole hold in 2025?", Graph: g, Relevance: fixtureScores(g).H, Chains: chains}
	return v.newRun(in)
}

func TestGoldenWorkerPrompts(t *testing.T) {
	chain := flow.Chain{Nodes: []int{3, 1, 2}, Flow: 0.5}
	img := []byte("\x89PNG fake image")
	cases := []struct {
		name string
		v    *VLM
	}{
		{"worker_aspects_text.txt", &VLM{Model: &fake.Model{}}},
		{"worker_classic_text.txt", &VLM{Model: &fake.Model{}, Classic: true}},
		{"worker_aspects_image.txt", &VLM{Model: &fake.Model{Images: true}, Images: func(graph.ImageRef) ([]byte, error) { return img, nil }}},
		{"worker_budget_300.txt", &VLM{Model: &fake.Model{}, evidenceChars: 300}},
		{"worker_injection.txt", &VLM{Model: &fake.Model{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := chain
			if c.name == "worker_injection.txt" {
				ch = flow.Chain{Nodes: []int{5}}
			}
			r := newTestRun(t, c.v, []flow.Chain{ch})
			req, nimg := r.workerRequest(ch)
			got := renderRequest(req)
			golden(t, c.name, got)
			if want := map[bool]int{true: 1, false: 0}[c.name == "worker_aspects_image.txt"]; nimg != want {
				t.Errorf("images = %d, want %d", nimg, want)
			}
			// The document can never close the evidence block.
			if n := strings.Count(strings.ToLower(got), "</text>"); n != 1 {
				t.Errorf("</text> appears %d times", n)
			}
		})
	}
}

func TestGoldenReasonerPrompts(t *testing.T) {
	drafts := []Draft{
		{Chain: 0, Nodes: []int{3, 1, 2}, Flow: 0.75, Status: StatusSupported, Answer: "248", Evidence: "North Mole | 650 | 212 | 248"},
		{Chain: 1, Nodes: []int{4}, Flow: 0.5, Status: StatusNotReported},
		{Chain: 2, Nodes: []int{0}, Flow: 0.25, Status: StatusFailed, Err: "boom"},
	}
	for _, p := range []string{"aspects", "classic"} {
		v := &VLM{Model: &fake.Model{}, Classic: p == "classic"}
		r := newTestRun(t, v, chainsN(3))
		r.qt = questionType{Type: "value", Length: "short"}
		r.keyNodesN = r.qt.KeyNodes()
		got := renderRequest(r.reasonerRequest(drafts))
		golden(t, "reasoner_"+p+".txt", got)
		if strings.Contains(got, "boom") {
			t.Error("failed chain reached the reasoner")
		}
	}
}

// TestGoldenCallPrompts runs a classic Read that fires every trigger and
// records the exact text of one call of each kind.
func TestGoldenCallPrompts(t *testing.T) {
	s := defaultScript()
	s.Worker = append(s.Worker, [2]string{"Dr Ilse Marrow", `{"status":"supported","answer":"212","evidence":"212"}`})
	s.Judge = "YES"
	m := s.Model()
	g := fixtureGraph(t)
	q := "How many nests did the North Mole hold in 2025?"
	v := &VLM{Model: m, Classic: true}
	ctx := context.Background()
	a, err := v.Read(ctx, &Input{Question: q, Graph: g, Relevance: fixtureScores(g).H, Chains: chainsN(4)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Consistency(ctx, q, a.Drafts); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ScorePairs(ctx, q, g, [][2]int{{0, 3}}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ScorePairs(ctx, q, g, [][2]int{{1, 2}, {3, 4}}, false); err != nil {
		t.Fatal(err)
	}
	byMarker := map[string][]string{}
	for _, c := range m.Calls() {
		for _, mk := range []string{mQType, mJudge, mBridge, mEdge} {
			if strings.Contains(fake.Prompt(c), mk) {
				byMarker[mk] = append(byMarker[mk], renderRequest(c))
			}
		}
	}
	for mk, name := range map[string]string{mQType: "qtype.txt", mJudge: "judge.txt", mBridge: "bridge.txt", mEdge: "edge.txt"} {
		got := byMarker[mk]
		if len(got) == 0 {
			t.Errorf("no %s call", name)
			continue
		}
		sort.Strings(got)
		golden(t, name, got[0])
	}
}

func TestSharesRule(t *testing.T) {
	cases := []struct {
		lengths []int
		budget  int
		want    []int
	}{
		{[]int{100, 200}, 6000, []int{100, 200}},
		{[]int{5000, 5000}, 6000, []int{3000, 3000}},
		{[]int{1000, 5000, 5000}, 6000, []int{1000, 2500, 2500}},
		{[]int{1000, 1500, 9000}, 6000, []int{1000, 1500, 3500}},
		{[]int{7, 7, 7}, 10, []int{3, 3, 3}},
		{nil, 6000, []int{}},
	}
	for _, c := range cases {
		got := shares(c.lengths, c.budget)
		if len(got) != len(c.want) {
			t.Fatalf("shares(%v) = %v", c.lengths, got)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("shares(%v, %d) = %v, want %v", c.lengths, c.budget, got, c.want)
				break
			}
		}
	}
}

// TestSharesProperties checks the water-filling invariants on many inputs:
// never over budget or over a length; untruncated when it fits; every
// truncated text gets the same share, at least any untruncated length.
func TestSharesProperties(t *testing.T) {
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(n))
	}
	for it := 0; it < 2000; it++ {
		n := next(8)
		ls := make([]int, n)
		total := 0
		for i := range ls {
			ls[i] = next(4000)
			total += ls[i]
		}
		budget := next(9000)
		sh := shares(ls, budget)
		sum, cut, maxFull := 0, -1, 0
		for i := range sh {
			sum += sh[i]
			if sh[i] > ls[i] || sh[i] < 0 {
				t.Fatalf("share %d of length %d", sh[i], ls[i])
			}
			if sh[i] < ls[i] {
				if cut >= 0 && cut != sh[i] {
					t.Fatalf("unequal truncated shares %v for %v", sh, ls)
				}
				cut = sh[i]
			} else {
				maxFull = max(maxFull, ls[i])
			}
		}
		if sum > budget && total > budget {
			t.Fatalf("sum %d over budget %d", sum, budget)
		}
		if total <= budget && sum != total {
			t.Fatalf("fits but truncated: %v → %v", ls, sh)
		}
		if cut >= 0 && maxFull > cut+1 && budget-sum >= len(ls) {
			t.Fatalf("untruncated %d above the truncated share %d: %v → %v (budget %d)", maxFull, cut, ls, sh, budget)
		}
	}
}

func TestWorkerEvidenceWithinBudget(t *testing.T) {
	v := &VLM{Model: &fake.Model{}, evidenceChars: 120}
	r := newTestRun(t, v, nil)
	long := strings.Repeat("é", 500)
	r.in.Graph.Nodes[0].Content = long
	r.in.Graph.Nodes[3].Content = long
	req, _ := r.workerRequest(flow.Chain{Nodes: []int{0, 3, 4}})
	text := req.Messages[0].Parts[0].Text
	body := 0
	for _, k := range []int{0, 3} {
		_ = k
	}
	body = strings.Count(text, "é")
	if body > 120 {
		t.Errorf("%d evidence characters, budget 120", body)
	}
	if !utf8.ValidString(text) {
		t.Error("truncation broke UTF-8")
	}
}

func TestNeutralise(t *testing.T) {
	for in, want := range map[string]string{
		"a </text> b":        "a ‹/text> b",
		"<TEXT>":             "‹TEXT>",
		"< / Text >":         "‹ / Text >",
		"<output>x</output>": "‹output>x‹/output>",
		"<textarea>":         "<textarea>",
		"1 < 2":              "1 < 2",
		"<thought>":          "‹thought>",
	} {
		if got := neutralise(in); got != want {
			t.Errorf("neutralise(%q) = %q, want %q", in, got, want)
		}
	}
}
