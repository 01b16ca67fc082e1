package reader

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// word is one whitespace-separated token of a unit, with the punctuation
// around it trimmed, and where it sits in the unit's text.
type word struct {
	text       string
	start, end int // byte offsets of text in the unit's text
	// stems are the word's terms as stems gives them ("OLLAMA_MODELS" →
	// ollama, model).
	stems []string
	// brk: punctuation that ends a phrase (, . ; : ! ?) or a bracket
	// followed the word.
	brk bool
	// open: an opening bracket or quote preceded the word.
	open bool
	// tail is the punctuation trimmed after the word.
	tail string
}

// trimSet is the punctuation trimmed from both ends of a word.
const trimSet = "\"'“”‘’()[]{}<>,;:!?`*…"

// wordsOf splits s at white space into words with their offsets.
func wordsOf(s string) []word {
	var out []word
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		j := i
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		raw := s[i:j]
		a, b := i, j
		for a < b {
			r, n := utf8.DecodeRuneInString(s[a:b])
			if !strings.ContainsRune(trimSet, r) {
				break
			}
			a += n
		}
		for a < b {
			r, n := utf8.DecodeLastRuneInString(s[a:b])
			if !strings.ContainsRune(trimSet, r) && r != '.' {
				break
			}
			b -= n
		}
		if a < b {
			tail := raw[b-i:]
			w := word{text: s[a:b], start: a, end: b, open: a > i, tail: tail,
				brk: strings.ContainsAny(tail, ",.;:!?)]}")}
			w.stems = stems(w.text)
			out = append(out, w)
		}
		i = j
	}
	return out
}

var (
	numRE  = regexp.MustCompile(`^[-−]?[$€£]?\d[\d,]*(?:\.\d+)?(?:[-–/]\d[\d,]*(?:\.\d+)?)?(?:%|[xX×]|[kKMBT]|[KMGT]i?B|ms|[smh]|GHz|MHz|s)?$`)
	yearRE = regexp.MustCompile(`^(?:1[5-9]\d\d|20\d\d)s?$`)
)

var numberWords = wordSet(`one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty
	hundred thousand million billion dozen half twice double triple`)

// unitWords may follow a number as its unit.
var unitWords = wordSet(`% percent per cent minutes minute seconds second hours hour days day weeks week months month years year
	ms metres meters millimetres kilometres inches feet knots degrees tokens token gb gib mb mib kb tb bytes bits words pages documents papers users epochs epoch samples nodes layers
	times x ghz mhz hz km m cm mm kg g lb miles points times fold steps examples instances sentences questions
	annotators datasets tasks languages parameters dimensions heads gpus cpus cores threads requests models k`)

// qualifiers may precede a number and belong to the answer ("at least 4GB",
// "about 684K").
var qualifiers = wordSet(`about approximately around nearly almost over under roughly some`)

// refHeads are words after which a number is a reference, not a value.
var refHeads = wordSet(`table tab figure fig section sec § eq equation example chapter page pp step appendix line lines
	algorithm theorem lemma footnote listing`)

func isNumeric(w string) bool {
	return numRE.MatchString(w) || numberWords[strings.ToLower(w)]
}

// normNum is a number as compared with the question's: lower case, no
// thousands separators.
func normNum(w string) string {
	return strings.ToLower(strings.ReplaceAll(w, ",", ""))
}

// cand is a candidate answer span: words [a, b) of unit u.
type cand struct {
	u    int
	a, b int
	// fit is how well the span has the kind asked for, in [0, 1].
	fit float64
	// text overrides the span's verbatim text (a table cell, an
	// expansion); "" means the words' text.
	text string
	// start, end locate the highlighted span in the unit's quote.
	start, end int
	score      float64
	// col is 1 + the table column of a cell candidate (or of a span
	// inside a cell), 0 for a span of prose.
	col int
}

