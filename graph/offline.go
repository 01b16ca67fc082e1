package graph

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flowreader/flowreader/internal/textutil"
)

// Offline analysis: what a node gets when no Model is configured. It is
// deterministic and cheap: the summary is the lead of the text, the keywords
// are salient surface terms.
const (
	offlineSummaryChars = 300 // summary length target, in runes
	offlineKeywords     = 16  // keywords kept per node
)

// identifier matches references such as "Table 3", "Fig. 2b", "Section 4.1".
var identifier = regexp.MustCompile(`\b(?i:(figure|fig\.?|table|tab\.|section|sec\.|equation|eq\.|algorithm|appendix|listing|chart|slide))\s*([A-Z]?\d+(?:\.\d+)*[a-z]?|[A-Z]\b)`)

// identifierWords are identifier's words in lower case, longer forms
// first.
var identifierWords = []string{"figure", "fig.", "fig", "table", "tab.", "section", "sec.", "equation", "eq.",
	"algorithm", "appendix", "listing", "chart", "slide"}

// mayHoldIdentifier is false only when identifier cannot match t: t is
// ASCII and none of identifierWords starts a word of it (any case) and is
// followed, after spaces, by a digit or a capital letter. It spares the
// regular expression (two passes a node, most of the offline analysis's
// CPU time) on text that references nothing. Non-ASCII text always goes to
// the expression, whose case folding is Unicode's ("ſection").
func mayHoldIdentifier(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf {
			return true
		}
		if i > 0 && isWordByte(t[i-1]) {
			continue // identifier's \b: a word starts here or not at all
		}
		c := t[i] | 0x20 // ASCII lower case for letters
		for _, w := range identifierWords {
			if w[0] != c || len(t)-i < len(w) || !strings.EqualFold(t[i:i+len(w)], w) {
				continue
			}
			k := i + len(w)
			for k < len(t) && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\f' || t[k] == '\r') {
				k++
			}
			if k < len(t) && ('0' <= t[k] && t[k] <= '9' || 'A' <= t[k] && t[k] <= 'Z') {
				return true
			}
		}
	}
	return false
}

// isWordByte is \w in ASCII, what \b looks at.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// isSegmentBreak is a break between clauses or table cells.
func isSegmentBreak(r rune) bool {
	switch r {
	case ':', ';', '|', '(', ')', '[', ']', '\n':
		return true
	}
	return false
}

var canonicalID = map[string]string{
	"figure": "Figure", "fig": "Figure", "fig.": "Figure", "table": "Table", "tab.": "Table",
	"section": "Section", "sec.": "Section", "equation": "Equation", "eq.": "Equation",
	"algorithm": "Algorithm", "appendix": "Appendix", "listing": "Listing", "chart": "Chart", "slide": "Slide",
}

// stopwords are capitalised words that do not make a keyword on their own.
var stopwords = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "or": true, "of": true, "in": true, "on": true,
	"at": true, "to": true, "for": true, "with": true, "by": true, "from": true, "as": true, "is": true,
	"are": true, "was": true, "were": true, "it": true, "its": true, "this": true, "that": true,
	"these": true, "those": true, "we": true, "our": true, "they": true, "their": true, "he": true,
	"she": true, "his": true, "her": true, "there": true, "here": true, "each": true, "all": true,
	"no": true, "not": true, "but": true, "if": true, "then": true, "when": true, "which": true,
	"who": true, "what": true, "how": true, "after": true, "before": true, "during": true, "also": true,
	"both": true, "one": true, "two": true, "three": true, "however": true, "thus": true, "i": true,
}

// leadSummary returns the first sentences of s, up to about
// offlineSummaryChars runes (at least one sentence, cut at a word if that
// sentence alone is longer).
func leadSummary(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for _, sent := range textutil.Sentences(s) {
		if b.Len() > 0 && utf8.RuneCountInString(b.String())+1+utf8.RuneCountInString(sent) > offlineSummaryChars {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sent)
	}
	out := b.String()
	if utf8.RuneCountInString(out) > 2*offlineSummaryChars {
		r := []rune(out)[:offlineSummaryChars]
		cut := strings.LastIndexByte(string(r), ' ')
		if cut <= 0 {
			cut = len(string(r))
		}
		out = string(r)[:cut] + "…"
	}
	return out
}

