package reader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm/local"
)

// twoRowHeader is a results table as MinerU writes it: "Methods" spans both
// header rows, each metric group spans its two columns.
const twoRowHeader = `<table><tr><td rowspan="2">Methods</td><td colspan="2">REQ</td><td colspan="2">RES</td></tr>` +
	`<tr><td>Precision</td><td>Recall</td><td>Precision</td><td>Recall</td></tr>` +
	`<tr><td>BERT</td><td>71.2</td><td>65.0</td><td>80.1</td><td>77.3</td></tr>` +
	`<tr><td>TaPas</td><td>74.8</td><td>69.9</td><td>82.6</td><td>79.4</td></tr></table>`

// tableGraph ingests one MinerU table through graph/ingest (which renders
// its spans) and makes a graph of its items.
func tableGraph(t *testing.T, body string) *graph.Graph {
	t.Helper()
	dir := t.TempDir()
	list := fmt.Sprintf(`[{"type":"text","text":"We compare two encoders on request and response detection.","page_idx":0},`+
		`{"type":"table","table_body":%q,"table_caption":["Table 2: Precision and recall."],"page_idx":0}]`, body)
	if err := os.WriteFile(filepath.Join(dir, "paper_content_list.json"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := ingest.Path(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []graph.Node
	for _, d := range docs {
		for k, it := range d.Items {
			ns = append(ns, graph.Node{ID: fmt.Sprintf("%s#%d", d.ID, k), Doc: d.ID, Page: it.Page, Order: k,
				Modality: it.Modality, Section: it.Section, Content: it.Text, Caption: it.Caption})
		}
	}
	g, err := graph.New(ns, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestExtractiveTwoHeaderRows(t *testing.T) {
	g := tableGraph(t, twoRowHeader)
	var table string
	for _, n := range g.Nodes {
		if n.Modality == graph.ModalityTable {
			table = n.Content
		}
	}
	if !strings.Contains(table, "Methods | Precision | Recall | Precision | Recall") {
		t.Fatalf("ingest no longer repeats the spanning header cell; the test's premise changed:\n%s", table)
	}
	cases := []struct{ q, want string }{
		{"What is the REQ recall of TaPas?", "69.9"},
		{"What RES precision does BERT reach?", "80.1"},
	}
	for _, c := range cases {
		ans, err := (&Extractive{}).Read(context.Background(), &Input{Question: c.q, Graph: g, Chains: allChains(g)})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Text != c.want && !(ans.LowConfidence() && strings.Contains(ans.Text, c.want)) {
			t.Errorf("%q: got %q (confidence %.2f), want %q", c.q, ans.Text, ans.Confidence, c.want)
		}
		if cit := ans.Citations[0]; cit.Quote[cit.Span[0]:cit.Span[1]] != c.want {
			t.Errorf("%q: span %v of %q, want %q", c.q, cit.Span, cit.Quote, c.want)
		}
		for _, cit := range ans.Citations {
			if strings.HasPrefix(cit.Quote, "Methods") {
				t.Errorf("%q: cites a header row %q", c.q, cit.Quote)
			}
		}
	}
}

func TestHeaderRows(t *testing.T) {
	cases := []struct {
		rows  [][]string
		k     int
		merge []string
	}{
		{[][]string{{"A", "B"}, {"1", "2"}}, 1, nil},
		{[][]string{{"M", "X", "X"}, {"M", "p", "r"}, {"a", "1", "2"}}, 2, []string{"M", "X p", "X r"}},
		{[][]string{{"M", "X"}, {"M", "X"}, {"a", "1"}}, 2, []string{"M", "X"}},
		// Never every row: a body row must remain.
		{[][]string{{"M", "X"}, {"M", "Y"}}, 1, nil},
		// An empty first cell is no span.
		{[][]string{{"", "X"}, {"", "p"}, {"a", "1"}}, 1, nil},
		{[][]string{{"M", "a"}, {"M", "b"}, {"M", "c"}, {"M", "d"}, {"M", "e"}}, maxHeaderRows, []string{"M", "a b c"}},
	}
	for i, c := range cases {
		k := headerRows(c.rows)
		if k != c.k {
			t.Errorf("case %d: %d header rows, want %d", i, k, c.k)
			continue
		}
		if c.merge != nil {
			if got := mergeHeader(c.rows[:k]); strings.Join(got, "|") != strings.Join(c.merge, "|") {
				t.Errorf("case %d: merged %q, want %q", i, got, c.merge)
			}
		}
	}
}

// An off-topic question gets no answer rather than a confident irrelevant
// sentence: empty text, no citations, a note that says so.
func TestExtractiveAbstains(t *testing.T) {
	g := fixtureGraph(t)
	for _, q := range []string{"What is the capital of Japan?", "Which enzyme breaks down lactose?"} {
		for _, e := range []*Extractive{{}, {Embedder: local.Embedder()}} {
			ans, err := e.Read(context.Background(), &Input{Question: q, Graph: g, Chains: allChains(g)})
			if err != nil {
				t.Fatal(err)
			}
			if ans.Text != "" || len(ans.Citations) != 0 || !strings.HasPrefix(ans.Trace.Note, "no answer in the collection") {
				t.Errorf("%q (embedder %v): answer %q, %d citations, note %q", q, e.Embedder != nil, ans.Text, len(ans.Citations), ans.Trace.Note)
			}
		}
	}
}

func TestCoverage(t *testing.T) {
	row := scored{u: unit{kind: unitRow, text: "North Mole 248", header: []string{"Breakwater", "Nests"}}, ctx: map[string]bool{"survey": true}}
	cases := []struct {
		q    string
		want float64
	}{
		{"nests survey", 1},
		{"nests breakwater japan capital", 0.5},
		{"japan", 0},
		{"the of and", 1}, // no terms: nothing to miss
		{"nests nests japan", 0.5},
	}
	for _, c := range cases {
		if got := coverage(stems(c.q), []scored{row}); got != c.want {
			t.Errorf("%q: coverage %v, want %v", c.q, got, c.want)
		}
	}
}

// The answer line is made of the cited spans and nothing else, over every
// quickstart question and an off-topic one.
func TestExtractiveAnswerAgreesWithCitations(t *testing.T) {
	g := quickstartGraph(t)
	qs := []string{
		"How many nests were counted on the North Mole in 2025?",
		"What was the peak gust of the storm that flooded the East Arm?",
		"Who was the survey leader in 2025?",
		"What does Figure 2 show?",
		"What is the annual rainfall total?",
		"What is the capital of Japan?",
	}
	for _, q := range qs {
		for _, e := range []*Extractive{{}, {Embedder: local.Embedder()}} {
			ans, err := e.Read(context.Background(), &Input{Question: q, Graph: g, Chains: allChains(g)})
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(ans.Text, " … ")
			if ans.Text == "" {
				parts = nil
			}
			if len(parts) != len(ans.Citations) {
				t.Errorf("%q: %d answer parts, %d citations: %q", q, len(parts), len(ans.Citations), ans.Text)
				continue
			}
			for i, c := range ans.Citations {
				n := g.Nodes[c.Node]
				if !strings.Contains(n.Content+"\n"+n.Caption, c.Quote) {
					t.Errorf("%q: citation %d quote %q not in node %s", q, i, c.Quote, n.ID)
				}
				// A row's part is "label — column: value" or "column: value; …",
				// the cells of the quoted row.
				for _, w := range strings.FieldsFunc(parts[i], func(r rune) bool { return r == '—' || r == ':' || r == ';' || r == ' ' }) {
					if !strings.Contains(c.Quote, w) && !strings.Contains(n.Content, w) {
						t.Errorf("%q: answer part %d word %q is not in citation %d's node", q, i, w, i)
					}
				}
			}
		}
	}
}
