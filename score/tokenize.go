package score

import (
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// stemmer turns words into index terms: lower case, English stop words
// dropped, Porter2 (snowball english) stems. It numbers terms in order of
// first appearance and memoises each word's term, so a word seen before
// costs one map lookup. It is not safe for concurrent use; each index build
// or query has its own.
type stemmer struct {
	memo  map[string]int32 // lower-case word → term id, -1 for a stop word
	ids   map[string]int32 // term → id
	terms []string         // id → term
	buf   []byte
}

func newStemmer() *stemmer {
	return &stemmer{memo: make(map[string]int32), ids: make(map[string]int32)}
}

// appendTerms appends the terms of s to dst.
func (st *stemmer) appendTerms(dst []string, s string) []string {
	st.scan(s, func(id int32) { dst = append(dst, st.terms[id]) })
	return dst
}

// appendIDs appends the term ids of s to dst.
func (st *stemmer) appendIDs(dst []int32, s string) []int32 {
	st.scan(s, func(id int32) { dst = append(dst, id) })
	return dst
}

// scan calls fn with the term id of each word of s that is not a stop word.
// A word is a maximal run of letters and digits; a '.' between two digits
// joins them ("3.14") and a ',' between two digits is dropped ("1,024" is
// "1024"), so numbers in tables stay whole.
func (st *stemmer) scan(s string, fn func(int32)) {
	b := st.buf[:0]
	var prev rune
	flush := func() {
		if len(b) > 0 {
			if id := st.term(b); id >= 0 {
				fn(id)
			}
			b = b[:0]
		}
	}
	for i := 0; i < len(s); {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			b = append(b, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			b = append(b, byte(r+'a'-'A'))
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
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
}

func isDigitAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsDigit(r)
}

// term maps one lower-case word to its term id, or -1 for a stop word.
func (st *stemmer) term(word []byte) int32 {
	if id, ok := st.memo[string(word)]; ok { // no allocation for the lookup
		return id
	}
	w := string(word)
	id := int32(-1)
	if !english.IsStopWord(w) {
		t := english.Stem(w, false)
		var ok bool
		if id, ok = st.ids[t]; !ok {
			id = int32(len(st.terms))
			st.ids[t] = id
			st.terms = append(st.terms, t)
		}
	}
	st.memo[w] = id
	return id
}

// queryTerms returns the rule-based query keywords of a question: its words,
// lower-cased, without English stop words, stemmed with the snowball English
// stemmer, each once in order of first appearance. These are the terms BM25
// looks up. Paper v1 §3.3 asks a language model for the keywords instead;
// a caller that does passes them in [Query.Keywords].
func queryTerms(question string) []string {
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