// isNamey reports whether a word is written as a name or as code:
// capitalised, all capitals, camel case, or with a digit, underscore,
// slash or inner dot among letters.
func isNamey(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if unicode.IsUpper(r) {
		return true
	}
	hasLetter, hasOther := false, false
	for i, c := range w {
		switch {
		case unicode.IsLetter(c):
			hasLetter = true
			if i > 0 && unicode.IsUpper(c) {
				return true
			}
		case unicode.IsDigit(c) || c == '_' || c == '/' || (c == '.' && i > 0 && i < len(w)-1):
			hasOther = true
		}
	}
	return hasLetter && hasOther || strings.HasPrefix(w, "--") && len(w) > 2
}

// connectors may join the words of a name ("Row and Column Access
// Control", "Bank of England").
var connectors = wordSet(`of and for de la le von van der del du &`)

// starters are capitalised words that begin sentences, not names.
var starters = wordSet(`the a an in on at we it this these those our for to if when while as by with from after before
	however thus also each every all some many most such then there here both either neither its their his her one`)

// spanCands returns the candidate spans of kind k in words ws of unit u.
func spanCands(u int, ws []word, q *question, code bool) []cand {
	var out []cand
	switch q.kind {
	case kindNumber, kindDate:
		for i := 0; i < len(ws); i++ {
			w := ws[i].text
			if q.kind == kindDate && len(w) > 3 && months[strings.ToLower(w)] {
				// "November", "March 2025".
				fit, b := 0.6, i+1
				if q.head == "month" {
					fit = 1
				}
				if b < len(ws) && !ws[i].brk && yearRE.MatchString(ws[b].text) {
					b++
				}
				out = append(out, cand{u: u, a: i, b: b, fit: fit})
				continue
			}
			if !isNumeric(w) {
				continue
			}
			if q.nums[normNum(w)] {
				continue // the question's own number
			}
			if i > 0 && refHeads[strings.ToLower(strings.TrimSuffix(ws[i-1].text, "."))] {
				continue
			}
			if i > 0 && (strings.HasSuffix(ws[i-1].text, "al") || strings.HasSuffix(ws[i-1].text, "al.")) && yearRE.MatchString(w) {
				continue // a citation: "et al., 2019"
			}
			fit := 1.0
			if example(ws, i) {
				fit = 0.6 // "(e.g. 10)": an example, not the value
			}
			year := yearRE.MatchString(w)
			if q.kind == kindDate && (!year || q.head == "month") {
				fit = 0.3
			} else if q.kind == kindNumber && year {
				fit = 0.5
			}
			a, b := i, i+1
			if q.kind == kindDate {
				// A month (and day) before the year belongs to the date.
				for a > 0 && a > i-2 && (months[strings.ToLower(strings.TrimSuffix(ws[a-1].text, "."))] || len(ws[a-1].text) <= 2 && isNumeric(ws[a-1].text)) {
					a--
				}
			} else {
				for b < len(ws) && b < i+3 && !ws[b-1].brk {
					t := strings.ToLower(ws[b].text)
					verb := strings.HasSuffix(t, "ed") || strings.HasSuffix(t, "ing")
					if unitWords[t] || unitLike(t) || len(ws[b].stems) > 0 && q.set[ws[b].stems[0]] && !stopwords[t] && !verb {
						b++
						continue
					}
					break
				}
				if a > 1 && ws[a-1].text == "=" && len(ws[a-2].text) <= 3 {
					a -= 2 // "m = 1": the symbol is part of the value
				} else if a > 0 && qualifiers[strings.ToLower(ws[a-1].text)] {
					a--
				} else if a > 1 && (strings.EqualFold(ws[a-2].text, "at") || strings.EqualFold(ws[a-2].text, "more") || strings.EqualFold(ws[a-2].text, "less")) &&
					(strings.EqualFold(ws[a-1].text, "least") || strings.EqualFold(ws[a-1].text, "most") || strings.EqualFold(ws[a-1].text, "than")) {
					a -= 2
				}
			}
			out = append(out, cand{u: u, a: a, b: b, fit: fit})
		}
	case kindName, kindPerson, kindPlace:
		for i := 0; i < len(ws); {
			if !isNamey(ws[i].text) || starters[strings.ToLower(ws[i].text)] && !ws[i].open || placeholder(ws[i].text) {
				i++
				continue
			}
			j := i + 1
			for j < len(ws) && !ws[j-1].brk && !ws[j].open {
				t := ws[j].text
				if placeholder(t) {
					break
				}
				if isNamey(t) || isNumeric(t) && !strings.Contains(t, ",") {
					j++
					continue
				}
				if connectors[strings.ToLower(t)] && j+1 < len(ws) && !ws[j].brk && isNamey(ws[j+1].text) {
					j += 2
					continue
				}
				break
			}
			pair := false
			if q.kind == kindPlace && j < len(ws) && strings.HasPrefix(ws[j-1].tail, ",") && isNamey(ws[j].text) {
				pair = true
				// "Rochester, Minnesota": a place and its region.
				k := j + 1
				for k < len(ws) && k < j+3 && !ws[k-1].brk && isNamey(ws[k].text) {
					k++
				}
				j = k
			}
			a := i
			if r := strings.ToLower(ws[i].text); j-i == 2 && refHeads[r] && isNumeric(ws[i+1].text) && stem(r) != q.head {
				i = j // "Table 1", "Figure 2": a reference, not a name (unless asked: "Which table …")
				continue
			}
			initial := i == 0 || ws[i-1].brk
			if initial && j-a > 1 && plainCapital(ws[a].text) && !plainCapital(ws[a+1].text) {
				a++ // "Set disable_ollama_cloud": a verb that opens the sentence
			}
			if j-a <= 6 {
				fit := 1.0
				if q.kind == kindPerson && (j-a < 2 || j-a > 4) {
					fit = 0.6
				}
				if q.kind == kindPerson && codeSpan(ws[a:j]) {
					fit = codePersonFit // "user_type function_id=…": code names no one
				}
				if q.kind == kindPlace && !pair {
					fit = 0.8 // a name; "City, Region" reads as a place
				}
				if code && j-a == 1 {
					fit *= codeForm(ws[a].text, q.head)
				}
				if initial && j-a == 1 && plainCapital(ws[a].text) {
					fit = 0.4 // "Use", "Try": a capital because a sentence starts
				}
				out = append(out, cand{u: u, a: a, b: j, fit: fit})
			}
			i = j
		}
		if q.kind == kindPlace {
			// "on the cliff above Kestrel Bay": a place is often a phrase
			// after a preposition, with a name in it.
			for i := 0; i < len(ws); i++ {
				if !placePreps[strings.ToLower(ws[i].text)] || ws[i].brk {
					continue
				}
				j, named := i+1, false
				for j < len(ws) && j < i+8 {
					named = named || isNamey(ws[j].text)
					j++
					if ws[j-1].brk {
						break
					}
				}
				if named && j > i+1 && ownShare(ws, i+1, j, q) < 0.5 {
					out = append(out, cand{u: u, a: i, b: j, fit: 1})
				}
			}
		}
		if code {
			// A short line of its own (a command in a code block).
			if n := len(ws); n > 0 && n <= 4 && (n >= 2 || isNamey(ws[0].text)) && !stopwords[strings.ToLower(ws[0].text)] {
				out = append(out, cand{u: u, a: 0, b: n, fit: 0.8})
			}
			// "the ollama ps command", "the FUNCTION_USAGE view": the words
			// between a determiner and the head noun name it.
			for k, w := range ws {
				if !hasStem(w, q.head) {
					continue
				}
				a := k
				for a > 0 && k-a < 3 && !ws[a-1].brk && !stopwords[strings.ToLower(ws[a-1].text)] {
					a--
				}
				if a < k && a > 0 && determiners[strings.ToLower(ws[a-1].text)] {
					out = append(out, cand{u: u, a: a, b: k, fit: 0.9})
				}
			}
		}
	}
	return out
}

