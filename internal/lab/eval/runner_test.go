package eval

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/score"
)

// cosScoring is a test scorer: r = h = max(cos, 0).
var cosScoring = Scoring{Name: "cos", NewScorer: func(g *graph.Graph) ScoreFunc {
	return func(_ context.Context, _ string, qv []float32) (*score.Scores, error) {
		s := &score.Scores{Cos: make([]float64, len(g.Nodes)), R: make([]float64, len(g.Nodes)), H: make([]float64, len(g.Nodes))}
		q := append([]float32(nil), qv...)
		var n float64
		for _, x := range q {
			n += float64(x) * float64(x)
		}
		for i := range s.Cos {
			c := vec.Dot(q, g.Embedding(i))
			if n > 0 {
				c /= math.Sqrt(n)
			}
			s.Cos[i] = c
			s.R[i], s.H[i] = max(c, 0), max(c, 0)
		}
		return s, nil
	}
}}

// rankRouter is a test router: single-node chains by descending H, budget
// of them.
type rankRouter struct{ g *graph.Graph }

func (rankRouter) Open(_ context.Context, g *graph.Graph) (flow.GraphRouter, error) {
	return rankRouter{g}, nil
}

func (r rankRouter) Route(_ context.Context, s *score.Scores, budget int) (*flow.Routing, error) {
	g := r.g
	idx := make([]int, len(g.Nodes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.H[idx[a]] > s.H[idx[b]] })
	out := &flow.Routing{Router: "rank"}
	for _, v := range idx[:min(budget, len(idx))] {
		out.Chains = append(out.Chains, flow.Chain{Nodes: []int{v}, Flow: s.H[v], Aspect: -1})
	}
	return out, nil
}

// pairRouter reads nodes in document order two at a time (a structural
// baseline that ignores the question).
type pairRouter struct{ g *graph.Graph }

func (pairRouter) Open(_ context.Context, g *graph.Graph) (flow.GraphRouter, error) {
	return pairRouter{g}, nil
}

func (r pairRouter) Route(_ context.Context, _ *score.Scores, _ int) (*flow.Routing, error) {
	g := r.g
	out := &flow.Routing{Router: "pairs"}
	for i := 0; i+1 < len(g.Nodes); i += 2 {
		out.Chains = append(out.Chains, flow.Chain{Nodes: []int{i, i + 1}, Aspect: -1})
	}
	return out, nil
}

func testRunner() *Runner {
	return &Runner{
		Embedder: &fake.Embedder{Dim: 256},
		Scorings: []Scoring{cosScoring},
		Routers: []RouterSpec{
			{Name: "rank", Selector: "rank", Scoring: "cos", BudgetAware: true, Router: rankRouter{}},
			{Name: "pairs", Selector: "order", Scoring: "cos", Router: pairRouter{}},
		},
		Budgets: []int{1, 4, 8},
	}
}

