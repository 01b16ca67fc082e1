package eval

import (
	"math"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
)

// refGraph makes a graph whose node i is refs[i], with no embeddings.
func refGraph(t *testing.T, refs ...ItemRef) *graph.Graph {
	t.Helper()
	nodes := make([]graph.Node, len(refs))
	for i, r := range refs {
		nodes[i] = graph.Node{Doc: r.Doc, Order: r.Item}
	}
	g, err := graph.New(nodes, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestMeasureHandComputed(t *testing.T) {
	g := refGraph(t, ItemRef{"d1", 1}, ItemRef{"d1", 5}, ItemRef{"d2", 0}, ItemRef{"d1", 3})
	q := &Question{
		Gold: [][]Unit{
			{{Items: []ItemRef{{"d1", 1}}}, {Items: []ItemRef{{"d1", 2}, {"d1", 5}}}, {Items: []ItemRef{{"d2", 0}}}},
			{{Items: []ItemRef{{"d1", 3}}}},
		},
		MainDocs: []string{"d1", "d3"},
	}
	chains := []flow.Chain{{Nodes: []int{0, 1}}, {Nodes: []int{1}}, {Nodes: nil}}
	m := Measure(q, g, chains)
	// Annotator 1: units 1 and 2 covered (2 via its alternative d1:5) of 3;
	// annotator 2: 0 of 1. Best = 2/3. Docs: d1 read, d3 not = 1/2.
	if !m.HasEvidence || math.Abs(m.EvidenceRecall-2.0/3) > 1e-12 || m.AllGold {
		t.Errorf("evidence %v %v %v", m.HasEvidence, m.EvidenceRecall, m.AllGold)
	}
	if !m.HasDoc || m.DocRecall != 0.5 {
		t.Errorf("doc %v %v", m.HasDoc, m.DocRecall)
	}
	if m.Distinct != 2 || m.Reads != 3 || m.Chains != 2 {
		t.Errorf("distinct %d reads %d chains %d", m.Distinct, m.Reads, m.Chains)
	}
	// Reading node 3 completes annotator 2: all-gold even though annotator 1
	// is incomplete; recall is still the best annotator's 1.
	m = Measure(q, g, []flow.Chain{{Nodes: []int{3}}})
	if !m.AllGold || m.EvidenceRecall != 1 || m.DocRecall != 0.5 {
		t.Errorf("annotator 2 complete: %+v", m)
	}
	// Undefined metrics stay undefined.
	m = Measure(&Question{}, g, chains)
	if m.HasEvidence || m.HasDoc {
		t.Errorf("no gold: %+v", m)
	}
}

func TestSummarizeAndMacro(t *testing.T) {
	ms := []Metrics{
		{EvidenceRecall: 1, AllGold: true, HasEvidence: true, Distinct: 4, Reads: 6, Chains: 3},
		{EvidenceRecall: 0.5, HasEvidence: true, DocRecall: 1, HasDoc: true, Distinct: 2, Reads: 2, Chains: 1},
		{DocRecall: 0, HasDoc: true, Distinct: 3, Reads: 4, Chains: 4},
	}
	s := Summarize(ms)
	want := Summary{Questions: 3, EvidenceQuestions: 2, DocQuestions: 2, EvidenceRecall: 0.75, AllGoldRate: 0.5,
		DocRecall: 0.5, Distinct: 3, Reads: 4, Chains: 8.0 / 3, ChainLength: 12.0 / 8}
	if !sameSummary(s, want) {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	m := Macro([]Summary{s, {Questions: 1, EvidenceQuestions: 1, EvidenceRecall: 0.25, Distinct: 1, Reads: 2, Chains: 1, ChainLength: 2}})
	if math.Abs(m.EvidenceRecall-0.5) > 1e-12 || m.DocRecall != 0.5 || m.Distinct != 2 || m.Questions != 4 {
		t.Errorf("Macro = %+v", m)
	}
}

func sameSummary(a, b Summary) bool {
	f := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	return a.Questions == b.Questions && a.EvidenceQuestions == b.EvidenceQuestions && a.DocQuestions == b.DocQuestions &&
		f(a.EvidenceRecall, b.EvidenceRecall) && f(a.AllGoldRate, b.AllGoldRate) && f(a.DocRecall, b.DocRecall) &&
		f(a.Distinct, b.Distinct) && f(a.Reads, b.Reads) && f(a.Chains, b.Chains) && f(a.ChainLength, b.ChainLength)
}

func TestPairedBootstrap(t *testing.T) {
	a := []float64{1, 0.5, 0, 1, 1, 0.25}
	b := []float64{0.5, 0.5, 0, 1, 0, 0.25}
	iv := PairedBootstrap(a, b, 2000, 0.95, 7)
	// Mean difference (0.5+0+0+0+1+0)/6 = 0.25.
	if iv.N != 6 || math.Abs(iv.Mean-0.25) > 1e-12 {
		t.Errorf("mean %+v", iv)
	}
	// Resampled means of these differences lie in [0, 1] and the interval
	// holds the mean.
	if iv.Low < 0 || iv.High > 1 || iv.Low > iv.Mean || iv.High < iv.Mean || iv.Low == iv.High {
		t.Errorf("interval %+v", iv)
	}
	if again := PairedBootstrap(a, b, 2000, 0.95, 7); again != iv {
		t.Errorf("not deterministic: %+v vs %+v", again, iv)
	}
	// A constant difference has a degenerate interval at that constant.
	c := PairedBootstrap([]float64{1, 2, 3}, []float64{0.5, 1.5, 2.5}, 500, 0.95, 1)
	if c.Low != 0.5 || c.High != 0.5 || c.Excludes0() != true {
		t.Errorf("constant %+v", c)
	}
	if z := PairedBootstrap(nil, nil, 10, 0.95, 1); z != (Interval{}) {
		t.Errorf("empty %+v", z)
	}
	// With n = 2 and differences {0, 1}, resampled means are 0, 0.5 or 1
	// with probabilities 1/4, 1/2, 1/4: the 2.5% and 97.5% points are 0 and 1.
	two := PairedBootstrap([]float64{0, 1}, []float64{0, 0}, 4000, 0.95, 3)
	if two.Low != 0 || two.High != 1 || two.Excludes0() {
		t.Errorf("two-point %+v", two)
	}
}

func TestMcNemar(t *testing.T) {
	// onlyA = 1, onlyB = 5: exact, p = 2·(C(6,0)+C(6,1))/2^6 = 14/64.
	a := []bool{true, false, false, false, false, false, true}
	b := []bool{false, true, true, true, true, true, true}
	oa, ob, p := McNemar(a, b)
	if oa != 1 || ob != 5 || math.Abs(p-14.0/64) > 1e-12 {
		t.Errorf("exact: %d %d %v", oa, ob, p)
	}
	// onlyA = 30, onlyB = 10: χ² = (20−1)²/40 = 9.025, p = erfc(√4.5125) ≈ 0.0026631.
	a, b = nil, nil
	for i := 0; i < 40; i++ {
		a = append(a, i < 30)
		b = append(b, i >= 30)
	}
	oa, ob, p = McNemar(a, b)
	if oa != 30 || ob != 10 || math.Abs(p-0.002663119259138554) > 1e-9 {
		t.Errorf("chi2: %d %d %v", oa, ob, p)
	}
	if _, _, p := McNemar([]bool{true}, []bool{true}); p != 1 {
		t.Errorf("no discordance: p %v", p)
	}
	// Symmetric balanced case: p = 1 (capped).
	if _, _, p := McNemar([]bool{true, false}, []bool{false, true}); p != 1 {
		t.Errorf("balanced: p %v", p)
	}
}
