package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/internal/fixture"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/score"
)

// TestJudgeTemplateMatchesPaper checks P7 byte for byte against the paper's
// text, where the paper is available.
func TestJudgeTemplateMatchesPaper(t *testing.T) {
	paper := filepath.Join("..", "..", "..", "..", "shared", "paper", "flowreader-v3.md")
	b, err := os.ReadFile(paper)
	if err != nil {
		t.Skipf("paper not available: %v", err)
	}
	lines := strings.Split(string(b), "\n")
	found := false
	for i, l := range lines {
		if !strings.HasPrefix(l, "##### P7") {
			continue
		}
		for _, p := range lines[i+1:] {
			if s, ok := strings.CutPrefix(p, "\u2b07 "); ok {
				found = true
				if s != JudgeTemplate() {
					t.Fatalf("embedded P7 differs from the paper's:\n%q\n%q", s, JudgeTemplate())
				}
				break
			}
		}
	}
	if !found {
		t.Fatal("P7 not found in the paper")
	}
}

func TestJudgePrompt(t *testing.T) {
	p := JudgePrompt("Q{x}?", "G {question}", "A")
	for _, want := range []string{"**Question**: Q{x}?", "**Expected Answer**: G {question}", "**Generated Answer**: A",
		`{ "accuracy": 0 or 1, "reasoning": "Brief explanation of your evaluation" }`} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(p, "{{") || strings.Contains(p, "{question}") && !strings.Contains(p, "G {question}") {
		t.Error("template braces not resolved")
	}
}

func TestJudge(t *testing.T) {
	ctx := context.Background()
	m := &fake.Model{Rules: []fake.Rule{
		{Contains: "**Generated Answer**: right", Reply: `{"accuracy": 1, "reasoning": "ok"}`},
		{Contains: "**Generated Answer**: wrong", Reply: "```json\n{\"accuracy\": 0, \"reasoning\": \"no\"}\n```"},
		{Contains: "**Generated Answer**: junk", Reply: "I cannot decide"},
	}}
	v, err := Judge(ctx, m, "q", []string{"a", "b"}, "right")
	if err != nil || v.Accuracy != 1 || v.Reasoning != "ok" {
		t.Errorf("right: %+v %v", v, err)
	}
	if v, err := Judge(ctx, m, "q", []string{"a"}, "wrong"); err != nil || v.Accuracy != 0 {
		t.Errorf("wrong: %+v %v", v, err)
	}
	if _, err := Judge(ctx, m, "q", []string{"a"}, "junk"); !errors.Is(err, ErrJudge) {
		t.Errorf("junk: %v", err)
	}
	calls := m.Calls()
	if len(calls) == 0 || calls[0].MaxTokens != 300 || calls[0].Temperature != 0 ||
		!strings.Contains(fake.Prompt(calls[0]), "**Expected Answer**: a | b") {
		t.Errorf("judge request %+v", calls[0])
	}
}

// TestVLMAnswererPrompts: a classic router's chains are read with paper
// v1's worker prompt, every other router's with v3's.
func TestVLMAnswererPrompts(t *testing.T) {
	g := fixture.Graph(t)
	q := &Question{Text: "How many nests did the North Mole hold in 2025?"}
	s := &score.Scores{H: fixture.Relevance(len(g.Nodes))}
	for _, c := range []struct {
		spec RouterSpec
		v1   bool
	}{{RouterSpec{Name: "classic", Router: &flow.Classic{}}, true}, {RouterSpec{Name: "rank", Router: rankRouter{}}, false}} {
		m := fixture.DefaultScript().Model()
		ans, err := VLMAnswerer(m)(context.Background(), &c.spec, q, g, s, fixture.Chains(2))
		if err != nil || ans != "The North Mole had 248 nests in 2025." {
			t.Fatalf("%s: %q %v", c.spec.Name, ans, err)
		}
		for _, call := range m.Calls() {
			if p := fake.Prompt(call); strings.Contains(p, fixture.MarkWorker) && strings.Contains(p, "ENTITY ANCHOR") != c.v1 {
				t.Errorf("%s: worker prompt of the wrong version: %.120q", c.spec.Name, p)
			}
		}
	}
}

