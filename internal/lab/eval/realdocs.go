package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// RealDocQuestion is one question of the real-document set
// (testdata/realdocs/questions.jsonl): a question asked of one collection
// (a folder of documents that testdata/realdocs/fetch.sh makes), its
// checked answer, and the parts an answer line must contain.
type RealDocQuestion struct {
	ID         string `json:"id"`
	Collection string `json:"collection"`
	Question   string `json:"question"`
	// Answer is the answer as a person reading the documents gives it.
	Answer string `json:"answer"`
	// Parts are what a right answer line holds: every part, each part by
	// any one of its forms, compared after NormalizeGrade.
	Parts [][]string `json:"parts"`
	// Kind is the answer type: number, date, name, place, acronym,
	// definition or cell (a table cell by row and column).
	Kind string `json:"kind"`
	// Split is "tune" (looked at while the reader was changed) or
	// "heldout" (never looked at; every third question, fixed before any
	// change).
	Split string `json:"split"`
}

// LoadRealDocQuestions reads the question set, one JSON object a line.
func LoadRealDocQuestions(r io.Reader) ([]RealDocQuestion, error) {
	var out []RealDocQuestion
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q RealDocQuestion
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrFormat, n, err)
		}
		if q.ID == "" || q.Collection == "" || q.Question == "" || len(q.Parts) == 0 {
			return nil, fmt.Errorf("%w: line %d: id, collection, question and parts are required", ErrFormat, n)
		}
		for _, p := range q.Parts {
			if len(p) == 0 {
				return nil, fmt.Errorf("%w: line %d (%s): an empty part", ErrFormat, n, q.ID)
			}
		}
		if q.Split != "tune" && q.Split != "heldout" {
			return nil, fmt.Errorf("%w: line %d (%s): split %q is neither tune nor heldout", ErrFormat, n, q.ID, q.Split)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return out, nil
}

// Grades of an answer line.
const (
	GradeRight  = "right"
	GradePartly = "partly"
	GradeWrong  = "wrong"
)

// maxRightWords is the longest answer line graded right: past it, an
// answer that holds every part is a passage to search, not an answer
// (partly).
const maxRightWords = 40

// NormalizeGrade lower-cases s and turns every run of characters other than
// letters and digits into one space, so that "OLLAMA_MODELS" matches
// "ollama models" and "8.9" matches "8 9".
func NormalizeGrade(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// HasPart reports whether text holds one of the forms of a part, as whole
// words after NormalizeGrade.
func HasPart(text string, forms []string) bool {
	h := " " + NormalizeGrade(text) + " "
	for _, f := range forms {
		if n := NormalizeGrade(f); n != "" && strings.Contains(h, " "+n+" ") {
			return true
		}
	}
	return false
}

// Grade grades an answer line: right when it holds every part and has at
// most maxRightWords words, partly when it holds some part (or every part
// in a longer line), wrong otherwise (an empty answer included).
func (q RealDocQuestion) Grade(answer string) string {
	have := 0
	for _, p := range q.Parts {
		if HasPart(answer, p) {
			have++
		}
	}
	switch {
	case have == len(q.Parts) && len(strings.Fields(answer)) <= maxRightWords:
		return GradeRight
	case have > 0:
		return GradePartly
	}
	return GradeWrong
}

// Holds reports whether text (evidence read) holds every part.
func (q RealDocQuestion) Holds(text string) bool {
	for _, p := range q.Parts {
		if !HasPart(text, p) {
			return false
		}
	}
	return true
}
