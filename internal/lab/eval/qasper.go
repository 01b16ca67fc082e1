package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

type qasperPaper struct {
	Title    string `json:"title"`
	Abstract string `json:"abstract"`
	FullText []struct {
		Section    string   `json:"section_name"`
		Paragraphs []string `json:"paragraphs"`
	} `json:"full_text"`
	Figures []struct {
		File    string `json:"file"`
		Caption string `json:"caption"`
	} `json:"figures_and_tables"`
	QAs []struct {
		Question string `json:"question"`
		ID       string `json:"question_id"`
		Answers  []struct {
			Answer qasperAnswer `json:"answer"`
		} `json:"answers"`
	} `json:"qas"`
}

// qasperAnswer is one annotator's answer, as in QASPER and in PaperTab's
// qasper_answers.
type qasperAnswer struct {
	Unanswerable bool     `json:"unanswerable"`
	Extractive   []string `json:"extractive_spans"`
	YesNo        *bool    `json:"yes_no"`
	FreeForm     string   `json:"free_form_answer"`
	Evidence     []string `json:"evidence"`
}

// text renders the answer for the judge.
func (a qasperAnswer) text() string {
	switch {
	case a.Unanswerable:
		return "Not answerable"
	case len(a.Extractive) > 0:
		return strings.Join(a.Extractive, "; ")
	case a.FreeForm != "":
		return a.FreeForm
	case a.YesNo != nil && *a.YesNo:
		return "Yes"
	case a.YesNo != nil:
		return "No"
	}
	return ""
}

// floatPrefix marks QASPER evidence that is a figure or table caption.
const floatPrefix = "FLOAT SELECTED:"

// LoadQASPER reads a QASPER JSON file (the v0.3 schema: an object of papers
// keyed by arXiv id). Each paper is one document and one graph shared by its
// questions: item 0 is the abstract, then every paragraph in order with its
// section name, then one visual item per figure or table caption (Table when
// the file or caption names a table, else Figure; the caption is the item's
// text since there is no image). Gold = each annotator's evidence, matched to
// items by normalised text ("FLOAT SELECTED: caption" to the caption item);
// questions where no annotator gave matchable evidence are skipped.
func LoadQASPER(path string, opt LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: qasper: %w", err)
	}
	defer f.Close()
	ds, err := readQASPER(f, opt)
	if err != nil {
		return nil, fmt.Errorf("eval: qasper %s: %w", path, err)
	}
	return ds, nil
}

func readQASPER(r io.Reader, opt LoadOptions) (*Dataset, error) {
	var papers map[string]qasperPaper
	if err := json.NewDecoder(r).Decode(&papers); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	ids := make([]string, 0, len(papers))
	for id := range papers {
		ids = append(ids, id)
	}
	// File order is lost in a Go map; sort for determinism.
	sort.Strings(ids)
	ds := &Dataset{Name: QASPER}
	noGold, unmatched := 0, 0
	for _, id := range ids {
		p := papers[id]
		doc, idx, capIdx := qasperDoc(id, p)
		for qi, qa := range p.QAs {
			q := Question{ID: qa.ID, Text: strings.TrimSpace(qa.Question), DocSet: id, Docs: []graph.Document{doc}}
			if q.ID == "" {
				q.ID = fmt.Sprintf("%s#%d", id, qi)
			}
			for _, a := range qa.Answers {
				if t := a.Answer.text(); t != "" {
					q.Answers = append(q.Answers, t)
				}
				if t := a.Answer.reference(); t != "" {
					q.AnswerRefs = append(q.AnswerRefs, t)
				}
				q.Extractive = q.Extractive || len(a.Answer.Extractive) > 0
				units, miss := evidenceUnits(a.Answer.Evidence, idx, capIdx)
				q.Unmatched += miss
				if len(units) > 0 {
					q.Gold = append(q.Gold, units)
				}
			}
			unmatched += q.Unmatched
			if !q.HasEvidence() {
				noGold++
				continue
			}
			ds.Questions = append(ds.Questions, q)
		}
	}
	if noGold > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("qasper: %d questions without matchable evidence skipped", noGold))
	}
	if unmatched > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("qasper: %d evidence strings matched no paragraph or caption", unmatched))
	}
	limitQuestions(ds, opt.Limit)
	return ds, nil
}

func qasperDoc(id string, p qasperPaper) (graph.Document, *textIndex, *textIndex) {
	d := graph.Document{ID: id, Title: p.Title}
	idx, capIdx := newTextIndex(), newTextIndex()
	add := func(it graph.Item, x *textIndex) {
		if strings.TrimSpace(it.Text) == "" {
			return
		}
		x.add(it.Text, ItemRef{Doc: id, Item: len(d.Items)})
		d.Items = append(d.Items, it)
	}
	add(graph.Item{Modality: graph.ModalityText, Text: p.Abstract, Section: "Abstract", Page: -1}, idx)
	for _, s := range p.FullText {
		for _, para := range s.Paragraphs {
			add(graph.Item{Modality: graph.ModalityText, Text: para, Section: s.Section, Page: -1}, idx)
		}
	}
	for _, fg := range p.Figures {
		m := graph.ModalityFigure
		if strings.Contains(strings.ToLower(fg.File), "table") || strings.HasPrefix(strings.ToLower(fg.Caption), "table") {
			m = graph.ModalityTable
		}
		add(graph.Item{Modality: m, Text: fg.Caption, Caption: fg.Caption, Page: -1}, capIdx)
	}
	return d, idx, capIdx
}

// evidenceUnits maps one annotator's evidence strings to units; strings
// matching nothing are counted, not kept.
func evidenceUnits(evidence []string, idx, capIdx *textIndex) (units []Unit, unmatched int) {
	seen := map[string]bool{}
	for _, e := range evidence {
		e = strings.TrimSpace(e)
		if e == "" || seen[e] {
			continue
		}
		seen[e] = true
		var refs []ItemRef
		if c, ok := strings.CutPrefix(e, floatPrefix); ok {
			if capIdx != nil {
				refs = capIdx.match(c)
			}
		} else {
			refs = idx.match(e)
		}
		if len(refs) == 0 {
			unmatched++
			continue
		}
		units = append(units, Unit{Label: label(e, 60), Items: refs})
	}
	return units, unmatched
}
