package eval

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustLoad(t *testing.T, name string, opt LoadOptions) *Dataset {
	t.Helper()
	ds, err := Load(name, "testdata", opt)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return ds
}

func TestLoadFeTaQA(t *testing.T) {
	ds := mustLoad(t, FeTaQA, LoadOptions{Distractors: 2})
	// Question 105 highlights only its header row: no gold, skipped.
	if len(ds.Questions) != 4 {
		t.Fatalf("got %d questions, want 4 (notes %q)", len(ds.Questions), ds.Notes)
	}
	q := ds.Questions[1] // feta 102
	if q.ID != "102" || len(q.Docs) != 3 || q.Docs[0].ID != "fetaqa-102" {
		t.Fatalf("question 102: id %q, %d docs, first %q", q.ID, len(q.Docs), q.Docs[0].ID)
	}
	d := q.Docs[0]
	if d.Items[0].Text != "Harwick Station — Rainfall" {
		t.Errorf("title item %q", d.Items[0].Text)
	}
	if d.Items[2].Text != "Month | Rain (mm)\nJune | 77" {
		t.Errorf("row item %q", d.Items[2].Text)
	}
	want := []Unit{{Label: "row 2", Items: []ItemRef{{"fetaqa-102", 2}}}, {Label: "row 3", Items: []ItemRef{{"fetaqa-102", 3}}}}
	if !reflect.DeepEqual(q.Gold, [][]Unit{want}) {
		t.Errorf("gold %+v, want %+v", q.Gold, want)
	}
	// Distractors never come from the same page: 101 and 103 are both Lake Orrin.
	for _, q := range ds.Questions {
		if q.ID == "101" {
			for _, d := range q.Docs[1:] {
				if d.ID == "fetaqa-103" {
					t.Errorf("question 101 got a distractor from its own page")
				}
			}
		}
	}
	// Deterministic for a seed, different across seeds (for some question).
	again := mustLoad(t, FeTaQA, LoadOptions{Distractors: 2})
	if !reflect.DeepEqual(ds, again) {
		t.Error("two loads with the same seed differ")
	}
	differs := false
	for s := uint64(1); s < 20 && !differs; s++ {
		other := mustLoad(t, FeTaQA, LoadOptions{Distractors: 2, Seed: s})
		for i := range other.Questions {
			if other.Questions[i].DocSet != ds.Questions[i].DocSet {
				differs = true
			}
		}
	}
	if !differs {
		t.Error("the seed never changes the distractor draw")
	}
	if l := mustLoad(t, FeTaQA, LoadOptions{Limit: 2}); len(l.Questions) != 2 {
		t.Errorf("limit 2 gave %d questions", len(l.Questions))
	}
}

func TestLoadQASPER(t *testing.T) {
	ds := mustLoad(t, QASPER, LoadOptions{})
	if len(ds.Questions) != 2 {
		t.Fatalf("got %d questions, want 2 (q3 has no evidence)", len(ds.Questions))
	}
	q1, q2 := ds.Questions[0], ds.Questions[1]
	doc := q1.Docs[0]
	// abstract, 5 non-empty paragraphs, 2 captions
	if len(doc.Items) != 8 || doc.Items[0].Section != "Abstract" {
		t.Fatalf("items: %d, first section %q", len(doc.Items), doc.Items[0].Section)
	}
	if doc.Items[6].Modality.String() != "table" || doc.Items[7].Modality.String() != "figure" {
		t.Errorf("caption modalities %v %v", doc.Items[6].Modality, doc.Items[7].Modality)
	}
	if len(q1.Gold) != 2 || len(q1.Gold[0]) != 1 || len(q1.Gold[1]) != 2 {
		t.Fatalf("q1 gold %+v", q1.Gold)
	}
	if q1.Gold[0][0].Items[0] != (ItemRef{"P1", 3}) || q1.Gold[1][1].Items[0] != (ItemRef{"P1", 6}) {
		t.Errorf("q1 gold refs %+v", q1.Gold)
	}
	// Whitespace differences still match; an absent paragraph is counted.
	if len(q2.Gold) != 1 || q2.Gold[0][0].Items[0] != (ItemRef{"P1", 5}) || q2.Unmatched != 1 {
		t.Errorf("q2 gold %+v unmatched %d", q2.Gold, q2.Unmatched)
	}
	if q1.DocSet != q2.DocSet {
		t.Error("questions on one paper must share a DocSet")
	}
	if !reflect.DeepEqual(q1.Answers, []string{"40 hours", "40 hours"}) {
		t.Errorf("answers %q", q1.Answers)
	}
}

