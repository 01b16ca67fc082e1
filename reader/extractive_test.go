package reader

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/llm/local"
)

func allChains(g *graph.Graph) []flow.Chain {
	var cs []flow.Chain
	for i := 0; i < len(g.Nodes); i++ {
		cs = append(cs, flow.Chain{Nodes: []int{i}, Flow: 1})
	}
	return cs
}

func TestExtractiveTableAndParagraph(t *testing.T) {
	g := fixtureGraph(t)
	cases := []struct{ q, want, node string }{
		{"How many nests did the North Mole hold in 2025?", "248", "survey#1"},
		{"How many nests were on the East Arm in 2024?", "97", "survey#1"},
		{"What is the main species on Lighthouse Spit?", "herring gull", "survey#1"},
		{"Who was the survey leader in 2025?", "Dr Ilse Marrow", "survey#4"},
		{"How high did the storm of 14 May 2025 reach?", "2.1 metres", "survey#3"},
	}
	for _, c := range cases {
		e := &Extractive{}
		ans, err := e.Read(context.Background(), &Input{Question: c.q, Graph: g, Chains: allChains(g)})
		if err != nil {
			t.Fatal(err)
		}
		// A confident answer is the span; a low-confidence one is its
		// passage, with the span marked.
		if ans.Text != c.want && !(ans.LowConfidence() && strings.Contains(ans.Text, c.want)) {
			t.Errorf("%q:\n got %q (confidence %.2f)\nwant %q", c.q, ans.Text, ans.Confidence, c.want)
		}
		if cit := ans.Citations; len(cit) > 0 && cit[0].Span[1] > 0 && !strings.Contains(cit[0].Quote[cit[0].Span[0]:cit[0].Span[1]], c.want) {
			t.Errorf("%q: span %v of %q does not mark %q", c.q, cit[0].Span, cit[0].Quote, c.want)
		}
		if len(ans.Citations) == 0 || ans.Citations[0].NodeID != c.node || ans.Citations[0].Quote == "" {
			t.Errorf("%q: citations %+v", c.q, ans.Citations)
		}
		if ans.Trace.Reader != "extractive" || ans.Trace.Calls != 0 {
			t.Errorf("trace %+v", ans.Trace)
		}
	}
}

