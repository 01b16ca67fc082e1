package eval

import (
	"errors"
	"strings"
	"unicode"

	"github.com/flowreader/flowreader/graph"
)

// Errors returned (wrapped) by the loaders.
var (
	// ErrFormat means the input is not in the dataset's format.
	ErrFormat = errors.New("eval: input not in the expected format")
	// ErrUnknownDataset means a dataset name has no loader.
	ErrUnknownDataset = errors.New("eval: unknown dataset")
	// ErrNoQuestions means a dataset yielded no question that can be scored.
	ErrNoQuestions = errors.New("eval: no scorable questions")
)

// ItemRef names one item of one document: Docs[i].ID and the item's index in
// Docs[i].Items, which is also the node's Order in a graph built from it.
type ItemRef struct {
	Doc  string
	Item int
}

// Unit is one gold evidence unit (a table row, a paragraph, a caption). It is
// covered when any of its items is among the nodes read: one evidence string
// can match several identical paragraphs.
type Unit struct {
	// Label is a short human-readable description (for reports).
	Label string
	Items []ItemRef
}

// Question is one evaluation question with its document set and gold.
type Question struct {
	// ID is unique within the dataset.
	ID string
	// Subset names a part of the dataset that is reported separately
	// (G2-Reader's sample has five), or "".
	Subset string
	Text   string
	// Answers are gold answers, for the judge (answer-accuracy mode).
	Answers []string
	// AnswerRefs are the reference strings of QASPER's answer F1, one per
	// annotator (extractive spans joined by ", ", free form, Yes/No or
	// Unanswerable), and Extractive reports that some annotator's answer
	// is extractive: those questions get an answer F1 when the runner has
	// an Extract answerer (QASPER and PaperTab's qasper_answers).
	AnswerRefs []string
	Extractive bool
	// DocSet identifies the document set: questions with equal DocSet have
	// identical Docs, so one graph serves them all.
	DocSet string
	Docs   []graph.Document
	// Gold holds one set of evidence units per annotator; a question's
	// evidence score is the best over annotators (QASPER's convention). Nil
	// when evidence is not defined for the question.
	Gold [][]Unit
	// MainDocs are the gold documents' IDs for document recall; nil when
	// undefined.
	MainDocs []string
	// Unmatched counts gold evidence strings that match no item (for
	// example PaperTab's table captions, absent from its texts); they are
	// left out of Gold and reported.
	Unmatched int
	// CopyOf maps each near-duplicate document that Augment added to the
	// document it copies (nil without copies). Measure counts a read of a
	// copy as a read of its original for document recall and for
	// Metrics.Dups; the gold units list the copies' items themselves.
	CopyOf map[string]string
}

// HasEvidence reports whether evidence recall is defined for q.
func (q *Question) HasEvidence() bool {
	for _, g := range q.Gold {
		if len(g) > 0 {
			return true
		}
	}
	return false
}

// Dataset is a loaded dataset: its questions in file order and notes on what
// was dropped while loading.
type Dataset struct {
	Name      string
	Questions []Question
	// Notes say what the loader skipped and why (one line each).
	Notes []string
	// Overall adds rows for the whole dataset beside its subsets' rows
	// (left out of the macro average, which weighs groups equally).
	Overall bool
}

// normText folds a string for evidence matching: lower case, runs of
// white space and punctuation collapsed to one space, trimmed. Gold evidence
// strings in QASPER are verbatim paragraphs, but white space differs between
// releases.
func normText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}

// textIndex finds items by their normalised text.
type textIndex struct {
	keys  []string
	refs  []ItemRef
	exact map[string][]int
}

func newTextIndex() *textIndex { return &textIndex{exact: map[string][]int{}} }

func (x *textIndex) add(text string, ref ItemRef) {
	k := normText(text)
	if k == "" {
		return
	}
	x.exact[k] = append(x.exact[k], len(x.keys))
	x.keys = append(x.keys, k)
	x.refs = append(x.refs, ref)
}

// minContain is the shortest normalised evidence string that may match by
// containment; shorter strings match only exactly.
const minContain = 40

// match returns the items whose text equals the evidence string (after
// normalisation), or failing that, the items that contain it or that it
// contains (when both are long enough to be unambiguous), in index order.
func (x *textIndex) match(evidence string) []ItemRef {
	k := normText(evidence)
	if k == "" {
		return nil
	}
	if ids, ok := x.exact[k]; ok {
		out := make([]ItemRef, len(ids))
		for i, id := range ids {
			out[i] = x.refs[id]
		}
		return out
	}
	if len(k) < minContain {
		return nil
	}
	var out []ItemRef
	for i, key := range x.keys {
		if strings.Contains(key, k) || (len(key) >= minContain && strings.Contains(k, key)) {
			out = append(out, x.refs[i])
		}
	}
	return out
}

// limitQuestions keeps the first n questions (n <= 0 keeps all).
func limitQuestions(ds *Dataset, n int) {
	if n > 0 && len(ds.Questions) > n {
		ds.Questions = ds.Questions[:n]
	}
}

func label(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
