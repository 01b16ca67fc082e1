package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type g2Record struct {
	ID        string `json:"_id"`
	SubDomain string `json:"sub_domain"`
	Question  string `json:"question"`
	MainDoc   string `json:"main_doc"`
}

// LoadG2Sample reads G2-Reader's 250 ablation questions: a folder of
// processed_<subset>.jsonl files (or one such file). Its files hold
// questions and document names but no content, so questions are joined by
// id with the offline sources that have content: FeTaTab ("feta_tab_<q_id>")
// with opt.FeTaTabCSV and PaperTab ("paper_tab_<n>") with opt.PaperTabJSONL
// (defaults: in the folder's parent). They keep the joined question's
// graph and gold (document-level, plus evidence where the source has it) and
// get Subset = sub_domain. SciGraphQA, SlideVQA and SPIQA have no content
// offline and are skipped with a note.
func LoadG2Sample(path string, opt LoadOptions) (*Dataset, error) {
	files, err := g2Files(path)
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(path)
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		root = filepath.Dir(root)
	}
	csvPath, ptPath := opt.FeTaTabCSV, opt.PaperTabJSONL
	if csvPath == "" {
		csvPath = filepath.Join(root, "feta_tab.dev.csv")
	}
	if ptPath == "" {
		ptPath = filepath.Join(root, "paper_tab.dev.jsonl")
	}
	sources := map[string]*Dataset{}
	load := func(sub string) (*Dataset, error) {
		if d, ok := sources[sub]; ok {
			return d, nil
		}
		var d *Dataset
		var err error
		switch sub {
		case "feta_tab":
			d, err = LoadFeTaTab(csvPath, LoadOptions{})
		case "paper_tab":
			d, err = LoadPaperTab(ptPath, LoadOptions{DocsDir: opt.DocsDir})
		}
		sources[sub] = d
		return d, err
	}
	ds := &Dataset{Name: G2Sample}
	skipped := map[string]int{}
	for _, f := range files {
		recs, err := readG2(f)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			src, err := load(r.SubDomain)
			if err != nil {
				return nil, fmt.Errorf("eval: g2sample: content for %s: %w", r.SubDomain, err)
			}
			if src == nil {
				skipped[r.SubDomain]++
				continue
			}
			want := r.ID
			if r.SubDomain == "feta_tab" {
				want = strings.TrimPrefix(r.ID, "feta_tab_")
			}
			var found *Question
			for i := range src.Questions {
				if src.Questions[i].ID == want {
					found = &src.Questions[i]
					break
				}
			}
			if found == nil {
				skipped[r.SubDomain+" (not in the content file)"]++
				continue
			}
			q := *found
			q.ID, q.Subset = r.ID, r.SubDomain
			ds.Questions = append(ds.Questions, q)
		}
	}
	keys := make([]string, 0, len(skipped))
	for k := range skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ds.Notes = append(ds.Notes, fmt.Sprintf("g2sample: %d %s questions skipped: no document content offline", skipped[k], k))
	}
	limitQuestions(ds, opt.Limit)
	return ds, nil
}

func g2Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("eval: g2sample: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	files, err := filepath.Glob(filepath.Join(path, "processed_*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("eval: g2sample: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no processed_*.jsonl in %s", ErrFormat, path)
	}
	sort.Strings(files)
	return files, nil
}

func readG2(path string) ([]g2Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: g2sample: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []g2Record
	for line := 1; sc.Scan(); line++ {
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var r g2Record
		if err := json.Unmarshal([]byte(b), &r); err != nil || r.ID == "" {
			return nil, fmt.Errorf("%w: %s line %d: want a JSON object with _id", ErrFormat, path, line)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
