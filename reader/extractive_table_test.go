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
		{"What is the REQ recall of TaPas?", "TaPas — REQ Recall: 69.9"},
		{"What RES precision does BERT reach?", "BERT — RES Precision: 80.1"},
	}
	for _, c := range cases {
		ans, err := (&Extractive{}).Read(context.Background(), &Input{Question: c.q, Graph: g, Chains: allChains(g)})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Text != c.want {
			t.Errorf("%q: got %q, want %q", c.q, ans.Text, c.want)
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