func TestLoadPaperTab(t *testing.T) {
	ds := mustLoad(t, PaperTab, LoadOptions{})
	if len(ds.Questions) != 2 {
		t.Fatalf("got %d questions", len(ds.Questions))
	}
	q := ds.Questions[0]
	if len(q.Docs) != 2 || q.Docs[0].ID != "2001.00001" || q.Docs[0].Title != "Counting Herons with Sound" {
		t.Fatalf("docs %d, first %q %q", len(q.Docs), q.Docs[0].ID, q.Docs[0].Title)
	}
	if len(q.Docs[0].Items) != 3 || q.Docs[0].Items[1].Section != "Method" {
		t.Errorf("items %+v", q.Docs[0].Items)
	}
	// The table caption is not in the text: unmatched, never a node.
	if len(q.Gold) != 1 || len(q.Gold[0]) != 1 || q.Gold[0][0].Items[0] != (ItemRef{"2001.00001", 1}) || q.Unmatched != 1 {
		t.Errorf("gold %+v unmatched %d", q.Gold, q.Unmatched)
	}
	if !reflect.DeepEqual(q.MainDocs, []string{"2001.00001"}) || !reflect.DeepEqual(q.Answers, []string{"40 hours"}) {
		t.Errorf("main %q answers %q", q.MainDocs, q.Answers)
	}
	for _, d := range q.Docs {
		for _, it := range d.Items {
			if strings.Contains(it.Text, "Accuracy per colony") {
				t.Error("a caption node was built from a gold string")
			}
		}
	}
	if q2 := ds.Questions[1]; q2.HasEvidence() || q2.MainDocs[0] != "2001.00001" {
		t.Errorf("table-only question: gold %+v main %q", q2.Gold, q2.MainDocs)
	}
}

func TestLoadFeTaTab(t *testing.T) {
	ds := mustLoad(t, FeTaTab, LoadOptions{})
	if len(ds.Questions) != 3 {
		t.Fatalf("got %d questions", len(ds.Questions))
	}
	q := ds.Questions[0]
	if len(q.Docs) != 2 || q.Docs[0].ID != "Lake Orrin" || q.Docs[1].ID != "Harwick Station" {
		t.Fatalf("docs %d", len(q.Docs))
	}
	// Lake Orrin has two tables: title+2 rows, then title+1 row.
	if n := len(q.Docs[0].Items); n != 5 {
		t.Fatalf("Lake Orrin items %d, want 5", n)
	}
	if !reflect.DeepEqual(q.Gold, [][]Unit{{{Label: "row 2", Items: []ItemRef{{"Lake Orrin", 2}}}}}) {
		t.Errorf("q1 gold %+v", q.Gold)
	}
	q3 := ds.Questions[2]
	if !reflect.DeepEqual(q3.Gold, [][]Unit{{{Label: "row 1", Items: []ItemRef{{"Lake Orrin", 4}}}}}) {
		t.Errorf("q3 gold %+v", q3.Gold)
	}
	if !strings.Contains(q3.Docs[0].Items[4].Text, "Club's") {
		t.Errorf("double-quoted cell lost: %q", q3.Docs[0].Items[4].Text)
	}
	if len(ds.Notes) != 1 {
		t.Errorf("notes %q", ds.Notes)
	}
}

func TestLoadG2Sample(t *testing.T) {
	ds := mustLoad(t, G2Sample, LoadOptions{})
	if len(ds.Questions) != 2 {
		t.Fatalf("got %d questions: notes %q", len(ds.Questions), ds.Notes)
	}
	if q := ds.Questions[0]; q.ID != "feta_tab_7002" || q.Subset != "feta_tab" || q.MainDocs[0] != "Harwick Station" {
		t.Errorf("first %+v", q)
	}
	if q := ds.Questions[1]; q.Subset != "paper_tab" || !q.HasEvidence() {
		t.Errorf("second %+v", q)
	}
	if len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], "spiqa") {
		t.Errorf("notes %q", ds.Notes)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("nope", "testdata", LoadOptions{}); !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("unknown dataset: %v", err)
	}
	// Wrong format: a CSV given as FeTaQA JSONL.
	if _, err := Load(FeTaQA, filepath.Join("testdata", "visdombench", "feta_tab.dev.csv"), LoadOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("csv as fetaqa: %v", err)
	}
	if _, err := Load(QASPER, filepath.Join("testdata", "fetaqa", "fetaQA-v1_dev.jsonl"), LoadOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("jsonl as qasper: %v", err)
	}
	if _, err := Load(FeTaTab, filepath.Join("testdata", "qasper", "qasper-test-v0.3.dev-slice.json"), LoadOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("json as fetatab: %v", err)
	}
	if _, err := Load(PaperTab, filepath.Join("testdata", "missing.jsonl"), LoadOptions{}); err == nil {
		t.Error("missing file: no error")
	}
}
