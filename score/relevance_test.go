package score

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

func TestKeywords(t *testing.T) {
	got := queryTerms("What are the running times reported in Table 3, for 1,024 apples and 3.14 cherries? Running!")
	want := []string{"run", "time", "report", "tabl", "3", "1024", "appl", "3.14", "cherri"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Keywords = %q, want %q", got, want)
	}
	if got := queryTerms("What is it and why was it there?"); got != nil {
		t.Errorf("stop words only: %q, want nil", got)
	}
}

// BM25 on a three-node corpus, computed by hand:
// terms appl (df 2), banana, cherri, durian (df 1); N = 3, avgdl = 2.
// Okapi idf(appl) = ln(1.5/2.5) < 0, floored at 0.25·mean idf
// = 0.25·(−ln(5/3) + 3 ln(5/3))/4 = ln(5/3)/8.
// For the query "apple": node 0 (tf 1, dl 2): idf·2.5/(1+1.5) = idf;
// node 1 (tf 2, dl 3): idf·5/(2 + 1.5(0.25+0.75·1.5)) = idf·5/4.0625;
// min–max: node 0 = 4.0625/5 = 0.8125, node 1 = 1, node 2 = 0.
func TestBM25HandComputed(t *testing.T) {
	nodes := []graph.Node{{Content: "apple banana"}, {Content: "apples apple cherry"}, {Content: "durian"}}
	g := mustGraph(t, nodes, 0, nil, nil)
	ix := NewIndex(g)
	raw := make([]float64, 3)
	if !ix.bm25(raw, queryTerms("apple")) {
		t.Fatal("apple not found")
	}
	idf := math.Log(5.0/3) / 8
	if want := []float64{idf, idf * 5 / 4.0625, 0}; !near(raw[0], want[0], 1e-12) || !near(raw[1], want[1], 1e-12) || raw[2] != 0 {
		t.Errorf("raw BM25 = %v, want %v", raw, want)
	}
	c := Config{BM25Weight: 1, RefBoost: -1, HopAlpha: -1}
	sc, err := ix.Score(c, Query{Text: "apple"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.8125, 1, 0}; !near(sc.BM25[0], want[0], 1e-12) || sc.BM25[1] != 1 || sc.BM25[2] != 0 {
		t.Errorf("BM25 = %v, want %v", sc.BM25, want)
	}
	// α = 1: r is BM25 alone; h = r / max r.
	if !reflect.DeepEqual(sc.R, sc.BM25) || !reflect.DeepEqual(sc.H, sc.BM25) {
		t.Errorf("R = %v, H = %v, want both %v", sc.R, sc.H, sc.BM25)
	}
	// No query word in the index, or only stop words: BM25 all 0, no NaN.
	for _, q := range []string{"zebra quagga", "what is the", ""} {
		sc, err := ix.Score(c, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sc.BM25, []float64{0, 0, 0}) || !reflect.DeepEqual(sc.H, []float64{0, 0, 0}) {
			t.Errorf("%q: BM25 = %v, H = %v, want zeros", q, sc.BM25, sc.H)
		}
	}
}

// Relevance and h on four 2-d nodes with q = (1,0):
// cos = 1, 0, 1/√2, −1; node 1 (text) has keyword "Figure 2", node 3 (a
// figure) caption "Figure 2", so ℓ = (0,1,0,1) for "What does Figure 2 show?".
func TestRelevanceHandComputed(t *testing.T) {
	s2 := 1 / math.Sqrt2
	emb := []float32{1, 0, 0, 1, float32(s2), float32(s2), -1, 0}
	nodes := []graph.Node{
		{Content: "dogs"},
		{Content: "cats", Keywords: []string{"Figure 2"}},
		{Content: "birds"},
		{Modality: graph.ModalityFigure, Caption: "Figure 2: fish"},
	}
	g := mustGraph(t, nodes, 2, emb, nil)
	q := []float32{2, 0} // not unit: Score normalises

	paper, err := scoreVec(g, paperAspects(), "What does Figure 2 show?", q)
	if err != nil {
		t.Fatal(err)
	}
	if paper.BM25 != nil || paper.Phi != nil || paper.Psi != nil || paper.A != nil || paper.Sources != nil {
		t.Errorf("paper preset computed classic or BM25 signals: %+v", paper)
	}
	if want := []float64{0, 1, 0, 1}; !reflect.DeepEqual(paper.Ref, want) {
		t.Errorf("ℓ = %v, want %v", paper.Ref, want)
	}
	// r = clip(cos + 0.3ℓ, 0, 1) = (1, 0.3, 1/√2, clip(−0.7) = 0).
	wantR := []float64{1, 0.3, s2, 0}
	for i := range wantR {
		if !near(paper.R[i], wantR[i], 1e-6) || !near(paper.H[i], wantR[i], 1e-6) {
			t.Errorf("paper node %d: r = %v, h = %v, want %v", i, paper.R[i], paper.H[i], wantR[i])
		}
	}
	if !near(paper.RMean, (1+0.3+s2)/4, 1e-6) || !near(paper.HMean, paper.RMean, 1e-12) {
		t.Errorf("means r̄ = %v, h̄ = %v", paper.RMean, paper.HMean)
	}

	// The default preset: r = clip(0.5 max(cos,0) + 0.5 BM25 + 0.3ℓ, 0, 1).
	// "cats" is the only query word in the index, in node 1 only: BM25 = (0,1,0,0).
	def, err := scoreVec(g, Config{}, "Do cats appear in Figure 2?", q)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 1, 0, 0}; !reflect.DeepEqual(def.BM25, want) {
		t.Errorf("BM25 = %v, want %v", def.BM25, want)
	}
	wantR = []float64{0.5, 0.8, 0.5 * s2, 0.3}
	for i := range wantR {
		if !near(def.R[i], wantR[i], 1e-6) || !near(def.H[i], wantR[i]/0.8, 1e-6) {
			t.Errorf("default node %d: r = %v, h = %v, want %v, %v", i, def.R[i], def.H[i], wantR[i], wantR[i]/0.8)
		}
	}
	// Switches: no BM25, no reference boost.
	off, err := scoreVec(g, Config{BM25Weight: -1, RefBoost: -1}, "Do cats appear in Figure 2?", q)
	if err != nil {
		t.Fatal(err)
	}
	if off.BM25 != nil || off.Ref != nil || !near(off.R[3], 0, 0) || !near(off.R[2], s2, 1e-6) {
		t.Errorf("switches off: BM25 %v, Ref %v, R %v", off.BM25, off.Ref, off.R)
	}
}

