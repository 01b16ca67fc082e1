package score

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// Reference types, the normalised Ref.Type values.
const (
	refFigure    = "figure"
	refTable     = "table"
	refSection   = "section"
	refEquation  = "equation"
	refSlide     = "slide"
	refAppendix  = "appendix"
	refAlgorithm = "algorithm"
)

// refID is an identifier: "A.1", "3", "4.1", "2b", "S1", a roman numeral or
// a single letter (validated after matching). Optional parentheses allow
// "Eq. (5)".
const refID = `\(?([a-z](?:\.\d+)+|[a-z]?\d+(?:\.\d+)*[a-z]?|[a-z]+)\)?\b`

// refHeadExpr is the reference pattern, extended with plurals (for lists),
// "Eq.", "Appendix A" and parenthesised identifiers.
const refHeadExpr = `(?:\b(figures?|figs?\.?|tables?|tabs?\.?|sections?|secs?\.?|equations?|eqns?\.?|eqs?\.?|slides?|appendix|appendices|algorithms?|algs?\.?)|(§§?))\s*` + refID

// The regexps are compiled once; regexp values are safe for concurrent use.
// refHead finds a reference anywhere.
var (
	refHead = regexp.MustCompile(`(?i)` + refHeadExpr)
	// refPrefix is refHead anchored at the start (after white space), so a
	// summary that does not start with a label is rejected at once.
	refPrefix = regexp.MustCompile(`^(?i)\s*` + refHeadExpr)
	// refMore continues a list: "Tables 2 and 3", "Figs. 2, 3, and 5",
	// "Figs. 2-4", "Sections 3 to 5".
	refMore  = regexp.MustCompile(`^(?i)(\s*,\s*(?:and\s+|or\s+|&\s*)?|\s+(?:and|or|&)\s+|\s*(?:-|–|—)\s*|\s+to\s+)` + refID)
	romanRe  = regexp.MustCompile(`^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$`)
	subfigRe = regexp.MustCompile(`^[a-z]?\d+[a-z]$`)
)

// maxRange caps the expansion of a range such as "Figs. 2-4".
const maxRange = 50

func refType(head string) string {
	h := strings.ToLower(strings.TrimSuffix(head, "."))
	switch {
	case strings.HasPrefix(h, "fig"):
		return refFigure
	case strings.HasPrefix(h, "tab"):
		return refTable
	case strings.HasPrefix(h, "sec"), strings.HasPrefix(h, "§"):
		return refSection
	case strings.HasPrefix(h, "eq"):
		return refEquation
	case strings.HasPrefix(h, "slide"):
		return refSlide
	case strings.HasPrefix(h, "append"):
		return refAppendix
	case strings.HasPrefix(h, "alg"):
		return refAlgorithm
	}
	return ""
}

// validID reports whether a lower-case identifier is acceptable for type t:
// anything with a digit, a roman numeral, or a single letter for appendices.
func validID(t, id string) bool {
	if id == "" {
		return false
	}
	if hasDigit(id) {
		return true
	}
	if len(id) == 1 && t == refAppendix {
		return true
	}
	return romanRe.MatchString(id)
}

// extractRefs returns the references a text makes, in order of appearance and
// without duplicates: "Figure 3", "Fig. 2b", "Table II", "Tables 2 and 3",
// "Figs. 2-4", "Section 4.1", "§3", "slide 7", "Eq. (5)", "Appendix A",
// "Algorithm 1". Types are normalised to the ref* constants and identifiers
// lower-cased; a range of plain numbers ("2-4") is expanded. It is rule-based
// (paper v3 §3.1 spends no model call on ℓ) and never fails: text without
// references gives nil.
func extractRefs(text string) []Ref {
	var out []Ref
	seen := make(map[Ref]bool) // looked up, never iterated
	refsFrom(text, allRefs, func(r Ref) bool {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
		return true
	})
	return out
}

// refMode says which references refsFrom reports.
type refMode uint8

const (
	allRefs    refMode = iota // every reference
	firstList                 // the first reference and the list it starts
	prefixList                // as firstList, but only if it starts the text
)

