package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// fetaRecord is one line of the FeTaQA JSONL release.
type fetaRecord struct {
	ID           int        `json:"feta_id"`
	PageTitle    string     `json:"table_page_title"`
	SectionTitle string     `json:"table_section_title"`
	Table        [][]string `json:"table_array"`
	Highlighted  [][]int    `json:"highlighted_cell_ids"`
	Question     string     `json:"question"`
	Answer       string     `json:"answer"`
}

// LoadFeTaQA reads a FeTaQA JSONL file. Each question gets one graph over its
// own table and opt.Distractors (default 7) distractor tables drawn from the
// same file by a generator seeded with (opt.Seed, question's line), skipping
// tables from the same Wikipedia page. A table becomes one document: item 0
// is a text node "page title — section title", item r (r ≥ 1) is table row r
// rendered as "header cells / row cells" (the header row prepended so that
// a row read alone keeps its column names). Rows are text items: they have
// no image, and reading-order links between rows are wanted. Gold = one
// unit per highlighted body row (header-row highlights are dropped: the
// header is in every row node).
func LoadFeTaQA(path string, opt LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: fetaqa: %w", err)
	}
	defer f.Close()
	recs, err := readFeTaQA(f)
	if err != nil {
		return nil, fmt.Errorf("eval: fetaqa %s: %w", path, err)
	}
	return fetaqaDataset(recs, opt), nil
}

func readFeTaQA(r io.Reader) ([]fetaRecord, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var recs []fetaRecord
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var rec fetaRecord
		if err := json.Unmarshal([]byte(b), &rec); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, line, err)
		}
		if len(rec.Table) == 0 || rec.Question == "" {
			return nil, fmt.Errorf("%w: line %d: no table_array or question", ErrFormat, line)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return recs, nil
}

func fetaTableDoc(id, page, section string, table [][]string) graph.Document {
	d := graph.Document{ID: id, Title: page}
	title := page
	if section != "" {
		title += " — " + section
	}
	d.Items = append(d.Items, graph.Item{Modality: graph.ModalityText, Text: title, Section: section, Page: -1})
	if len(table) == 0 {
		// A table without even a header row contributes its title only.
		return d
	}
	header := strings.Join(table[0], " | ")
	for _, row := range table[1:] {
		d.Items = append(d.Items, graph.Item{
			Modality: graph.ModalityText,
			Text:     header + "\n" + strings.Join(row, " | "),
			Section:  section,
			Page:     -1,
		})
	}
	return d
}

// rowUnits turns highlighted cells into one unit per distinct body row.
// A table's title item is at offset and its row r at offset+r. Rows outside
// the table are counted as unmatched.
func rowUnits(doc string, offset int, rows int, cells [][2]int) (units []Unit, unmatched int) {
	seen := map[int]bool{}
	for _, c := range cells {
		r := c[0]
		if r == 0 || seen[r] {
			continue
		}
		seen[r] = true
		if r >= rows {
			unmatched++
			continue
		}
		units = append(units, Unit{Label: "row " + strconv.Itoa(r), Items: []ItemRef{{Doc: doc, Item: offset + r}}})
	}
	return units, unmatched
}

func fetaqaDataset(recs []fetaRecord, opt LoadOptions) *Dataset {
	nd := opt.Distractors
	if nd <= 0 {
		nd = 7
	}
	docs := make([]graph.Document, len(recs))
	for i, r := range recs {
		docs[i] = fetaTableDoc("fetaqa-"+strconv.Itoa(r.ID), r.PageTitle, r.SectionTitle, r.Table)
	}
	ds := &Dataset{Name: FeTaQA}
	noGold := 0
	for i, r := range recs {
		cells := make([][2]int, 0, len(r.Highlighted))
		for _, c := range r.Highlighted {
			if len(c) == 2 {
				cells = append(cells, [2]int{c[0], c[1]})
			}
		}
		units, unmatched := rowUnits(docs[i].ID, 0, len(r.Table), cells)
		if len(units) == 0 {
			noGold++
			continue
		}
		// Distractors: a seeded permutation of the other lines, so the draw
		// depends only on the file, the seed and the question's line.
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(i)))
		set := []graph.Document{docs[i]}
		ids := []string{docs[i].ID}
		for _, j := range rng.Perm(len(recs)) {
			if len(set) == nd+1 {
				break
			}
			if j == i || recs[j].PageTitle == r.PageTitle {
				continue
			}
			set = append(set, docs[j])
			ids = append(ids, docs[j].ID)
		}
		ds.Questions = append(ds.Questions, Question{
			ID:        strconv.Itoa(r.ID),
			Text:      r.Question,
			Answers:   []string{r.Answer},
			DocSet:    strings.Join(ids, "\x00"),
			Docs:      set,
			Gold:      [][]Unit{units},
			Unmatched: unmatched,
		})
	}
	if noGold > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("fetaqa: %d questions without a highlighted body row skipped", noGold))
	}
	limitQuestions(ds, opt.Limit)
	return ds
}
