package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// Multi-hop dataset names accepted by Load: HippoRAG's retrieval protocol
// (Gutiérrez et al., NeurIPS 2024, arXiv 2405.14831, §4) over one pooled
// corpus of titled passages per dataset.
const (
	TwoWiki  = "2wiki"
	MuSiQue  = "musique"
	HotpotQA = "hotpotqa"
)

// multihopFiles are the question files Load looks for when --data names a
// folder (the folder itself, or the layout of ../shared/data).
var multihopFiles = map[string][]string{
	TwoWiki:  {"2wikimultihopqa.dev.jsonl", "multihop/2wikimultihopqa/2wikimultihopqa.dev.jsonl", "2wikimultihopqa/2wikimultihopqa.dev.jsonl"},
	MuSiQue:  {"musique.dev.jsonl", "multihop/musique/musique.dev.jsonl", "musique/musique.dev.jsonl"},
	HotpotQA: {"hotpotqa.dev.json", "multihop/hotpotqa/hotpotqa.dev.json", "hotpotqa/hotpotqa.dev.json"},
}

// Passage is one passage of a multi-hop corpus.
type Passage struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// corpusDocs makes one document per passage: ID "p<i>" (i = index in the
// corpus file), Title the passage's title, one text item whose text is
// "title\ntext" (HippoRAG 2's passage convention) and whose Section is the
// title, so that the graph node carries it (Node.Section is persisted).
func corpusDocs(ps []Passage) []graph.Document {
	docs := make([]graph.Document, len(ps))
	for i, p := range ps {
		docs[i] = graph.Document{
			ID:    "p" + strconv.Itoa(i),
			Title: p.Title,
			Items: []graph.Item{{Modality: graph.ModalityText, Text: p.Title + "\n" + p.Text, Section: p.Title, Page: -1}},
		}
	}
	return docs
}

// corpusIndex finds passages by title, or by title and normalised text.
type corpusIndex struct {
	byTitle map[string][]int
	byText  map[string][]int
}

func newCorpusIndex(ps []Passage) *corpusIndex {
	x := &corpusIndex{byTitle: map[string][]int{}, byText: map[string][]int{}}
	for i, p := range ps {
		x.byTitle[p.Title] = append(x.byTitle[p.Title], i)
		k := p.Title + "\x00" + normText(p.Text)
		x.byText[k] = append(x.byText[k], i)
	}
	return x
}

func unitOf(label string, ids []int) Unit {
	u := Unit{Label: label}
	for _, i := range ids {
		u.Items = append(u.Items, ItemRef{Doc: "p" + strconv.Itoa(i), Item: 0})
	}
	return u
}

// MultihopCorpusPath is the corpus next to a question file: the one file in
// its folder whose name ends in _corpus.json.
func MultihopCorpusPath(questions string) (string, error) {
	m, err := filepath.Glob(filepath.Join(filepath.Dir(questions), "*_corpus.json"))
	if err != nil {
		return "", fmt.Errorf("eval: corpus next to %s: %w", questions, err)
	}
	if len(m) != 1 {
		return "", fmt.Errorf("%w: want one *_corpus.json next to %s, found %d", ErrFormat, questions, len(m))
	}
	return m[0], nil
}