// citeNextRE is a citation that follows a name: " (Chen et al., 2018)",
// " (Lewis and Liang, 2015)", " (Kingma, 2014)".
var citeNextRE = regexp.MustCompile(`^\s*\(\p{Lu}[\p{L}'-]*(?:\s+et\s+al\b|\s+(?:and|&)\s+\p{Lu}|\s*,\s*(?:19|20)\d\d)`)

// useVerbs introduce what a method is built from ("we employ X as
// encoder").
var useVerbs = wordSet(`use uses used using employ employs employed employing adopt adopts adopted adopting choose chooses
	chose select selects selected take takes took utilize utilizes utilized`)

// phraseFit is the fit of a name found by its place next to the head noun
// rather than by its form: it may be written in lower case
// ("bert-base-uncased", "the fast greedy algorithm"), and a phrase so
// placed is less surely a name than a capitalised one.
const phraseFit = 0.8

// headPhrases finds names of the head noun's kind that are not written as
// names: "employ bert-base-uncased (…) as encoder" (a use verb, the name,
// "as" and the head) and "the fast greedy algorithm" (a determiner, up to
// three words, the head). A word that is a stop word, ends a phrase or is
// a participle ("the proposed model") ends the name.
func headPhrases(u int, raw string, ws []word, head string) []cand {
	var out []cand
	for k, w := range ws {
		if len(w.stems) != 1 || w.stems[0] != head {
			continue
		}
		// "X as (a|the) HEAD".
		as := k - 1
		if as > 0 && determiners[strings.ToLower(ws[as].text)] {
			as--
		}
		if as > 0 && strings.EqualFold(ws[as].text, "as") {
			end := as
			if ws[end-1].brk && strings.HasSuffix(ws[end-1].tail, ")") {
				// A citation between the name and "as": "(Devlin et al.,
				// 2018)".
				for end > 0 && !ws[end-1].open {
					end--
				}
				end-- // the word that opens the parenthesis
			}
			a := end
			for a > 0 && end-a < 4 && !stopwords[strings.ToLower(ws[a-1].text)] && !useVerbs[strings.ToLower(ws[a-1].text)] && !(a < end && ws[a-1].brk) {
				a--
			}
			if a > 0 && a < end && (useVerbs[strings.ToLower(ws[a-1].text)] || determiners[strings.ToLower(ws[a-1].text)] && a > 1 && useVerbs[strings.ToLower(ws[a-2].text)]) {
				out = append(out, cand{u: u, a: a, b: end, fit: phraseFit})
			}
		}
		// "the fast greedy algorithm (Chen et al., 2018)": a method cited
		// by its authors is a named one ("the large language model" is
		// not).
		if ws[k].brk || !citeNextRE.MatchString(raw[w.end:]) {
			continue
		}
		a := k
		for a > 0 && k-a < 3 && !ws[a-1].brk && !stopwords[strings.ToLower(ws[a-1].text)] && !participle(ws[a-1].text) && !determiners[strings.ToLower(ws[a-1].text)] {
			a--
		}
		if a < k && a > 0 && determiners[strings.ToLower(ws[a-1].text)] {
			out = append(out, cand{u: u, a: a, b: k, fit: phraseFit})
		}
	}
	return out
}