// TestAccuracyMode runs the answer-and-judge loop with scripted models
// through the pipeline's VLM reader: a worker that sees the perch row
// answers W340, the reasoner turns a W340 draft into R340 (anything else
// into "Not answerable"), and the judge accepts only R340. A one-call
// reader would meet the strict reader model's missing rule, and its answer
// would never be the reasoner's.
func TestAccuracyMode(t *testing.T) {
	rd := &fake.Model{Strict: true}
	rd.Rules = append(rd.Rules, fake.Rule{Contains: fixture.MarkQType, Reply: `{"type":"value","length":"short"}`})
	rd.Rules = append(rd.Rules, fake.Rule{Match: func(req *llm.Request) bool {
		p := fake.Prompt(req)
		return strings.Contains(p, fixture.MarkReasoner) && strings.Contains(p, "Worker answer: W340")
	}, Reply: "<thought>The perch row gives 340.</thought><output>R340</output>"})
	rd.Rules = append(rd.Rules, fake.Rule{Contains: fixture.MarkReasoner, Reply: "<thought>Nothing.</thought><output>Not answerable</output>"})
	rd.Rules = append(rd.Rules, fake.Rule{Match: func(req *llm.Request) bool {
		p := fake.Prompt(req)
		return strings.Contains(p, fixture.MarkWorker) && strings.Contains(p, "Perch | 340")
	}, Reply: `{"status":"supported","answer":"W340","evidence":"Perch | 340"}`})
	rd.Rules = append(rd.Rules, fake.Rule{Contains: fixture.MarkWorker, Reply: `{"status":"not_reported","answer":"","evidence":""}`})
	judge := &fake.Model{Default: `{"accuracy": 0, "reasoning": "no"}`}
	judge.Rules = append(judge.Rules, fake.Rule{Contains: "**Generated Answer**: R340", Reply: `{"accuracy": 1, "reasoning": "yes"}`})
	run := testRunner()
	run.Budgets = []int{1, 8}
	run.Answer = VLMAnswerer(rd)
	run.JudgeModel = judge
	ds := mustLoad(t, FeTaQA, LoadOptions{Distractors: 2, Limit: 1})
	res, err := run.Run(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for _, r := range res.Rows() {
		if r.JudgedQuestions != 1 {
			t.Errorf("%s at %d: %d judged", r.Router, r.Budget, r.JudgedQuestions)
		}
		// The accuracy follows evidence: right exactly when the row was read.
		if r.Accuracy != r.AllGoldRate {
			t.Errorf("%s at %d: accuracy %v, all-gold %v", r.Router, r.Budget, r.Accuracy, r.AllGoldRate)
		}
		if r.Accuracy == 1 {
			right++
		}
	}
	if right == 0 {
		t.Error("no reading found the perch row: the test does not tell the readers apart")
	}
	// One worker per chain read, one question-type and one reasoner call
	// per reading.
	chains, readings := 0, 0
	for i := range res.Metrics {
		for b := range res.Metrics[i] {
			for _, m := range res.Metrics[i][b] {
				if m.Judged {
					chains += m.Chains
					readings++
				}
			}
		}
	}
	kinds := map[string]int{}
	for _, c := range rd.Calls() {
		p := fake.Prompt(c)
		for _, k := range []string{fixture.MarkWorker, fixture.MarkQType, fixture.MarkReasoner} {
			if strings.Contains(p, k) {
				kinds[k]++
			}
		}
	}
	if kinds[fixture.MarkWorker] != chains || kinds[fixture.MarkQType] != readings || kinds[fixture.MarkReasoner] != readings {
		t.Errorf("calls %v, want %d workers (the chains read) and %d question-type and reasoner calls", kinds, chains, readings)
	}
	for _, c := range judge.Calls() {
		if p := fake.Prompt(c); !strings.Contains(p, "**Generated Answer**: R340") && !strings.Contains(p, "**Generated Answer**: Not answerable") {
			t.Errorf("judged an answer that is not the reasoner's output: %.200q", p)
		}
	}
	dir := t.TempDir()
	if err := WriteReport(dir, res.Rows(), nil, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "accuracy.csv"))
	if err != nil || !strings.HasPrefix(string(b), "dataset,router,selector,budget,judged,accuracy\n") {
		t.Errorf("accuracy.csv: %q %v", b, err)
	}
	half := testRunner()
	half.JudgeModel = judge
	if _, err := half.Run(context.Background(), ds); !errors.Is(err, ErrConfig) {
		t.Errorf("judge without answerer: %v", err)
	}
}
