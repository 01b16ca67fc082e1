package score

import (
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// stemmer turns words into index terms: lower case, English stop words
// dropped, Porter2 (snowball english) stems. It memoises stems, so it is not
// safe for concurrent use; each index build or query has its own.
type stemmer struct {
	memo map[string]string
	buf  []byte
}

func newStemmer() *stemmer { return &stemmer{memo: make(map[string]string)} }

// appendTerms appends the terms of s to dst. A word is a maximal run of
// letters and digits; a '.' between two digits joins them ("3.14") and a ','
// between two digits is dropped ("1,024" is "1024"), so numbers in tables stay
// whole.
func (st *stemmer) appendTerms(dst []string, s string) []string {
	b := st.buf[:0]
	var prev rune
	flush := func() {
		if len(b) > 0 {
			if t, ok := st.term(b); ok {
				dst = append(dst, t)
			}
			b = b[:0]
		}
	}
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b = utf8.AppendRune(b, unicode.ToLower(r))
		case (r == '.' || r == ',') && len(b) > 0 && unicode.IsDigit(prev) && i+w < len(s) && isDigitAt(s, i+w):
			if r == '.' {
				b = append(b, '.')
			}
		default:
			flush()
		}
		prev = r
		i += w
	}
	flush()
	st.buf = b
	return dst
}

func isDigitAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsDigit(r)
}

// term maps one lower-case word to its term, or false for a stop word.
func (st *stemmer) term(word []byte) (string, bool) {
	if t, ok := st.memo[string(word)]; ok { // no allocation for the lookup
		return t, t != ""
	}
	w := string(word)
	t := ""
	if !english.IsStopWord(w) {
		t = english.Stem(w, false)
	}
	st.memo[w] = t
	return t, t != ""
}

// Keywords returns the rule-based query keywords of a question: its words,
// lower-cased, without English stop words, stemmed with the snowball English
// stemmer, each once in order of first appearance. These are the terms BM25
// looks up (METHOD A.1 notes the paper's LLM keyword prompt as an option).
func Keywords(question string) []string {
	st := newStemmer()
	terms := st.appendTerms(nil, question)
	seen := make(map[string]bool, len(terms))
	out := terms[:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