// salientTerms extracts keywords from texts, most salient first:
// identifiers ("Table 3"), then capitalised phrases ("Storm Elda", "NASA")
// by frequency, then numbers ("41.5", "2024") in order of appearance.
// Duplicates (case-insensitive) are dropped.
func salientTerms(limit int, texts ...string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		key := strings.ToLower(k)
		if k == "" || seen[key] || len(out) >= limit {
			return
		}
		seen[key] = true
		out = append(out, k)
	}
	for _, t := range texts {
		if !mayHoldIdentifier(t) {
			continue
		}
		for _, m := range identifier.FindAllStringSubmatch(t, -1) {
			add(canonicalID[strings.ToLower(m[1])] + " " + m[2])
		}
	}
	type phrase struct {
		text  string
		count int
		first int
	}
	var phrases []phrase
	index := map[string]int{}
	var numbers []string
	pos := 0
	var segments []string
	for _, t := range texts {
		// Identifiers are taken already; clause and cell boundaries act as
		// sentence starts, so "Table 3: Mean flow" or a header cell "Station"
		// do not yield "Mean" or "Station".
		if mayHoldIdentifier(t) {
			t = identifier.ReplaceAllString(t, "\n")
		}
		// Empty segments (the split's at a leading or doubled break) hold
		// no words, so dropping them as FieldsFunc does changes nothing.
		segments = append(segments, strings.FieldsFunc(t, isSegmentBreak)...)
	}
	for _, t := range segments {
		for _, sent := range textutil.Sentences(t) {
			words := textutil.Words(sent)
			for i := 0; i < len(words); i++ {
				w := words[i]
				if hasDigit(w) {
					numbers = append(numbers, w)
					continue
				}
				if !capitalised(w) || stopwords[strings.ToLower(w)] {
					continue
				}
				j := i + 1
				for j < len(words) && capitalised(words[j]) && !hasDigit(words[j]) && !stopwords[strings.ToLower(words[j])] {
					j++
				}
				p := strings.Join(words[i:j], " ")
				// A lone capitalised word that starts a sentence is usually
				// not a name; keep it only if it is an acronym.
				if j-i == 1 && i == 0 && !acronym(w) {
					i = j - 1
					continue
				}
				if j-i == 1 && utf8.RuneCountInString(w) < 2 {
					continue
				}
				key := strings.ToLower(p)
				if k, ok := index[key]; ok {
					phrases[k].count++
				} else {
					index[key] = len(phrases)
					phrases = append(phrases, phrase{p, 1, pos})
				}
				pos++
				i = j - 1
			}
		}
	}
	// Multi-word phrases are more specific than single words: rank by
	// count × words, then first appearance.
	score := func(p phrase) int { return p.count * (1 + strings.Count(p.text, " ")) }
	sort.SliceStable(phrases, func(a, b int) bool {
		if sa, sb := score(phrases[a]), score(phrases[b]); sa != sb {
			return sa > sb
		}
		return phrases[a].first < phrases[b].first
	})
	for _, p := range phrases {
		add(p.text)
	}
	for _, n := range numbers {
		add(n)
	}
	// Exact size, and copies: a keyword sliced out of a temporary string
	// would keep that whole string alive for the node's lifetime. The
	// copies share one allocation (one per keyword costs a size class's
	// rounding each, which adds up over a large collection).
	kept := make([]string, len(out))
	buf := strings.Join(out, "") // a new string of exactly these bytes
	for i, k := range out {
		kept[i], buf = buf[:len(k)], buf[len(k):]
	}
	return kept
}

func hasDigit(w string) bool { return strings.IndexFunc(w, unicode.IsDigit) >= 0 }

func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func acronym(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n >= 2
}

// within returns s as a slice of src when src starts with it (a lead
// summary of clean text usually is its first sentences), so that the node
// keeps one copy of those bytes, not two; otherwise s.
func within(src, s string) string {
	if strings.HasPrefix(src, s) {
		return src[:len(s)]
	}
	return s
}

// analyseOffline fills the node's summary, keywords and tags.
func analyseOffline(n *Node) {
	if n.Modality != ModalityText {
		n.Summary = strings.Join(strings.Fields(n.Caption), " ")
		if n.Summary == "" {
			n.Summary = leadSummary(n.Content)
		}
		if n.Summary == "" {
			n.Summary = leadSummary(n.Context)
		}
		if n.Summary == "" {
			n.Summary = n.Modality.String()
		}
		n.Keywords = salientTerms(offlineKeywords, n.Caption, n.Content, n.Footnote)
	} else {
		n.Summary = within(n.Content, leadSummary(n.Content))
		n.Keywords = salientTerms(offlineKeywords, n.Content)
	}
	n.Tags = []string{n.Modality.String()}
	if n.Section != "" {
		n.Tags = append(n.Tags, n.Section)
	}
}