func TestRunEndToEnd(t *testing.T) {
	ctx := context.Background()
	fq := mustLoad(t, FeTaQA, LoadOptions{Distractors: 2})
	qa := mustLoad(t, QASPER, LoadOptions{})
	res, err := testRunner().Run(ctx, fq, qa)
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Rows()
	// 2 datasets × 2 routers × 3 budgets + macro 2 × 3.
	if len(rows) != 18 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r.Distinct > float64(r.Budget)+1e-9 {
			t.Errorf("%s/%s at %d read %.1f distinct nodes", r.Dataset, r.Router, r.Budget, r.Distinct)
		}
		if r.EvidenceRecall < 0 || r.EvidenceRecall > 1 {
			t.Errorf("recall %v", r.EvidenceRecall)
		}
	}
	// Recall never decreases with the budget for the rank router: its
	// selections are nested.
	var prev float64
	for _, r := range rows {
		if r.Dataset == FeTaQA && r.Router == "rank" {
			if r.EvidenceRecall < prev {
				t.Errorf("rank recall fell from %v to %v at %d", prev, r.EvidenceRecall, r.Budget)
			}
			prev = r.EvidenceRecall
		}
	}
	// Lexical hashing embeddings put the perch row first for "How many
	// perch were counted in Lake Orrin?": rank covers it at budget 1... or
	// at least by budget 8.
	for qi, q := range res.Questions {
		if q.ID == "101" && !res.Metrics[0][2][qi].AllGold {
			t.Errorf("rank at 8 misses the perch row: %+v", res.Metrics[0][2][qi])
		}
	}
	// Deterministic with concurrency.
	r1 := testRunner()
	r1.Concurrency = 1
	res1, err := r1.Run(ctx, mustLoad(t, FeTaQA, LoadOptions{Distractors: 2}), mustLoad(t, QASPER, LoadOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res1.Metrics, res.Metrics) {
		t.Error("results depend on concurrency")
	}
	cmps, err := res.Compare("rank", 500, 1)
	if err != nil || len(cmps) != 6 {
		t.Fatalf("compare: %d, %v", len(cmps), err)
	}
	if _, err := res.Compare("nope", 10, 1); err == nil {
		t.Error("unknown baseline accepted")
	}

	dir := t.TempDir()
	if err := WriteReport(dir, rows, cmps, []string{"a note"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(f)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "dataset,router,selector,budget,questions,evidence_recall,all_gold_rate,doc_recall,distinct_nodes,node_reads,chains,dup_share" {
		t.Errorf("header %q", recs[0])
	}
	if len(recs) != 19 {
		t.Errorf("%d CSV records", len(recs))
	}
	// doc_recall is undefined for FeTaQA and QASPER: empty.
	for _, r := range recs[1:] {
		if r[7] != "" {
			t.Errorf("doc recall %q for %s", r[7], r[0])
		}
	}
	var qb bytes.Buffer
	if err := WriteQuestions(&qb, res); err != nil {
		t.Fatal(err)
	}
	// One line per question × router × budget, plus the header.
	if n := strings.Count(qb.String(), "\n"); n != 1+len(res.Questions)*2*3 {
		t.Errorf("questions.csv has %d lines", n)
	}
	for _, name := range []string{"results.md", "recall_fetaqa.png", "recall_qasper.png", "recall_macro.png"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	png, _ := os.ReadFile(filepath.Join(dir, "recall_fetaqa.png"))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("not a PNG")
	}
}

func TestRunDocRecall(t *testing.T) {
	res, err := testRunner().Run(context.Background(), mustLoad(t, PaperTab, LoadOptions{}), mustLoad(t, G2Sample, LoadOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Rows()
	got := map[string]bool{}
	for _, r := range rows {
		got[r.Dataset] = true
		if r.DocQuestions == 0 {
			t.Errorf("%s: doc recall undefined", r.Dataset)
		}
	}
	for _, want := range []string{PaperTab, "g2sample/feta_tab", "g2sample/paper_tab", MacroName} {
		if !got[want] {
			t.Errorf("no rows for %s (have %v)", want, got)
		}
	}
}

func TestRunnerConfigErrors(t *testing.T) {
	ds := mustLoad(t, QASPER, LoadOptions{})
	r := testRunner()
	r.Budgets = []int{0}
	if _, err := r.Run(context.Background(), ds); err == nil {
		t.Error("budget 0 accepted")
	}
	r = testRunner()
	r.Routers[0].Scoring = "missing"
	if _, err := r.Run(context.Background(), ds); err == nil {
		t.Error("unknown scoring accepted")
	}
	r = testRunner()
	r.Embedder = nil
	if _, err := r.Run(context.Background(), ds); err == nil {
		t.Error("nil embedder accepted")
	}
}

// TestRunWithGraphBuilder evaluates over graph.Builder's offline graphs: its
// nodes keep Doc and Order = item index, so gold maps the same way.
func TestRunWithGraphBuilder(t *testing.T) {
	r := testRunner()
	b := &graph.Builder{Embedder: r.Embedder, Concurrency: 1}
	r.Graph.Build = b.Build
	ds := mustLoad(t, FeTaQA, LoadOptions{Distractors: 2})
	res, err := r.Run(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows()) != 6 {
		t.Errorf("%d rows", len(res.Rows()))
	}
	g, err := b.Build(context.Background(), ds.Questions[0].Docs)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]string{}
	for _, d := range ds.Questions[0].Docs {
		for _, it := range d.Items {
			docs[d.ID] = append(docs[d.ID], it.Text)
		}
	}
	for _, n := range g.Nodes {
		items := docs[n.Doc]
		if n.Order < 0 || n.Order >= len(items) || items[n.Order] != n.Content {
			t.Fatalf("node %s (doc %s, order %d) does not map to its item", n.ID, n.Doc, n.Order)
		}
	}
}
