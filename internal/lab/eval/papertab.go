package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

type paperTabRecord struct {
	ID        string         `json:"_id"`
	Question  string         `json:"question"`
	Answer    string         `json:"answer"`
	MainDoc   string         `json:"main_doc"`
	Documents string         `json:"documents"`
	Answers   []qasperAnswer `json:"qasper_answers"`
}

// LoadPaperTab reads VisDoMBench PaperTab: the JSONL file at path and the
// paper texts in opt.DocsDir (default: paper_tab_docs next to it), one
// "<id>.txt" per "<id>.pdf" named in a question's documents. Each question
// gets one graph over its main paper and distractor papers; each paper is a
// document whose items are its paragraphs (one per line, under "## section"
// headings). Gold = each annotator's text evidence matched to the main
// paper's paragraphs, plus the main document for document recall.
//
// The texts hold no figure or table captions, so "FLOAT SELECTED" evidence
// cannot be matched; it is counted in Question.Unmatched and never turned
// into nodes (building caption nodes from gold strings would leak the
// answer). Questions whose only evidence is a table keep document recall.
func LoadPaperTab(path string, opt LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: papertab: %w", err)
	}
	defer f.Close()
	dir := opt.DocsDir
	if dir == "" {
		dir = filepath.Join(filepath.Dir(path), "paper_tab_docs")
	}
	ds, err := readPaperTab(f, newPaperDocs(dir), opt)
	if err != nil {
		return nil, fmt.Errorf("eval: papertab %s: %w", path, err)
	}
	return ds, nil
}

// paperDocs loads and caches paper texts by id.
type paperDocs struct {
	dir  string
	docs map[string]*paperDoc
}

type paperDoc struct {
	doc graph.Document
	idx *textIndex
	err error
}

func newPaperDocs(dir string) *paperDocs { return &paperDocs{dir: dir, docs: map[string]*paperDoc{}} }

func (p *paperDocs) get(id string) *paperDoc {
	if d, ok := p.docs[id]; ok {
		return d
	}
	d := &paperDoc{}
	if strings.ContainsAny(id, `/\`) || id == ".." || id == "." || id == "" {
		d.err = fmt.Errorf("%w: bad document name %q", ErrFormat, id)
	} else if f, err := os.Open(filepath.Join(p.dir, id+".txt")); err != nil {
		d.err = err
	} else {
		d.doc, d.idx, d.err = parsePaperText(id, f)
		f.Close()
	}
	p.docs[id] = d
	return d
}

// parsePaperText reads a PaperTab paper text: "# title", an optional
// "**Paper ID:** ..." line, "## section" headings, one paragraph per line.
func parsePaperText(id string, r io.Reader) (graph.Document, *textIndex, error) {
	d := graph.Document{ID: id}
	idx := newTextIndex()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	section := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "## "):
			section = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "# ") && d.Title == "":
			d.Title = strings.TrimSpace(line[2:])
		case strings.HasPrefix(line, "**Paper ID:**"):
		default:
			idx.add(line, ItemRef{Doc: id, Item: len(d.Items)})
			d.Items = append(d.Items, graph.Item{Modality: graph.ModalityText, Text: line, Section: section, Page: -1})
		}
	}
	if err := sc.Err(); err != nil {
		return d, nil, err
	}
	if len(d.Items) == 0 {
		return d, nil, fmt.Errorf("%w: paper %s has no paragraphs", ErrFormat, id)
	}
	return d, idx, nil
}

func readPaperTab(r io.Reader, docs *paperDocs, opt LoadOptions) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	ds := &Dataset{Name: PaperTab}
	line, missing, noMain := 0, 0, 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var rec paperTabRecord
		if err := json.Unmarshal([]byte(b), &rec); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, line, err)
		}
		names, err := pyStrings(rec.Documents)
		if err != nil {
			return nil, fmt.Errorf("line %d: documents: %w", line, err)
		}
		main := strings.TrimSuffix(rec.MainDoc, ".pdf")
		q := Question{ID: rec.ID, Text: strings.TrimSpace(rec.Question), MainDocs: []string{main}}
		if q.ID == "" {
			q.ID = fmt.Sprintf("line%d", line)
		}
		q.Answers = paperTabAnswers(rec.Answer)
		var ids []string
		var mainDoc *paperDoc
		for _, n := range names {
			id := strings.TrimSuffix(n, ".pdf")
			d := docs.get(id)
			if d.err != nil {
				missing++
				continue
			}
			if id == main {
				mainDoc = d
			}
			q.Docs = append(q.Docs, d.doc)
			ids = append(ids, id)
		}
		if mainDoc == nil {
			// Without the main paper neither recall is defined.
			noMain++
			continue
		}
		for _, a := range rec.Answers {
			if t := a.reference(); t != "" {
				q.AnswerRefs = append(q.AnswerRefs, t)
			}
			q.Extractive = q.Extractive || len(a.Extractive) > 0
			units, miss := evidenceUnits(a.Evidence, mainDoc.idx, nil)
			q.Unmatched += miss
			if len(units) > 0 {
				q.Gold = append(q.Gold, units)
			}
		}
		q.DocSet = strings.Join(ids, "\x00")
		ds.Questions = append(ds.Questions, q)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if missing > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("papertab: %d document references without a readable text skipped", missing))
	}
	if noMain > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("papertab: %d questions without their main paper's text skipped", noMain))
	}
	limitQuestions(ds, opt.Limit)
	ds.Notes = append(ds.Notes, fmt.Sprintf("papertab: %d of %d loaded questions have text evidence (evidence recall is over these; table captions are not in the texts)", countEvidence(ds), len(ds.Questions)))
	return ds, nil
}

func countEvidence(ds *Dataset) int {
	n := 0
	for i := range ds.Questions {
		if ds.Questions[i].HasEvidence() {
			n++
		}
	}
	return n
}

// paperTabAnswers reads the answer column, a Python-literal list of
// {'answer': ..., 'type': ...}; anything else is kept as one string.
func paperTabAnswers(s string) []string {
	v, err := ParsePyLiteral(s)
	if err != nil {
		if s = strings.TrimSpace(s); s != "" {
			return []string{s}
		}
		return nil
	}
	var out []string
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			switch x := x.(type) {
			case map[string]any:
				if a, ok := x["answer"].(string); ok && a != "" {
					out = append(out, a)
				}
			case string:
				out = append(out, x)
			}
		}
	case string:
		out = append(out, v)
	}
	return out
}
