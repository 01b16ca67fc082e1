package score

import (
	"fmt"
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
		{"What does Figure 3 show?", []Ref{{refFigure, "3"}}},
		{"In Fig. 2b, which curve is higher?", []Ref{{refFigure, "2b"}}},
		{"fig 10.", []Ref{{refFigure, "10"}}},
		{"Compare Table II with table iv", []Ref{{refTable, "ii"}, {refTable, "iv"}}},
		{"See Tables 2 and 3", []Ref{{refTable, "2"}, {refTable, "3"}}},
		{"Figures 2, 3, and 5", []Ref{{refFigure, "2"}, {refFigure, "3"}, {refFigure, "5"}}},
		{"Figs. 2-4", []Ref{{refFigure, "2"}, {refFigure, "3"}, {refFigure, "4"}}},
		{"Sections 3 to 5", []Ref{{refSection, "3"}, {refSection, "4"}, {refSection, "5"}}},
		{"as in Section 4.1 and §3.2", []Ref{{refSection, "4.1"}, {refSection, "3.2"}}},
		{"on slide 7", []Ref{{refSlide, "7"}}},
		{"Eq. 5 and Equation (6)", []Ref{{refEquation, "5"}, {refEquation, "6"}}},
		{"Appendix A and Appendix B.2", []Ref{{refAppendix, "a"}, {refAppendix, "b.2"}}},
		{"Algorithm 1 and Alg. 2", []Ref{{refAlgorithm, "1"}, {refAlgorithm, "2"}}},
		{"Table S1", []Ref{{refTable, "s1"}}},
		{"Table 3 and Table 3 again", []Ref{{refTable, "3"}}},
		// Not references: words that only look like them.
		{"a tablet 5 times; a figure civil; Section a", nil},
		// A list does not swallow a following pronoun or year-like prose.
		{"Table 2 and I think", []Ref{{refTable, "2"}}},
		{"Table 2, which", []Ref{{refTable, "2"}}},
		// Descending or huge ranges are not expanded.
		{"Figs. 4-2", []Ref{{refFigure, "4"}, {refFigure, "2"}}},
		{"Tables 1-1000", []Ref{{refTable, "1"}, {refTable, "1000"}}},
	}
	for _, c := range cases {
		if got := extractRefs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("extractRefs(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestNodeRefs(t *testing.T) {
	cases := []struct {
		name string
		node graph.Node
		want []Ref
	}{
		{"caption label only", graph.Node{Modality: graph.ModalityFigure, Caption: "Figure 3: accuracy, compared with Table 2."},
			[]Ref{{refFigure, "3"}}},
		{"summary prefix", graph.Node{Modality: graph.ModalityTable, Summary: "Table 4 — results on FeTaQA, see Figure 1"},
			[]Ref{{refTable, "4"}}},
		{"summary without prefix", graph.Node{Modality: graph.ModalityTable, Summary: "Results as in Figure 1"}, nil},
		{"keywords", graph.Node{Modality: graph.ModalityFigure, Keywords: []string{"recall", "Fig. 5", "Eq. 2"}},
			[]Ref{{refFigure, "5"}, {refEquation, "2"}}},
		{"text node: keywords only", graph.Node{Modality: graph.ModalityText, Caption: "Figure 9", Summary: "Figure 8 — x",
			Content: "as Table 1 shows", Keywords: []string{"Table 7"}}, []Ref{{refTable, "7"}}},
		{"merged without duplicates", graph.Node{Modality: graph.ModalityFigure, Caption: "Fig. 2. A plot",
			Summary: "Figure 2 — a plot", Keywords: []string{"Figure 2"}}, []Ref{{refFigure, "2"}}},
	}
	for _, c := range cases {
		if got := nodeRefs(&c.node); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: nodeRefs = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRefMatchSubfigure(t *testing.T) {
	nodes := []graph.Node{
		{Modality: graph.ModalityFigure, Caption: "Figure 2: panels"},
		{Modality: graph.ModalityFigure, Caption: "Figure 2b: a panel"},
		{Modality: graph.ModalityFigure, Caption: "Figure 2c: a panel"},
		{Modality: graph.ModalityTable, Caption: "Table 2"},
	}
	g := mustGraph(t, nodes, 0, nil, nil)
	ix := NewIndex(g)
	l := make([]float64, 4)
	ix.refMatch(l, extractRefs("What is in Fig. 2b?"))
	if want := []float64{1, 1, 0, 0}; !reflect.DeepEqual(l, want) {
		t.Errorf("Fig. 2b matches %v, want %v", l, want)
	}
	clear(l)
	ix.refMatch(l, extractRefs("What is in Figure 2?"))
	if want := []float64{1, 0, 0, 0}; !reflect.DeepEqual(l, want) {
		t.Errorf("Figure 2 matches %v, want %v", l, want)
	}
}

var refTypes = map[string]bool{refFigure: true, refTable: true, refSection: true, refEquation: true,
	refSlide: true, refAppendix: true, refAlgorithm: true}

func FuzzRefs(f *testing.F) {
	for _, s := range []string{"Figure 3", "Figs. 2-4 and Fig. 2b", "Tables II, III and IV", "§3.2", "Eq. (5)",
		"Appendix A.1", "Sections 3 to 5", "table 1-1000000000000000000000", "Fig.\u00a02", "tabl\xffe 3",
		"ſection 2", "TAB 4", "ALGS. 3", "eqns 7", "SLIDES 2", "no reference here", "f1g 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !mayRef(s) && (refHead.MatchString(s) || refPrefix.MatchString(s)) {
			t.Fatalf("mayRef(%q) = false, but a reference head matches", s)
		}
		refs := extractRefs(s)
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
		if !reflect.DeepEqual(refs, extractRefs(s)) {
			t.Fatal("not deterministic")
		}
		n := graph.Node{Modality: graph.ModalityFigure, Caption: s, Summary: s, Keywords: []string{s}}
		for _, r := range nodeRefs(&n) {
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
		kw := queryTerms(s)
		seen := map[string]bool{}
		for _, k := range kw {
			if k == "" || seen[k] || k != strings.ToLower(k) {
				t.Fatalf("bad or repeated keyword %q in %q", k, kw)
			}
			seen[k] = true
		}
		if !reflect.DeepEqual(kw, queryTerms(s)) {
			t.Fatal("not deterministic")
		}
	})
}

func TestRefsExamples(t *testing.T) {
	got := fmt.Sprint(extractRefs("Compare Tables 2 and 3 with Figs. 4-6, Fig. 2b, Table IV, Section 4.1, slide 7, Eq. (5) and Appendix A."))
	if want := "[{table 2} {table 3} {figure 4} {figure 5} {figure 6} {figure 2b} {table iv} {section 4.1} {slide 7} {equation 5} {appendix a}]"; got != want {
		t.Errorf("extractRefs = %s, want %s", got, want)
	}
	n := graph.Node{Modality: graph.ModalityFigure, Caption: "Fig. 3. Recall, as in Table 2.", Keywords: []string{"recall", "Figure 3"}}
	if got := fmt.Sprint(nodeRefs(&n)); got != "[{figure 3}]" {
		t.Errorf("nodeRefs = %s", got)
	}
	ix := NewIndex(mustGraph(t, []graph.Node{{}, {}, {Modality: graph.ModalityTable, Caption: "Table 1: training cost"}}, 0, nil, nil))
	if got := fmt.Sprint(ix.nodeRefs[2]); got != "[{table 1}]" {
		t.Errorf("index node refs = %s", got)
	}
}

func TestMayRef(t *testing.T) {
	for _, s := range []string{"", "row12 w3 w55 the results improve", "a fine tabular layout"[:6], "equal"[:1]} {
		if mayRef(s) {
			t.Errorf("mayRef(%q) = true", s)
		}
	}
	for _, s := range []string{"see fig", "TABLE", "Sec.", "slides", "eq", "Appendix", "algorithm", "§", "naïve"} {
		if !mayRef(s) {
			t.Errorf("mayRef(%q) = false", s)
		}
	}
}