func TestDegenerate(t *testing.T) {
	presets := map[string]Config{"aspects": Config{}, "paper": paperAspects(), "classic": classicConfig()}
	for _, name := range []string{"aspects", "paper", "classic"} {
		c := presets[name]
		s := func(g *graph.Graph, text string, q []float32) (*Scores, error) { return scoreVec(g, c, text, q) }
		t.Run(name+"/empty", func(t *testing.T) {
			g := mustGraph(t, nil, 3, nil, nil)
			sc, err := s(g, "Figure 1 accuracy", []float32{1, 0, 0})
			if err != nil {
				t.Fatal(err)
			}
			if len(sc.R) != 0 || len(sc.H) != 0 || sc.HMean != 0 || len(sc.Sources) != 0 || len(sc.Sinks) != 0 {
				t.Errorf("empty graph: %+v", sc)
			}
		})
		t.Run(name+"/one node", func(t *testing.T) {
			g := mustGraph(t, []graph.Node{{Content: "accuracy of the model", Summary: "model accuracy"}}, 2, []float32{3, 4}, nil)
			sc, err := s(g, "model accuracy", []float32{3, 4})
			if err != nil {
				t.Fatal(err)
			}
			if sc.H[0] != 1 && !c.Fusion {
				t.Errorf("h = %v, want 1", sc.H[0])
			}
			if c.Fusion && (!reflect.DeepEqual(sc.Sources, []int{0}) || !reflect.DeepEqual(sc.Sinks, []int{0})) {
				t.Errorf("sources %v sinks %v", sc.Sources, sc.Sinks)
			}
			checkRanges(t, sc)
		})
		t.Run(name+"/zero query", func(t *testing.T) {
			g := randomGraph(t, 1, 30, 8, 20)
			sc, err := s(g, "zebra", make([]float32, 8))
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range sc.Cos {
				if c != 0 {
					t.Fatalf("cos[%d] = %v with a zero query", i, c)
				}
			}
			for i, h := range sc.H {
				if h != 0 {
					t.Fatalf("h[%d] = %v with a zero query and no lexical match", i, h)
				}
			}
			checkRanges(t, sc)
		})
		t.Run(name+"/bad query", func(t *testing.T) {
			g := randomGraph(t, 1, 5, 4, 0)
			for _, q := range [][]float32{{1, float32(math.NaN()), 0, 0}, {float32(math.Inf(1)), 0, 0, 0}} {
				if _, err := s(g, "x", q); !errors.Is(err, ErrEmbedding) {
					t.Errorf("query %v: err = %v, want ErrEmbedding", q, err)
				}
			}
			if _, err := s(g, "x", []float32{1, 0}); !errors.Is(err, ErrEmbedding) {
				t.Errorf("short query: err = %v, want ErrEmbedding", err)
			}
			bad := randomGraph(t, 1, 5, 4, 0)
			bad.Emb[6] = float32(math.NaN()) // node 1, behind graph.New's back
			if _, err := s(bad, "x", []float32{1, 1, 1, 1}); !errors.Is(err, ErrEmbedding) {
				t.Errorf("NaN in a node embedding: err = %v, want ErrEmbedding", err)
			}
			for _, ix := range []*Index{nil, NewIndex(nil)} {
				if sc, err := ix.Score(c, Query{Text: "x"}); err != nil || len(sc.H) != 0 {
					t.Errorf("index of no graph: %v, %v", sc, err)
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for name, c := range map[string]Config{"classic": classicConfig(), "paper": paperAspects(),
		"aspects": Config{}, "dense": {BM25Weight: -1, RefBoost: -1, HopAlpha: -1}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := []struct {
		field string
		set   func(*Config)
	}{
		{"BM25Weight", func(c *Config) { c.BM25Weight = math.Inf(-1) }},
		{"BM25Weight", func(c *Config) { c.BM25Weight = 1.5 }},
		{"RefBoost", func(c *Config) { c.RefBoost = math.NaN() }},
		{"RelevanceWeight + PropagationWeight + DiffusionWeight", func(c *Config) { c.RelevanceWeight = 0.9 }},
		{"MinEdgeWeight", func(c *Config) { c.MinEdgeWeight = math.Inf(1) }},
		{"Sources", func(c *Config) { c.Sources = -1 }},
		{"Sinks", func(c *Config) { c.Sinks = -1 }},
	}
	g := randomGraph(t, 1, 5, 4, 0)
	for i, b := range bad {
		c := classicConfig()
		b.set(&c)
		err := c.Validate()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), b.field) {
			t.Errorf("case %d: Validate = %v, want ErrConfig naming %s", i, err, b.field)
		}
		if _, err := scoreVec(g, c, "x", make([]float32, 4)); !errors.Is(err, ErrConfig) {
			t.Errorf("case %d: Score err = %v, want ErrConfig", i, err)
		}
	}
	if !keepEdge(0.22, 0.22) || keepEdge(0.2199, 0.22) || !keepEdge(0, 0) {
		t.Error("keepEdge")
	}
}

// checkRanges checks the invariants every Scores must satisfy.
func checkRanges(t *testing.T, sc *Scores) {
	t.Helper()
	for name, x := range map[string][]float64{"R": sc.R, "H": sc.H, "BM25": sc.BM25, "Ref": sc.Ref, "Phi": sc.Phi, "Psi": sc.Psi, "A": sc.A} {
		for i, v := range x {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s[%d] = %v outside [0,1]", name, i, v)
			}
		}
	}
	for i, v := range sc.Cos {
		if !(v >= -1-1e-5 && v <= 1+1e-5) {
			t.Fatalf("Cos[%d] = %v", i, v)
		}
	}
}
