package eval

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

type fetaTabRecord struct {
	QID, Question, Answer, DocPath string
	Documents                      []string
	Table                          [][]string
	Cells                          [][2]int
}

// fetaTabColumns are the CSV columns the loader needs.
var fetaTabColumns = []string{"q_id", "question", "answer", "doc_path", "documents", "table_array", "highlighted_cell_ids"}

// LoadFeTaTab reads the VisDoMBench FeTaTab CSV. List columns are Python
// literals. A page's content is the set of distinct tables that CSV rows
// give for it (doc_path); pages named in a question's documents without any
// table in the file have no offline content and are left out of its graph
// (the PDFs exist for only a few gold pages). A page document holds, per
// table, a title item then one item per body row (header prepended, as in
// FeTaQA). Gold = the highlighted rows of the question's table, and the
// gold page for document recall.
func LoadFeTaTab(path string, opt LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: fetatab: %w", err)
	}
	defer f.Close()
	recs, err := readFeTaTab(f)
	if err != nil {
		return nil, fmt.Errorf("eval: fetatab %s: %w", path, err)
	}
	return fetaTabDataset(recs, opt), nil
}

func readFeTaTab(r io.Reader) ([]fetaTabRecord, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrFormat, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, c := range fetaTabColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%w: no column %q", ErrFormat, c)
		}
	}
	var recs []fetaTabRecord
	for line := 2; ; line++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		get := func(c string) string {
			if i := col[c]; i < len(row) {
				return row[i]
			}
			return ""
		}
		rec := fetaTabRecord{QID: get("q_id"), Question: strings.TrimSpace(get("question")), Answer: get("answer"),
			DocPath: get("doc_path")}
		if rec.Documents, err = pyStrings(get("documents")); err != nil {
			return nil, fmt.Errorf("record %d: documents: %w", line, err)
		}
		if rec.Table, err = pyTable(get("table_array")); err != nil {
			return nil, fmt.Errorf("record %d: table_array: %w", line, err)
		}
		if rec.Cells, err = pyCells(get("highlighted_cell_ids")); err != nil {
			return nil, fmt.Errorf("record %d: highlighted_cell_ids: %w", line, err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

func pageID(p string) string { return strings.TrimSuffix(p, ".pdf") }

func fetaTabDataset(recs []fetaTabRecord, opt LoadOptions) *Dataset {
	// Pages in first-seen order; a page's tables deduplicated by content.
	type page struct {
		doc     graph.Document
		offsets map[string]int // table key -> offset of its title item
	}
	pages := map[string]*page{}
	key := func(t [][]string) string {
		var b strings.Builder
		for _, r := range t {
			b.WriteString(strings.Join(r, "\x1f"))
			b.WriteByte('\x1e')
		}
		return b.String()
	}
	for _, r := range recs {
		id := pageID(r.DocPath)
		p := pages[id]
		if p == nil {
			p = &page{doc: graph.Document{ID: id, Title: id}, offsets: map[string]int{}}
			pages[id] = p
		}
		k := key(r.Table)
		if _, ok := p.offsets[k]; ok {
			continue
		}
		p.offsets[k] = len(p.doc.Items)
		t := fetaTableDoc(id, id, "table "+strconv.Itoa(len(p.offsets)), r.Table)
		p.doc.Items = append(p.doc.Items, t.Items...)
	}
	ds := &Dataset{Name: FeTaTab}
	absent := 0
	for i, r := range recs {
		main := pageID(r.DocPath)
		q := Question{ID: r.QID, Text: r.Question, Answers: []string{r.Answer}, MainDocs: []string{main}}
		if q.ID == "" {
			q.ID = "row" + strconv.Itoa(i+1)
		}
		var ids []string
		seen := map[string]bool{}
		for _, d := range r.Documents {
			id := pageID(d)
			if seen[id] {
				continue
			}
			seen[id] = true
			p := pages[id]
			if p == nil {
				absent++
				continue
			}
			q.Docs = append(q.Docs, p.doc)
			ids = append(ids, id)
		}
		if !seen[main] {
			q.Docs = append([]graph.Document{pages[main].doc}, q.Docs...)
			ids = append([]string{main}, ids...)
		}
		units, miss := rowUnits(main, pages[main].offsets[key(r.Table)], len(r.Table), r.Cells)
		q.Unmatched = miss
		if len(units) > 0 {
			q.Gold = [][]Unit{units}
		}
		q.DocSet = strings.Join(ids, "\x00")
		ds.Questions = append(ds.Questions, q)
	}
	if absent > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("fetatab: %d document references have no table in the file and are left out of the graphs (PDF pages are not ingested)", absent))
	}
	limitQuestions(ds, opt.Limit)
	return ds
}
