// Package mention finds links between titled passages without a language
// model: passage A names passage B's title, or A and B name one entity
// (a run of capitalised words). graph.MentionLinks turns them into Link
// edges and score's hop step follows them; both read titles from Node.Section.
//
// Matching is by index, never by comparing pairs of texts: a map from a
// title's first word to the titles that start with it, walked once over
// each text's words, and a posting list per entity span. The cost is about
// the total text length (plus the pairs of the few texts that share a
// rare entity).
package mention

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pair is an undirected link between passages U < V.
type Pair struct{ U, V int32 }

// Options configure TitleMentions, MentionPairs and EntityPairs. The zero value
// is the documented default of every field.
type Options struct {
	// MinTitleRunes is the shortest title (after its parenthesised
	// qualifier is dropped) that is matched (0 = 4): shorter ones are
	// initials and common words.
	MinTitleRunes int
	// MaxTitleShare drops titles that more than this share of the texts
	// mention (0 = 0.01): a title named everywhere ("United States") links
	// nothing in particular. At least minDF texts are always allowed.
	MaxTitleShare float64
	// MaxTitleCopies drops titles that more than this many passages share
	// (0 = 4): a mention of a repeated title links every copy.
	MaxTitleCopies int
	// MaxEntityDF drops entity spans found in more than this many texts
	// (0 = 8): an entity links every pair of texts naming it, so frequent
	// spans would add cliques of weak links.
	MaxEntityDF int
	// Class, when not nil, gives each passage's content class (passages
	// holding one content, copies of each other, share one; graph.Graph's
	// Copies): the counts behind MaxTitleShare, MaxTitleCopies and
	// MaxEntityDF count contents, not passages, so that a collection that
	// holds a passage twice keeps the titles and entities of the
	// collection that holds it once. Nil: every passage its own content.
	Class []int32
}

// contents counts the distinct content classes of the passages ps (each
// passage once when Class is nil).
func (o Options) contents(ps []int32) int {
	if o.Class == nil || len(ps) < 2 {
		return len(ps)
	}
	seen := make(map[int32]bool, len(ps))
	for _, p := range ps {
		seen[o.Class[p]] = true
	}
	return len(seen)
}

// total counts the distinct content classes of n passages.
func (o Options) total(n int) int {
	if o.Class == nil {
		return n
	}
	seen := make(map[int32]bool, n)
	for _, c := range o.Class[:n] {
		seen[c] = true
	}
	return len(seen)
}

// minDF is the mention count a title may always reach before
// MaxTitleShare applies.
const minDF = 8

func (o Options) minTitle() int {
	if o.MinTitleRunes > 0 {
		return o.MinTitleRunes
	}
	return 4
}

func (o Options) maxShare() float64 {
	if o.MaxTitleShare > 0 {
		return o.MaxTitleShare
	}
	return 0.01
}

func (o Options) maxCopies() int {
	if o.MaxTitleCopies > 0 {
		return o.MaxTitleCopies
	}
	return 4
}

func (o Options) maxEntityDF() int {
	if o.MaxEntityDF > 0 {
		return o.MaxEntityDF
	}
	return 8
}

// token is one word of a text: its bytes and whether the text's
// previous non-space character ends a sentence (or the text starts).
type token struct {
	s     string
	start bool
	// spaced is whether only spaces separate the word from the previous
	// one (a name does not run across punctuation).
	spaced bool
}

// tokenize splits s into words (maximal runs of letters, digits and
// inner apostrophes), recording sentence starts.
func tokenize(s string) []token {
	var out []token
	start := true
	spaced := false
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			j := i + w
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				if unicode.IsLetter(r2) || unicode.IsDigit(r2) {
					j += w2
					continue
				}
				if r2 == '\'' && j+w2 < len(s) {
					if r3, _ := utf8.DecodeRuneInString(s[j+w2:]); unicode.IsLetter(r3) {
						j += w2
						continue
					}
				}
				break
			}
			out = append(out, token{s: s[i:j], start: start, spaced: spaced})
			start, spaced = false, true
			i = j
			continue
		}
		switch r {
		case '.', '!', '?', '\n', ':', ';':
			start = true
		}
		if r != ' ' {
			spaced = false
		}
		i += w
	}
	return out
}

// titleKey drops a trailing parenthesised qualifier ("Lloyd (film)" is
// named "Lloyd" in text) and returns the title's words.
func titleKey(t string) []string {
	t = strings.TrimSpace(t)
	if i := strings.LastIndex(t, " ("); i > 0 && strings.HasSuffix(t, ")") {
		t = t[:i]
	}
	ws := tokenize(t)
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
	}
	return out
}