// participle reports a word ending as a past or present participle
// ("proposed", "following"): it describes, it does not name.
func participle(w string) bool {
	l := strings.ToLower(w)
	return len(l) > 4 && (strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "ing"))
}

// codePersonFit is the fit of a span written as code for a question that
// asks who.
const codePersonFit = 0.4

// codeSpan reports whether a word of ws is written as code: with an
// underscore, an equals sign or a bracket inside it.
func codeSpan(ws []word) bool {
	for _, w := range ws {
		if strings.ContainsAny(w.text, "_=(){}[]<>") {
			return true
		}
	}
	return false
}

// agentAt reports whether the span starting at word a is the agent of a
// passive verb the question uses: "granted (only) by X" for "Who can
// grant …".
func agentAt(ws []word, a int, q *question) bool {
	k := a - 1
	if k < 1 || !strings.EqualFold(ws[k].text, "by") || ws[k-1].brk {
		return false
	}
	v := k - 1
	if v > 0 && adverbs[strings.ToLower(ws[v].text)] && !ws[v-1].brk {
		v--
	}
	l := strings.ToLower(ws[v].text)
	return (strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "en")) && hasQuestionTerm(ws[v], q)
}

// adverbs may stand between a passive verb and its agent.
var adverbs = wordSet(`only solely also mainly mostly usually typically always`)