// LoadMultihop reads dataset name (TwoWiki, MuSiQue or HotpotQA) from its
// question file and the corpus beside it (MultihopCorpusPath). Every
// question shares one document set, the whole corpus, so the runner builds
// one graph per dataset. Gold is one unit per supporting passage, scored
// as HippoRAG's passage recall: |read ∩ gold| / |gold| (Measure's evidence
// recall with one annotator). 2Wiki and HotpotQA name gold passages by
// title (titles are unique in their corpora); MuSiQue's titles repeat, so
// its gold passages are found by title and normalised text. Subsets are
// the question types (2Wiki, HotpotQA) or the hop count (MuSiQue: "2hop",
// "3hop", "4hop").
func LoadMultihop(name, path string, opt LoadOptions) (*Dataset, error) {
	cpath, err := MultihopCorpusPath(path)
	if err != nil {
		return nil, err
	}
	cb, err := os.ReadFile(cpath)
	if err != nil {
		return nil, fmt.Errorf("eval: %s corpus: %w", name, err)
	}
	var ps []Passage
	if err := json.Unmarshal(cb, &ps); err != nil {
		return nil, fmt.Errorf("%w: %s corpus %s: %v", ErrFormat, name, cpath, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", name, err)
	}
	defer f.Close()
	ds, err := readMultihop(name, f, ps, opt)
	if err != nil {
		return nil, fmt.Errorf("eval: %s %s: %w", name, path, err)
	}
	ds.Notes = append(ds.Notes, fmt.Sprintf("%s: one graph over the %d passages of %s", name, len(ps), filepath.Base(cpath)))
	return ds, nil
}

// mhRecord holds the fields of the three formats that scoring needs.
type mhRecord struct {
	ID       string          `json:"id"`
	UID      string          `json:"_id"`
	Type     string          `json:"type"`
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Aliases  []string        `json:"answer_aliases"`
	Support  [][]any         `json:"supporting_facts"`
	Paras    []struct {
		Title      string `json:"title"`
		Text       string `json:"paragraph_text"`
		Supporting bool   `json:"is_supporting"`
	} `json:"paragraphs"`
}

// readMultihop parses questions (a JSON list or JSON lines) against corpus
// ps. Questions whose gold passage is missing from the corpus are skipped
// and noted.
func readMultihop(name string, r io.Reader, ps []Passage, opt LoadOptions) (*Dataset, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var recs []mhRecord
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &recs); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for line := 1; sc.Scan(); line++ {
			l := bytes.TrimSpace(sc.Bytes())
			if len(l) == 0 {
				continue
			}
			var rec mhRecord
			if err := json.Unmarshal(l, &rec); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, line, err)
			}
			recs = append(recs, rec)
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	docs := corpusDocs(ps)
	idx := newCorpusIndex(ps)
	ds := &Dataset{Name: name, Overall: true}
	missing := 0
	for _, rec := range recs {
		q := Question{ID: rec.ID, Text: rec.Question, DocSet: name + "-corpus", Docs: docs}
		if q.ID == "" {
			q.ID = rec.UID
		}
		if a := answerText(rec.Answer); a != "" {
			q.Answers = append(q.Answers, a)
		}
		q.Answers = append(q.Answers, rec.Aliases...)
		var units []Unit
		ok := true
		if name == MuSiQue {
			hop, _, _ := strings.Cut(q.ID, "__")
			q.Subset = strings.TrimRight(hop, "0123456789")
			if !strings.HasSuffix(q.Subset, "hop") {
				q.Subset = hop
			}
			for _, p := range rec.Paras {
				if !p.Supporting {
					continue
				}
				ids := idx.byText[p.Title+"\x00"+normText(p.Text)]
				if len(ids) == 0 {
					ok = false
					break
				}
				units = append(units, unitOf(p.Title, ids))
			}
		} else {
			q.Subset = rec.Type
			seen := map[string]bool{}
			for _, sf := range rec.Support {
				if len(sf) == 0 {
					continue
				}
				t, _ := sf[0].(string)
				if seen[t] {
					continue
				}
				seen[t] = true
				ids := idx.byTitle[t]
				if len(ids) == 0 {
					ok = false
					break
				}
				units = append(units, unitOf(t, ids))
			}
		}
		if !ok || len(units) == 0 {
			missing++
			continue
		}
		q.Gold = [][]Unit{units}
		ds.Questions = append(ds.Questions, q)
	}
	if missing > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%s: %d questions skipped: a gold passage is not in the corpus", name, missing))
	}
	limitQuestions(ds, opt.Limit)
	return ds, nil
}

// answerText reads an answer that is a JSON string (or anything else,
// rendered as JSON).
func answerText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