// TitleIndex finds the titles a text names: a map from a title's first
// word to the titles starting with it, so that matching walks a text's
// words once (no pair of texts is compared).
type TitleIndex struct {
	cands []titleCand
	first map[string][]int
}

type titleCand struct {
	words []string
	nodes []int32
}

// NewTitleIndex indexes titles (titles[i] is passage i's). A title is
// matched without its parenthesised qualifier ("Lloyd (film)" as
// "Lloyd"); titles shorter than MinTitleRunes, starting lower case, made of
// numbers and dates, or shared by more than MaxTitleCopies passages are
// left out.
func NewTitleIndex(titles []string, opt Options) *TitleIndex {
	x := &TitleIndex{first: map[string][]int{}}
	byKey := map[string]int{}
	for i, t := range titles {
		ws := titleKey(t)
		if len(ws) == 0 || utf8.RuneCountInString(strings.Join(ws, " ")) < opt.minTitle() {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(ws[0]); !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			continue
		}
		if isNumberOrDate(ws) {
			continue
		}
		k := strings.Join(ws, " ")
		c, ok := byKey[k]
		if !ok {
			c = len(x.cands)
			byKey[k] = c
			x.cands = append(x.cands, titleCand{words: ws})
		}
		x.cands[c].nodes = append(x.cands[c].nodes, int32(i))
	}
	for c := range x.cands {
		if opt.contents(x.cands[c].nodes) > opt.maxCopies() {
			continue
		}
		w := x.cands[c].words[0]
		x.first[w] = append(x.first[w], c)
	}
	return x
}