func TestExtractiveOnlyReadsSelectedChains(t *testing.T) {
	g := fixtureGraph(t)
	ans, err := (&Extractive{}).Read(context.Background(), &Input{Question: "Who was the survey leader in 2025?", Graph: g,
		Chains: []flow.Chain{{Nodes: []int{3}}, {Nodes: []int{0}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ans.Citations {
		if c.Node != 3 && c.Node != 0 {
			t.Errorf("cited node %d outside the chains", c.Node)
		}
	}
	if strings.Contains(ans.Text, "Marrow") {
		t.Error("answered from a node that was not selected")
	}
}

func TestExtractiveNoMatch(t *testing.T) {
	g := fixtureGraph(t)
	ans, err := (&Extractive{}).Read(context.Background(), &Input{Question: "zebra quasar", Graph: g, Chains: allChains(g)})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text != "" || ans.Trace.Note == "" {
		t.Errorf("answer %q, note %q", ans.Text, ans.Trace.Note)
	}
}

func TestExtractiveWithEmbedder(t *testing.T) {
	g := fixtureGraph(t)
	e := &Extractive{Embedder: &fake.Embedder{}}
	ans, err := e.Read(context.Background(), &Input{Question: "Who was the survey leader in 2025?", Graph: g, Chains: allChains(g)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans.Text, "Ilse Marrow") {
		t.Errorf("answer %q", ans.Text)
	}
}

// quickstartGraph ingests the quickstart documents with graph/ingest and
// makes one node per item (no embeddings: the extractive reader does not
// need them).
func quickstartGraph(t *testing.T) *graph.Graph {
	t.Helper()
	docs, err := ingest.Path(filepath.Join("..", "examples", "quickstart", "docs"))
	if err != nil {
		t.Skipf("quickstart documents: %v", err)
	}
	var ns []graph.Node
	for _, d := range docs {
		for k, it := range d.Items {
			ns = append(ns, graph.Node{ID: fmt.Sprintf("%s#%d", d.ID, k), Doc: d.ID, Page: it.Page, Order: k,
				Modality: it.Modality, Section: it.Section, Content: it.Text, Caption: it.Caption, Footnote: it.Footnote, Image: it.Image})
		}
	}
	g, err := graph.New(ns, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestExtractiveQuickstart(t *testing.T) {
	g := quickstartGraph(t)
	cases := []struct{ q, want string }{
		{"How many nests were counted on the North Mole in 2025?", "248"},
		{"Who was the survey leader in 2025?", "Ilse Marrow"},
		{"Where is the weather station?", "cliff above Kestrel Bay"},
		{"What does Figure 2 show?", "Monthly rainfall"},
		{"How many storms passed the station in 2025?", "Three storms"},
		{"What is the annual rainfall total?", "903 mm"},
		{"Which breakwater is the lowest?", "East Arm"},
		{"Why did the East Arm lose its terns?", "after a storm in May flooded"},
		{"What was the peak gust of Storm Elda?", "131"},
		{"Which month had the highest rainfall at Northfield?", "November"},
		{"Since when has Tomas Reyes led the Northfield station?", "March 2025"},
		{"What surge did Storm Iris bring?", "1.2"},
	}
	for _, e := range []*Extractive{{}, {Embedder: local.Embedder()}} {
		for _, c := range cases {
			ans, err := e.Read(context.Background(), &Input{Question: c.q, Graph: g, Chains: allChains(g)})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(ans.Text, c.want) {
				t.Errorf("embedder %v: %q: got %q, want it to contain %q", e.Embedder != nil, c.q, ans.Text, c.want)
				continue
			}
			t.Logf("%s → %s [%s]", c.q, ans.Text, ans.Citations[0].NodeID)
		}
	}
}

func TestUnits(t *testing.T) {
	n := &graph.Node{Modality: graph.ModalityTable, Caption: "Table 2: Storms.", Content: "Storm | Date | Peak gust (km/h)\nStorm Abel | 9 January | 96\nStorm Elda | 14 May | 131"}
	us := units(n)
	if len(us) != 3 || us[0].kind != unitCaption || us[2].kind != unitRow || us[2].text != "Storm: Storm Elda; Date: 14 May; Peak gust (km/h): 131" {
		t.Errorf("units %+v", us)
	}
	html := &graph.Node{Modality: graph.ModalityTable, Content: "<table><tr><th>A</th><th>B</th></tr><tr><td>x &amp; y</td><td>2</td></tr></table>"}
	if us := units(html); len(us) != 1 || us[0].text != "A: x & y; B: 2" {
		t.Errorf("html units %+v", us)
	}
	prose := &graph.Node{Content: "Dr. Smith measured 2.5 m. It rose.\n- first item\n- second item\n\nNew para? Yes."}
	var got []string
	for _, u := range units(prose) {
		got = append(got, u.kind+":"+u.text)
	}
	want := []string{"sentence:Dr. Smith measured 2.5 m.", "sentence:It rose.", "item:- first item", "item:- second item", "sentence:New para?", "sentence:Yes."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("units\n got %q\nwant %q", got, want)
	}
}

// FuzzUnits splits arbitrary document text (prose, Markdown or HTML
// tables) into answer units: no panic, every unit non-empty, and the
// extractive answer built from a unit is never empty.
func FuzzUnits(f *testing.F) {
	for _, s := range []string{
		"| a | b |\n|---|---|\n| 1 | 2 |", "<table><tr><td>x</td></tr><tr><td>1</td></tr></table>", "Dr. X said. Y 2.5 m? Z!",
		"- item\n1. item\n\n", "a\tb\nc\td", "<tr><td><tr>", "||\n||",
	} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, table bool) {
		m := graph.ModalityText
		if table {
			m = graph.ModalityTable
		}
		for _, u := range units(&graph.Node{Modality: m, Content: s, Caption: s}) {
			if strings.TrimSpace(u.text) == "" {
				continue // an empty cell row; never chosen, it matches nothing
			}
			if answerText(u, stems(s)) == "" {
				t.Fatalf("empty answer from unit %+v", u)
			}
		}
	})
}

// FuzzExtractiveSpans reads arbitrary documents with arbitrary questions:
// no panic, a confidence in [0, 1], and every citation's Span inside its
// Quote (a client slices the quote with it), the answer line made of
// verbatim text when the reader is sure.
func FuzzExtractiveSpans(f *testing.F) {
	for _, c := range [][3]string{
		{"How many nests did the North Mole hold in 2025?", "| Breakwater | Nests 2025 |\n|---|---|\n| North Mole | 248 |", "The survey counts nests every June."},
		{"What does RCAC stand for?", "Row and Column Access Control (RCAC) limits rows.", "RCAC: rows."},
		{"Where is the station?", "The station sits on the cliff above Kestrel Bay, Northfield.", ""},
		{"Which variable sets it?", "Set OLLAMA_MODELS to a folder.\nollama ps", "- a\n- b"},
		{"When?", "In March 2025 and 1998s", "e.g. 10 (Default: 40)"},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, q, a, b string) {
		ns := []graph.Node{{ID: "a", Doc: "a", Modality: graph.ModalityText, Content: a},
			{ID: "b", Doc: "b", Modality: graph.ModalityTable, Content: b, Caption: q}}
		g, err := graph.New(ns, 0, nil, nil)
		if err != nil {
			t.Skip()
		}
		ans, err := (&Extractive{}).Read(context.Background(), &Input{Question: q, Graph: g, Chains: allChains(g)})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Confidence < 0 || ans.Confidence > 1 {
			t.Fatalf("confidence %v", ans.Confidence)
		}
		for _, c := range ans.Citations {
			if c.Span[0] < 0 || c.Span[0] > c.Span[1] || c.Span[1] > len(c.Quote) {
				t.Fatalf("span %v outside quote %q", c.Span, c.Quote)
			}
		}
		if ans.Text != "" && !ans.LowConfidence() && len(ans.Citations) == 1 && ans.Citations[0].Span[1] > 0 {
			// The span (or each span of a list) is verbatim in the quote.
			c := ans.Citations[0]
			for _, part := range strings.Split(ans.Text, ", ") {
				if !strings.Contains(c.Quote[c.Span[0]:c.Span[1]], part) {
					t.Fatalf("answer %q, marked span %q", ans.Text, c.Quote[c.Span[0]:c.Span[1]])
				}
			}
		}
	})
}
