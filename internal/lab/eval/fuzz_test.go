package eval

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func seedFile(f *testing.F, parts ...string) {
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
}

func FuzzReadFeTaQA(f *testing.F) {
	seedFile(f, "fetaqa", "fetaQA-v1_dev.jsonl")
	f.Add(`{"feta_id": 1, "table_array": [["a"],["b"]], "highlighted_cell_ids": [[9, 9], [-1]], "question": "q"}`)
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := readFeTaQA(strings.NewReader(s))
		if err != nil {
			return
		}
		ds := fetaqaDataset(recs, LoadOptions{Distractors: 2})
		checkRefs(t, ds)
	})
}

func FuzzReadQASPER(f *testing.F) {
	seedFile(f, "qasper", "qasper-test-v0.3.dev-slice.json")
	f.Fuzz(func(t *testing.T, s string) {
		ds, err := readQASPER(strings.NewReader(s), LoadOptions{})
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			return
		}
		checkRefs(t, ds)
	})
}

func FuzzReadFeTaTab(f *testing.F) {
	seedFile(f, "visdombench", "feta_tab.dev.csv")
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := readFeTaTab(strings.NewReader(s))
		if err != nil {
			return
		}
		checkRefs(t, fetaTabDataset(recs, LoadOptions{}))
	})
}

func FuzzParsePaperText(f *testing.F) {
	seedFile(f, "visdombench", "paper_tab_docs", "2001.00001.txt")
	f.Add("# T\n## S\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, idx, err := parsePaperText("p", bytes.NewReader([]byte(s)))
		if err != nil {
			return
		}
		for _, line := range strings.Split(s, "\n") {
			for _, r := range idx.match(line) {
				if r.Doc != "p" || r.Item < 0 || r.Item >= len(d.Items) {
					t.Fatalf("bad ref %+v", r)
				}
			}
		}
	})
}

// checkRefs asserts that every gold unit points at an existing item of one
// of the question's documents.
func checkRefs(t *testing.T, ds *Dataset) {
	t.Helper()
	for _, q := range ds.Questions {
		items := map[string]int{}
		for _, d := range q.Docs {
			items[d.ID] = len(d.Items)
		}
		for _, g := range q.Gold {
			for _, u := range g {
				for _, r := range u.Items {
					n, ok := items[r.Doc]
					if !ok || r.Item < 0 || r.Item >= n {
						t.Fatalf("question %s: unit %+v out of range", q.ID, r)
					}
				}
			}
		}
	}
}
