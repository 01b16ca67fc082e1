package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/llm/fake"
)

// TestJudgeTemplateMatchesPaper checks P7 byte for byte against the paper's
// text, where the paper is available.
func TestJudgeTemplateMatchesPaper(t *testing.T) {
	paper := filepath.Join("..", "..", "..", "shared", "paper", "flowreader-v3.md")
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
	m := (&fake.Model{}).On("**Generated Answer**: right", `{"accuracy": 1, "reasoning": "ok"}`).
		On("**Generated Answer**: wrong", "```json\n{\"accuracy\": 0, \"reasoning\": \"no\"}\n```").
		On("**Generated Answer**: junk", "I cannot decide")
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

// TestAccuracyMode runs the answer-and-judge loop with scripted models: the
// reader says "340" when it sees the perch row, and the judge accepts
// answers containing 340.
func TestAccuracyMode(t *testing.T) {
	reader := &fake.Model{Default: "Not answerable"}
	reader.On("Perch | 340", "340")
	judge := &fake.Model{Default: `{"accuracy": 0, "reasoning": "no"}`}
	judge.On("**Generated Answer**: 340", `{"accuracy": 1, "reasoning": "yes"}`)
	run := testRunner()
	run.Budgets = []int{1, 8}
	run.Answer = ModelAnswerer(reader)
	run.JudgeModel = judge
	ds := mustLoad(t, FeTaQA, LoadOptions{Distractors: 2, Limit: 1})
	res, err := run.Run(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows() {
		if r.JudgedQuestions != 1 {
			t.Errorf("%s at %d: %d judged", r.Router, r.Budget, r.JudgedQuestions)
		}
		// The accuracy follows evidence: right exactly when the row was read.
		if r.Accuracy != r.AllGoldRate {
			t.Errorf("%s at %d: accuracy %v, all-gold %v", r.Router, r.Budget, r.Accuracy, r.AllGoldRate)
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