// agentStop ends an agent phrase: a conjunction or a relative pronoun.
var agentStop = wordSet(`and or but which who whom that when where if unless`)

// agents finds who a who-question asks for when it is no name: the agent
// of a passive verb the question uses ("can be granted only by a user with
// special authority" for "Who can grant …"), up to agentWords words, to
// the first break, conjunction or relative pronoun.
func agents(u int, ws []word, q *question) []cand {
	var out []cand
	for a := 2; a < len(ws); a++ {
		if !agentAt(ws, a, q) {
			continue
		}
		b := a
		for b < len(ws) && b-a < agentWords && !agentStop[strings.ToLower(ws[b].text)] {
			b++
			if ws[b-1].brk {
				break
			}
		}
		if b > a {
			out = append(out, cand{u: u, a: a, b: b, fit: agentFit})
		}
	}
	return out
}

// agentWords is the longest agent phrase; agentFit its fit, below a name's.
const (
	agentWords = 8
	agentFit   = 0.9
)

// unitLike reports a short lower-case token that reads as a unit ("mm",
// "km/h", "°C"): a ratio, or at most three letters without a vowel, so
// that "out" or "key" after a number are not its unit.
func unitLike(t string) bool {
	if len(t) > 5 || stopwords[t] || t == "" {
		return false
	}
	for _, r := range t {
		if !(unicode.IsLetter(r) && unicode.IsLower(r) || r == '/' || r == '°') {
			return false
		}
	}
	return strings.Contains(t, "/") || len(t) <= 3 && !strings.ContainsAny(t, "aeiou")
}

// example reports whether word i follows "e.g." or "for example" closely.
func example(ws []word, i int) bool {
	for k := max(0, i-3); k < i; k++ {
		t := strings.ToLower(ws[k].text)
		if t == "e.g" || t == "e.g." || t == "eg" || t == "example" || t == "instance" {
			return true
		}
	}
	return false
}

// codeForm is how well a single code-like word has the form of what the
// question asks for: a flag starts with "-", a variable is written in
// capitals with underscores or has an underscore, a path or file has a
// slash or a dot; 1 for other nouns.
func codeForm(w, head string) float64 {
	switch head {
	case "flag", "option", "switch", "argument":
		if strings.HasPrefix(w, "-") {
			return 1
		}
		return 0.7
	case "variable":
		if strings.Contains(w, "_") && strings.ToUpper(w) == w {
			return 1
		}
		if strings.Contains(w, "_") {
			return 0.9
		}
		return 0.7
	case "path", "file", "directory", "folder":
		if strings.ContainsAny(w, "/\\.") {
			return 1
		}
		return 0.7
	}
	return 1
}

// placeholderRE matches what is no answer on its own: Latin
// abbreviations ("e.g", "i.e") and the reference placeholders of converted
// papers ("BIBREF7", "INLINEFORM0", "SECREF3").
var placeholderRE = regexp.MustCompile(`^(?i:e\.g|i\.e|et|al|etc|vs|cf|viz)\.?$|^(?:BIBREF|INLINEFORM|DISPLAYFORM|SECREF|TABREF|FIGREF)\d*$`)

func placeholder(w string) bool { return placeholderRE.MatchString(w) }

var determiners = wordSet(`the a an this that these those`)

func hasStem(w word, t string) bool {
	for _, s := range w.stems {
		if s == t {
			return true
		}
	}
	return false
}

// plainCapital reports a word with only its first letter a capital
// ("Use", "Set"), which at the start of a sentence says nothing.
func plainCapital(w string) bool {
	for i, r := range w {
		if i == 0 && !unicode.IsUpper(r) || i > 0 && !unicode.IsLower(r) {
			return false
		}
	}
	return w != ""
}

var placePreps = wordSet(`in on at above below near beside behind inside outside from under over along across`)

var months = wordSet(`january february march april may june july august september october november december jan feb mar apr
	jun jul aug sep sept oct nov dec`)

