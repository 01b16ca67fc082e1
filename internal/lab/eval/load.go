package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dataset names accepted by Load.
const (
	FeTaQA   = "fetaqa"
	QASPER   = "qasper"
	PaperTab = "papertab"
	FeTaTab  = "fetatab"
	G2Sample = "g2sample"
)

// Datasets lists the dataset names Load accepts.
func Datasets() []string {
	return []string{FeTaQA, QASPER, PaperTab, FeTaTab, G2Sample, TwoWiki, MuSiQue, HotpotQA}
}

// LoadOptions configure the loaders. The zero value is the documented
// default for every field.
type LoadOptions struct {
	// Limit keeps the first Limit scorable questions (0 = all). Distractors
	// are still drawn from the whole file.
	Limit int
	// Distractors is the number of distractor tables per FeTaQA question
	// (0 = 7, so that each graph holds 8 tables, as VisDoMBench's FeTaTab
	// pairs a question with about 8 pages).
	Distractors int
	// Seed seeds the FeTaQA distractor draw (0 is a valid seed).
	Seed uint64
	// DocsDir is the folder of PaperTab paper texts ("" = paper_tab_docs
	// next to the JSONL file).
	DocsDir string
	// FeTaTabCSV and PaperTabJSONL are the files the G2-Reader sample's
	// questions are joined with for their content ("" = feta_tab.dev.csv and
	// paper_tab.dev.jsonl in the sample folder's parent).
	FeTaTabCSV, PaperTabJSONL string
}

// Load reads dataset name from path (a file, or a folder holding the
// dataset's usual file name).
func Load(name, path string, opt LoadOptions) (*Dataset, error) {
	var ds *Dataset
	var err error
	switch name {
	case FeTaQA:
		ds, err = LoadFeTaQA(resolve(path, "fetaQA-v1_dev.jsonl", "fetaqa/fetaQA-v1_dev.jsonl"), opt)
	case QASPER:
		ds, err = LoadQASPER(resolve(path, "qasper-test-v0.3.dev-slice.json", "qasper/qasper-test-v0.3.dev-slice.json"), opt)
	case PaperTab:
		ds, err = LoadPaperTab(resolve(path, "paper_tab.dev.jsonl", "visdombench/paper_tab.dev.jsonl"), opt)
	case FeTaTab:
		ds, err = LoadFeTaTab(resolve(path, "feta_tab.dev.csv", "visdombench/feta_tab.dev.csv"), opt)
	case G2Sample:
		ds, err = LoadG2Sample(resolve(path, "g2reader_sample250", "visdombench/g2reader_sample250"), opt)
	case TwoWiki, MuSiQue, HotpotQA:
		ds, err = LoadMultihop(name, resolve(path, multihopFiles[name]...), opt)
	default:
		return nil, fmt.Errorf("%w: %q (want one of %s)", ErrUnknownDataset, name, strings.Join(Datasets(), ", "))
	}
	if err != nil {
		return nil, err
	}
	if len(ds.Questions) == 0 {
		return nil, fmt.Errorf("%w: %s from %s", ErrNoQuestions, name, path)
	}
	return ds, nil
}

// resolve lets --data name either the dataset's file or a folder that
// holds it (directly or in the layout of ../shared/data).
func resolve(path string, names ...string) string {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return path
	}
	for _, n := range names {
		p := filepath.Join(path, filepath.FromSlash(n))
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return path
}