// match returns the indexed titles text names, each once, in order of
// first occurrence: the title's words appear consecutively with the same
// case.
func (x *TitleIndex) match(text string) []int {
	ws := tokenize(text)
	var out []int
	seen := map[int]bool{}
	for i := range ws {
		for _, c := range x.first[ws[i].s] {
			cw := x.cands[c].words
			if i+len(cw) > len(ws) || seen[c] {
				continue
			}
			match := true
			for j := 1; j < len(cw); j++ {
				if ws[i+j].s != cw[j] {
					match = false
					break
				}
			}
			if match {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// Named returns the passages whose titles text names, in increasing
// order (a question's own titles, for example).
func (x *TitleIndex) Named(text string) []int32 {
	var out []int32
	for _, c := range x.match(text) {
		out = append(out, x.cands[c].nodes...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// TitleMentions returns, for every text a, the passages whose titles
// texts[a] names (see NewTitleIndex for the titles matched), in
// increasing order. Titles mentioned by more than MaxTitleShare of the
// texts (and more than minDF) are dropped, and a text never names itself.
// The result depends only on the input; the cost is about the total text
// length.
func TitleMentions(texts, titles []string, opt Options) [][]int32 {
	x := NewTitleIndex(titles, opt)
	n := len(texts)
	if len(x.first) == 0 {
		// No title can be named (none, or all left out): nothing to
		// walk the texts for.
		return make([][]int32, n)
	}
	// hits[c] lists the texts naming title c, in text order.
	hits := make([][]int32, len(x.cands))
	for a, text := range texts {
		for _, c := range x.match(text) {
			hits[c] = append(hits[c], int32(a))
		}
	}
	limit := max(minDF, int(math.Ceil(opt.maxShare()*float64(opt.total(n)))))
	out := make([][]int32, n)
	for c := range x.cands {
		if len(hits[c]) == 0 || opt.contents(hits[c]) > limit {
			continue
		}
		for _, a := range hits[c] {
			for _, b := range x.cands[c].nodes {
				if a != b {
					out[a] = append(out[a], b)
				}
			}
		}
	}
	for a := range out {
		sort.Slice(out[a], func(i, j int) bool { return out[a][i] < out[a][j] })
	}
	return out
}

// MentionPairs returns the pair {a, b} whenever texts[a] names titles[b]
// (TitleMentions), sorted by (U, V), U < V, without duplicates.
func MentionPairs(texts, titles []string, opt Options) []Pair {
	return pairsOf(TitleMentions(texts, titles, opt))
}

// pairsOf turns out-lists into sorted undirected pairs.
func pairsOf(names [][]int32) []Pair {
	var out []Pair
	for a, bs := range names {
		for _, b := range bs {
			out = append(out, Pair{U: min(int32(a), b), V: max(int32(a), b)})
		}
	}
	return dedup(out)
}

// connectors may join the capitalised words of one name ("Port of Spain",
// "Ludwig van Beethoven").
var connectors = map[string]bool{"of": true, "the": true, "de": true, "van": true, "von": true, "der": true, "del": true, "la": true, "da": true, "du": true}

// sentenceWords are capitalised at a sentence start without naming
// anything; a span does not start with one.
var sentenceWords = map[string]bool{"The": true, "A": true, "An": true, "In": true, "On": true, "At": true, "He": true, "She": true, "It": true, "This": true, "That": true, "His": true, "Her": true, "Its": true, "They": true, "Their": true, "After": true, "During": true, "From": true, "As": true, "By": true, "For": true, "With": true, "When": true, "Since": true, "Born": true, "There": true, "These": true, "Some": true, "Its'": true}

var months = map[string]bool{"January": true, "February": true, "March": true, "April": true, "May": true, "June": true, "July": true, "August": true, "September": true, "October": true, "November": true, "December": true}

func isNumberOrDate(ws []string) bool {
	for _, w := range ws {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsDigit(r) && !months[w] {
			return false
		}
	}
	return true
}

// Entities returns the named-entity spans of text: maximal runs of at
// least two capitalised words, possibly joined by lower-case connectors
// ("of", "van", ...), without a leading sentence word ("The", "In") or a
// trailing connector, and with no month name or number in them (dates and
// numbers are not entities). Spans are returned once each, in text order.
func Entities(text string) []string {
	ws := tokenize(text)
	var out []string
	seen := map[string]bool{}
	flush := func(span []string) {
		for len(span) > 0 && (sentenceWords[span[0]] || connectors[span[0]]) {
			span = span[1:]
		}
		for len(span) > 0 && connectors[span[len(span)-1]] {
			span = span[:len(span)-1]
		}
		caps := 0
		for _, w := range span {
			if capitalised(w) {
				caps++
			}
		}
		if caps < 2 {
			return
		}
		s := strings.Join(span, " ")
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	var span []string
	for _, w := range ws {
		r, _ := utf8.DecodeRuneInString(w.s)
		switch {
		case months[w.s] || unicode.IsDigit(r):
			flush(span)
			span = span[:0]
		case unicode.IsUpper(r):
			if (w.start || !w.spaced) && len(span) > 0 {
				flush(span)
				span = span[:0]
			}
			span = append(span, w.s)
		case connectors[w.s] && w.spaced && len(span) > 0:
			span = append(span, w.s)
		default:
			flush(span)
			span = span[:0]
		}
	}
	flush(span)
	return out
}

// EntityPairs returns the pair of every two texts that name one entity
// span (Entities) found in at most MaxEntityDF texts, sorted by (U, V),
// U < V, without duplicates.
func EntityPairs(texts []string, opt Options) []Pair {
	post := map[string][]int32{}
	var order []string
	for i, t := range texts {
		for _, e := range Entities(t) {
			if _, ok := post[e]; !ok {
				order = append(order, e)
			}
			post[e] = append(post[e], int32(i))
		}
	}
	var out []Pair
	for _, e := range order {
		p := post[e]
		if len(p) < 2 || opt.contents(p) > opt.maxEntityDF() {
			continue
		}
		for i := range p {
			for j := i + 1; j < len(p); j++ {
				out = append(out, Pair{U: p[i], V: p[j]})
			}
		}
	}
	return dedup(out)
}

func dedup(es []Pair) []Pair {
	sort.Slice(es, func(i, j int) bool {
		if es[i].U != es[j].U {
			return es[i].U < es[j].U
		}
		return es[i].V < es[j].V
	})
	out := es[:0]
	for i, e := range es {
		if i > 0 && e.U == es[i-1].U && e.V == es[i-1].V {
			continue
		}
		out = append(out, e)
	}
	return out
}

func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// Merge returns the sorted union of two sorted pair lists.
func Merge(a, b []Pair) []Pair {
	return dedup(append(append([]Pair(nil), a...), b...))
}

// TitleFirstWord returns the word NewTitleIndex files title under (its
// first word), and false for a title it leaves out whatever the other
// titles are (too short, lower case, a number or date). A store that keeps
// titles looks them up by it: the titles a text can name are among those
// filed under the text's Words.
func TitleFirstWord(title string, opt Options) (string, bool) {
	ws := titleKey(title)
	if len(ws) == 0 || utf8.RuneCountInString(strings.Join(ws, " ")) < opt.minTitle() {
		return "", false
	}
	if r, _ := utf8.DecodeRuneInString(ws[0]); !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return "", false
	}
	if isNumberOrDate(ws) {
		return "", false
	}
	return ws[0], true
}

// Words returns the words of text as a TitleIndex matches them, each once.
func Words(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range tokenize(text) {
		if !seen[w.s] {
			seen[w.s] = true
			out = append(out, w.s)
		}
	}
	return out
}
