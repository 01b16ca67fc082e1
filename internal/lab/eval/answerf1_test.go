package eval

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/llm/fake"
)

func TestNormalizeAnswer(t *testing.T) {
	for in, want := range map[string]string{
		"The Cat, sat!":        "cat sat",
		"  a  An\tthe apple. ": "apple",
		"BLEU-4 (91%)":         "bleu4 91",
		"there":                "there",
		"":                     "",
	} {
		if got := NormalizeAnswer(in); got != want {
			t.Errorf("NormalizeAnswer(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokenF1HandComputed(t *testing.T) {
	cases := []struct {
		pred, ref string
		want      float64
	}{
		// {cat, sat} vs {cat, sat, down}: P = 1, R = 2/3.
		{"the cat sat", "a cat sat down", 0.8},
		{"40 hours", "40 hours", 1},
		{"hours", "40 hours", 2.0 / 3},
		// Multiplicity: {a1, a1, b} vs {a1, c}: one common token, P = 1/3, R = 1/2.
		{"a1 a1 b", "a1 c", 0.4},
		{"nothing shared", "40 hours", 0},
		{"", "40 hours", 0},
		{"the", "a", 0}, // both normalise to nothing: no common token
	}
	for _, c := range cases {
		if got := TokenF1(c.pred, c.ref); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("TokenF1(%q, %q) = %g, want %g", c.pred, c.ref, got, c.want)
		}
	}
	// {40, hours} vs {about, 40, hours, of, speech}: P = 1, R = 2/5, F1 = 4/7.
	if got := AnswerF1("40 hours", []string{"Unanswerable", "about 40 hours of speech"}); math.Abs(got-4.0/7) > 1e-12 {
		t.Errorf("AnswerF1 max over references = %g", got)
	}
	if AnswerF1("x", nil) != 0 {
		t.Error("no references must score 0")
	}
}

func TestQASPERAnswerRefs(t *testing.T) {
	ds := mustLoad(t, QASPER, LoadOptions{})
	var q1 *Question
	for i := range ds.Questions {
		if ds.Questions[i].ID == "q1" {
			q1 = &ds.Questions[i]
		}
	}
	if q1 == nil {
		t.Fatal("q1 not loaded")
	}
	if !q1.Extractive || strings.Join(q1.AnswerRefs, "|") != "40 hours|40 hours" {
		t.Fatalf("q1 refs %q extractive %v", q1.AnswerRefs, q1.Extractive)
	}
	yes := true
	for _, c := range []struct {
		a    qasperAnswer
		want string
	}{
		{qasperAnswer{Extractive: []string{"a", "b"}}, "a, b"},
		{qasperAnswer{Unanswerable: true}, "Unanswerable"},
		{qasperAnswer{FreeForm: "91%"}, "91%"},
		{qasperAnswer{YesNo: &yes}, "Yes"},
	} {
		if got := c.a.reference(); got != c.want {
			t.Errorf("reference(%+v) = %q, want %q", c.a, got, c.want)
		}
	}
}

// TestRunnerAnswerF1 runs the extractive answerer through the runner: only
// extractive questions get an F1, it is in [0,1], and it reaches the
// summaries, the comparison and answer_f1.csv without touching results.csv.
func TestRunnerAnswerF1(t *testing.T) {
	reg := DefaultRegistry()
	specs, err := reg.Specs([]string{"aspects", "topk"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	emb := &fake.Embedder{Dim: 32}
	run := &Runner{Embedder: emb, Scorings: reg.Scorings(), Routers: specs, Budgets: []int{4}, Extract: ExtractiveAnswerer(emb)}
	ds := mustLoad(t, QASPER, LoadOptions{})
	res, err := run.Run(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	for qi, q := range res.Questions {
		for ri := range res.Routers {
			m := res.Metrics[ri][0][qi]
			if m.HasF1 != (q.Extractive && len(q.AnswerRefs) > 0) || m.F1 < 0 || m.F1 > 1 {
				t.Errorf("%s router %d: HasF1 %v F1 %g", q.ID, ri, m.HasF1, m.F1)
			}
		}
	}
	rows := res.Rows()
	n := 0
	for _, r := range rows {
		if r.F1Questions > 0 {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no row with answer F1")
	}
	cmps, err := res.Compare("topk", 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if cmps[0].AnswerF1.N == 0 {
		t.Error("comparison lacks the answer F1 interval")
	}
	dir := t.TempDir()
	if err := WriteReport(dir, rows, cmps, nil); err != nil {
		t.Fatal(err)
	}
	var csv, md strings.Builder
	if err := WriteAnswerF1CSV(&csv, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(csv.String(), "dataset,router,selector,budget,extractive_questions,answer_f1,evidence_recall,answer_f1_tune,answer_f1_heldout,heldout_questions\n") {
		t.Errorf("answer_f1.csv header: %q", csv.String())
	}
	if err := WriteMarkdown(&md, rows, cmps, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Answer F1 of the extractive reader") || !strings.Contains(md.String(), "Δ answer F1") {
		t.Error("markdown lacks the answer F1 tables")
	}
	var full strings.Builder
	if err := WriteCSV(&full, rows); err != nil {
		t.Fatal(err)
	}
	if h, _, _ := strings.Cut(full.String(), "\n"); h != strings.Join(CSVHeader, ",") {
		t.Errorf("results.csv header changed: %q", h)
	}
}

// The held-out split is a fixed function of the question ID: about a third
// of the IDs, the same on every call.
func TestHeldOut(t *testing.T) {
	n := 0
	for i := range 3000 {
		id := fmt.Sprintf("q%d", i)
		if HeldOut(id) != HeldOut(id) {
			t.Fatal("HeldOut is not a function of the ID")
		}
		if HeldOut(id) {
			n++
		}
	}
	if n < 900 || n > 1100 {
		t.Errorf("%d of 3000 held out, want about 1000", n)
	}
	s := Summarize([]Metrics{{HasF1: true, F1: 1, Heldout: true}, {HasF1: true, F1: 0.5}, {HasF1: true, F1: 0}})
	if f, k := s.TuneF1(); s.HeldF1Questions != 1 || s.HeldAnswerF1 != 1 || k != 2 || f != 0.25 {
		t.Errorf("held %d %.2f, tune %d %.2f", s.HeldF1Questions, s.HeldAnswerF1, k, f)
	}
}