// own reports whether words [a, b) restate the question: every term is a
// question term, the letters joined are one ("S PECTER" for SPECTER), or
// the span abbreviates words of the question ("ITSO" after "International
// Technical Support Organization").
func own(ws []word, a, b int, q *question) bool {
	if ownShare(ws, a, b, q) == 1 {
		return true
	}
	var joined strings.Builder
	for _, w := range ws[a:b] {
		joined.WriteString(lettersOnly(w.text))
	}
	j := strings.ToLower(joined.String())
	if q.set[j] || q.set[stem(j)] {
		return true
	}
	if b-a == 1 && isAcronym(ws[a].text) {
		key := strings.ToUpper(lettersOnly(ws[a].text))
		qw := wordsOf(q.text)
		for n := 2; n <= 3*len(key); n++ {
			for i := 0; i+n <= len(qw); i++ {
				if spells(qw[i:i+n], key) {
					return true
				}
			}
		}
	}
	return false
}

// ownShare is the share of the terms of words [a, b) that are question
// terms (1 when they have none). A lone letter is no term: the "s" of
// "There's" does not make "MySQL 8 There's" more than the question's own
// "MySQL 8".
func ownShare(ws []word, a, b int, q *question) float64 {
	n, in := 0, 0
	for _, w := range ws[a:b] {
		for _, t := range w.stems {
			if len(t) == 1 && !unicode.IsDigit(rune(t[0])) {
				continue
			}
			n++
			if q.set[t] {
				in++
			}
		}
	}
	if n == 0 {
		return 1
	}
	return float64(in) / float64(n)
}

// expansion finds the expansion of acronym x in words ws: a run of words
// right before "(x)" or right after "x:" / "x (" / "x stands for" whose
// capital letters, or else the initials of its content words, spell x.
// It returns the word range, or ok false.
func expansion(ws []word, x string) (a, b int, ok bool) {
	key := strings.ToUpper(lettersOnly(x))
	if len(key) < 2 {
		return 0, 0, false
	}
	maxLen := 3 * len(key)
	for i, w := range ws {
		if strings.ToUpper(lettersOnly(w.text)) != key {
			continue
		}
		// Before: "Row and Column Access Control (RCAC)".
		for n := 2; n <= maxLen && i-n >= 0; n++ {
			if ws[i-1].brk && !(w.open) || strings.ToUpper(lettersOnly(ws[i-n].text)) == key {
				break
			}
			if spells(ws[i-n:i], key) {
				return i - n, i, true
			}
		}
		// After: "SPECTER: Scientific Paper Embeddings …", "RCAC (Row …)".
		j := i + 1
		if j < len(ws) && strings.EqualFold(ws[j].text, "stands") {
			j++
			if j < len(ws) && strings.EqualFold(ws[j].text, "for") {
				j++
			}
		}
		for n := 2; n <= maxLen && j+n <= len(ws); n++ {
			if strings.ToUpper(lettersOnly(ws[j+n-1].text)) == key {
				break
			}
			if spells(ws[j:j+n], key) {
				return j, j + n, true
			}
			if ws[j+n-1].brk && n > 1 {
				break
			}
		}
	}
	return 0, 0, false
}

func lettersOnly(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// spells reports whether words ws spell key: by their capital letters
// ("Scientific Paper Embeddings using Citation-informed TransformERs" is
// SPECTER), or by the initials of their words other than connectors ("row
// and column access control" is RCAC). The first word must start with the
// key's first letter.
func spells(ws []word, key string) bool {
	if len(ws) == 0 {
		return false
	}
	first, _ := utf8.DecodeRuneInString(ws[0].text)
	if unicode.ToUpper(first) != rune(key[0]) {
		return false
	}
	var caps, inits strings.Builder
	for _, w := range ws {
		for _, r := range w.text {
			if unicode.IsUpper(r) {
				caps.WriteRune(r)
			}
		}
		lw := strings.ToLower(w.text)
		if connectors[lw] || lw == "the" || lw == "in" || lw == "on" || lw == "to" || lw == "with" || lw == "using" || lw == "a" {
			continue
		}
		for _, part := range strings.FieldsFunc(w.text, func(r rune) bool { return r == '-' || r == '/' }) {
			r, _ := utf8.DecodeRuneInString(part)
			inits.WriteRune(unicode.ToUpper(r))
		}
	}
	return caps.String() == key || inits.String() == key
}
