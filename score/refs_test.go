package score

import (
	"reflect"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

func TestExtractRefs(t *testing.T) {
	cases := []struct {
		in   string
		want []Ref
	}{
		{"", nil},
		{"What is the accuracy of the model?", nil},
		{"What does Figure 3 show?", []Ref{{RefFigure, "3"}}},
		{"In Fig. 2b, which curve is higher?", []Ref{{RefFigure, "2b"}}},
		{"fig 10.", []Ref{{RefFigure, "10"}}},
		{"Compare Table II with table iv", []Ref{{RefTable, "ii"}, {RefTable, "iv"}}},
		{"See Tables 2 and 3", []Ref{{RefTable, "2"}, {RefTable, "3"}}},
		{"Figures 2, 3, and 5", []Ref{{RefFigure, "2"}, {RefFigure, "3"}, {RefFigure, "5"}}},
		{"Figs. 2-4", []Ref{{RefFigure, "2"}, {RefFigure, "3"}, {RefFigure, "4"}}},
		{"Sections 3 to 5", []Ref{{RefSection, "3"}, {RefSection, "4"}, {RefSection, "5"}}},
		{"as in Section 4.1 and §3.2", []Ref{{RefSection, "4.1"}, {RefSection, "3.2"}}},
		{"on slide 7", []Ref{{RefSlide, "7"}}},
		{"Eq. 5 and Equation (6)", []Ref{{RefEquation, "5"}, {RefEquation, "6"}}},
		{"Appendix A and Appendix B.2", []Ref{{RefAppendix, "a"}, {RefAppendix, "b.2"}}},
		{"Algorithm 1 and Alg. 2", []Ref{{RefAlgorithm, "1"}, {RefAlgorithm, "2"}}},
		{"Table S1", []Ref{{RefTable, "s1"}}},
		{"Table 3 and Table 3 again", []Ref{{RefTable, "3"}}},
		// Not references: words that only look like them.
		{"a tablet 5 times; a figure civil; Section a", nil},
		// A list does not swallow a following pronoun or year-like prose.
		{"Table 2 and I think", []Ref{{RefTable, "2"}}},
		{"Table 2, which", []Ref{{RefTable, "2"}}},
		// Descending or huge ranges are not expanded.
		{"Figs. 4-2", []Ref{{RefFigure, "4"}, {RefFigure, "2"}}},
		{"Tables 1-1000", []Ref{{RefTable, "1"}, {RefTable, "1000"}}},
	}
	for _, c := range cases {
		if got := ExtractRefs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ExtractRefs(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestNodeRefs(t *testing.T) {
	cases := []struct {
		name string
		node graph.Node
		want []Ref
	}{
		{"caption label only", graph.Node{Modality: graph.Figure, Caption: "Figure 3: accuracy, compared with Table 2."},
			[]Ref{{RefFigure, "3"}}},
		{"summary prefix", graph.Node{Modality: graph.Table, Summary: "Table 4 — results on FeTaQA, see Figure 1"},
			[]Ref{{RefTable, "4"}}},
		{"summary without prefix", graph.Node{Modality: graph.Table, Summary: "Results as in Figure 1"}, nil},
		{"keywords", graph.Node{Modality: graph.Figure, Keywords: []string{"recall", "Fig. 5", "Eq. 2"}},
			[]Ref{{RefFigure, "5"}, {RefEquation, "2"}}},
		{"text node: keywords only", graph.Node{Modality: graph.Text, Caption: "Figure 9", Summary: "Figure 8 — x",
			Content: "as Table 1 shows", Keywords: []string{"Table 7"}}, []Ref{{RefTable, "7"}}},
		{"merged without duplicates", graph.Node{Modality: graph.Figure, Caption: "Fig. 2. A plot",
			Summary: "Figure 2 — a plot", Keywords: []string{"Figure 2"}}, []Ref{{RefFigure, "2"}}},
	}
	for _, c := range cases {
		if got := NodeRefs(&c.node); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: NodeRefs = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRefMatchSubfigure(t *testing.T) {
	nodes := []graph.Node{
		{Modality: graph.Figure, Caption: "Figure 2: panels"},
		{Modality: graph.Figure, Caption: "Figure 2b: a panel"},
		{Modality: graph.Figure, Caption: "Figure 2c: a panel"},
		{Modality: graph.Table, Caption: "Table 2"},
	}
	g := mustGraph(t, nodes, 0, nil, nil)
	ix := NewIndex(g)
	l := make([]float64, 4)
	ix.refMatch(l, ExtractRefs("What is in Fig. 2b?"))
	if want := []float64{1, 1, 0, 0}; !reflect.DeepEqual(l, want) {
		t.Errorf("Fig. 2b matches %v, want %v", l, want)
	}
	clear(l)
	ix.refMatch(l, ExtractRefs("What is in Figure 2?"))
	if want := []float64{1, 0, 0, 0}; !reflect.DeepEqual(l, want) {
		t.Errorf("Figure 2 matches %v, want %v", l, want)
	}
}

var refTypes = map[string]bool{RefFigure: true, RefTable: true, RefSection: true, RefEquation: true,
	RefSlide: true, RefAppendix: true, RefAlgorithm: true}

func FuzzRefs(f *testing.F) {
	for _, s := range []string{"Figure 3", "Figs. 2-4 and Fig. 2b", "Tables II, III and IV", "§3.2", "Eq. (5)",
		"Appendix A.1", "Sections 3 to 5", "table 1-1000000000000000000000", "Fig.\u00a02", "tabl\xffe 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		refs := ExtractRefs(s)
		seen := map[Ref]bool{}
		for _, r := range refs {
			if !refTypes[r.Type] {
				t.Fatalf("unknown type %q in %v", r.Type, r)
			}
			if r.ID == "" || r.ID != strings.ToLower(r.ID) {
				t.Fatalf("bad id %q", r.ID)
			}
			if seen[r] {
				t.Fatalf("duplicate %v", r)
			}
			seen[r] = true
		}
		if len(refs) > len(s)*maxRange {
			t.Fatalf("%d refs from %d bytes", len(refs), len(s))
		}
		if !reflect.DeepEqual(refs, ExtractRefs(s)) {
			t.Fatal("not deterministic")
		}
		n := graph.Node{Modality: graph.Figure, Caption: s, Summary: s, Keywords: []string{s}}
		for _, r := range NodeRefs(&n) {
			if !refTypes[r.Type] || r.ID == "" {
				t.Fatalf("bad node ref %v", r)
			}
		}
	})
}

func FuzzKeywords(f *testing.F) {
	for _, s := range []string{"What are the running times in Table 3?", "1,024 and 3.14", "Ünïcödé ΣΙΓΜΑ", "a.b,c", "9,", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kw := Keywords(s)
		seen := map[string]bool{}
		for _, k := range kw {
			if k == "" || seen[k] || k != strings.ToLower(k) {
				t.Fatalf("bad or repeated keyword %q in %q", k, kw)
			}
			seen[k] = true
		}
		if !reflect.DeepEqual(kw, Keywords(s)) {
			t.Fatal("not deterministic")
		}
	})
}