// refsFrom calls emit for the references in text that mode selects; emit
// returns false to stop.
func refsFrom(text string, mode refMode, emit func(Ref) bool) {
	if !mayRef(text) { // most texts: no regexp run at all
		return
	}
	prefixOnly := mode == prefixList
	pos := 0
	for pos < len(text) {
		re := refHead
		if prefixOnly {
			re = refPrefix
		}
		m := re.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			return
		}
		start, end := pos+m[0], pos+m[1]
		if prefixOnly && strings.TrimSpace(text[:start]) != "" {
			return
		}
		head := ""
		if m[2] >= 0 {
			head = text[pos+m[2] : pos+m[3]]
		} else {
			head = text[pos+m[4] : pos+m[5]]
		}
		t := refType(head)
		id := strings.ToLower(text[pos+m[6] : pos+m[7]])
		if !validID(t, id) {
			if mode != allRefs && prefixOnly {
				return
			}
			pos = end
			continue
		}
		if !emit(Ref{Type: t, ID: id}) {
			return
		}
		prev := id
		for end < len(text) {
			c := refMore.FindStringSubmatchIndex(text[end:])
			if c == nil {
				break
			}
			sep := strings.TrimSpace(text[end+c[2] : end+c[3]])
			next := strings.ToLower(text[end+c[4] : end+c[5]])
			if !validID(t, next) || hasDigit(next) != hasDigit(prev) {
				break
			}
			if sep == "-" || sep == "–" || sep == "—" || strings.EqualFold(sep, "to") {
				if a, errA := strconv.Atoi(prev); errA == nil {
					if b, errB := strconv.Atoi(next); errB == nil && b > a && b-a <= maxRange {
						for k := a + 1; k < b; k++ {
							if !emit(Ref{Type: t, ID: strconv.Itoa(k)}) {
								return
							}
						}
					}
				}
			}
			if !emit(Ref{Type: t, ID: next}) {
				return
			}
			prev = next
			end += c[1]
		}
		if mode != allRefs {
			return
		}
		pos = end
	}
}

// mayRef reports whether refHead can match in text: every match starts
// with "§" or a word of refHeadExpr, all of which begin with one of fig,
// tab, sec, slide, eq, app, alg. The test is ASCII case-insensitive, so a
// text with any non-ASCII byte is always searched ((?i) folds some
// non-ASCII letters to ASCII ones, "ſ" to "s" and the Kelvin sign to "k",
// and "§" is two bytes).
func mayRef(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x80 {
			return true
		}
		switch s := text[i:]; c | 0x20 {
		case 'f':
			if foldPrefix(s, "fig") {
				return true
			}
		case 't':
			if foldPrefix(s, "tab") {
				return true
			}
		case 's':
			if foldPrefix(s, "sec") || foldPrefix(s, "slide") {
				return true
			}
		case 'e':
			if foldPrefix(s, "eq") {
				return true
			}
		case 'a':
			if foldPrefix(s, "app") || foldPrefix(s, "alg") {
				return true
			}
		}
	}
	return false
}

// foldPrefix reports whether s starts with the lower-case ASCII word w,
// ignoring ASCII case (only 'X' and 'x' give 'x' under |0x20).
func foldPrefix(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := 0; j < len(w); j++ {
		if s[j]|0x20 != w[j] {
			return false
		}
	}
	return true
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// queryKeys returns the index keys a question's reference matches: its own,
// and for a sub-figure or sub-table ("Fig. 2b") also its parent ("figure 2"),
// whose caption usually covers all panels. A node labelled "2b" is not matched
// by a question about "Figure 2": the match is one-way on purpose.
func queryKeys(r Ref) []string {
	k := []string{refKey(r)}
	if subfigRe.MatchString(r.ID) {
		k = append(k, refKey(Ref{r.Type, r.ID[:len(r.ID)-1]}))
	}
	return k
}

func refKey(r Ref) string { return r.Type + " " + r.ID }

// nodeRefs returns the references that identify a node: for a
// visual node, the label of its caption (its first reference, with the list it
// starts), the "Figure X —" label that starts its summary, and the references
// in its keywords; for a text node, the references in its keywords only, since
// the text analysis prompt copies identifiers verbatim into them and the body
// of a text chunk cites other items rather than naming itself.
func nodeRefs(n *graph.Node) []Ref {
	var out []Ref
	seen := make(map[Ref]bool) // looked up, never iterated
	add := func(r Ref) bool {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
		return true
	}
	if n.Modality != graph.ModalityText {
		refsFrom(n.Caption, firstList, add)
		refsFrom(n.Summary, prefixList, add)
	}
	for _, k := range n.Keywords {
		refsFrom(k, allRefs, add)
	}
	return out
}
