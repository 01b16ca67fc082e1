package reader

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopwords are left out of lexical matching: they carry no evidence.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been by did do does for from had has have how in into is it its
		of on or that the their there these this those to was were what when where which who whom whose why will with
		than then also not no yes can could should would may might i you he she they we our your his her them
		about after before during per each any all most more less many much some such between over under`) {
		m[w] = true
	}
	return m
}()

// tokens splits s into lowercase words of letters and digits (a decimal
// point or comma between digits stays inside the number), without stopwords.
func tokens(s string) []string {
	var out []string
	var b strings.Builder
	// upper counts the capitals the word opens with, while it has only
	// capitals: "RQs" is the plural of "RQ", which stem leaves whole (too
	// short to fold).
	upper, n := 0, 0
	emit := func() {
		if b.Len() > 0 {
			w := b.String()
			if upper >= 2 && n == upper+1 && strings.HasSuffix(w, "s") {
				w = w[:len(w)-1]
			}
			if !stopwords[w] {
				out = append(out, w)
			}
			b.Reset()
		}
		upper, n = 0, 0
	}
	prev := rune(0)
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && upper == n {
				upper++
			}
			n++
			b.WriteRune(unicode.ToLower(r))
		case (r == '.' || r == ',') && unicode.IsDigit(prev) && i+1 < len(s) && isDigitAt(s, i+1):
			if r == '.' {
				b.WriteRune(r)
			}
		default:
			emit()
		}
		prev = r
	}
	emit()
	return out
}

func isDigitAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsDigit(r)
}

// stem folds the most common English inflections so that "storms" matches
// "storm" and "recorded" matches "record". It is deliberately light: a wrong
// fold costs less here than a missed match.
func stem(w string) string {
	if len(w) <= 3 || isNumber(w) {
		return w
	}
	for _, suf := range []string{"ies", "es", "s", "ed", "ing"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			base := w[:len(w)-len(suf)]
			switch suf {
			case "ies":
				return base + "y"
			case "es":
				if strings.HasSuffix(base, "s") || strings.HasSuffix(base, "x") || strings.HasSuffix(base, "ch") || strings.HasSuffix(base, "sh") {
					return base
				}
				return base + "e"
			case "s":
				if strings.HasSuffix(base, "s") {
					return w
				}
			}
			return base
		}
	}
	return w
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) && r != '.' {
			return false
		}
	}
	return true
}

// stems returns the stemmed tokens of s.
func stems(s string) []string {
	ts := tokens(s)
	for i, t := range ts {
		ts[i] = stem(t)
	}
	return ts
}

// overlap is the fraction of the distinct terms of a that occur in b.
func overlap(a, b []string) float64 {
	if len(a) == 0 {
		return 0
	}
	in := make(map[string]bool, len(b))
	for _, t := range b {
		in[t] = true
	}
	seen := map[string]bool{}
	hit := 0
	for _, t := range a {
		if seen[t] {
			continue
		}
		seen[t] = true
		if in[t] {
			hit++
		}
	}
	return float64(hit) / float64(len(seen))
}

// sentences splits prose into sentences at ., ! or ? followed by space and
// an upper-case letter, digit or quote, and at line breaks that end a list
// item or paragraph. Abbreviations such as "Dr." or "e.g." and decimal
// points do not split.
func sentences(s string) []string {
	var out []string
	for _, para := range splitLines(s) {
		start := 0
		rs := []rune(para)
		for i := 0; i < len(rs); i++ {
			r := rs[i]
			if r != '.' && r != '!' && r != '?' {
				continue
			}
			j := i + 1
			for j < len(rs) && (rs[j] == '"' || rs[j] == '\'' || rs[j] == ')' || rs[j] == '”') {
				j++
			}
			if j >= len(rs) || !unicode.IsSpace(rs[j]) {
				continue
			}
			k := j
			for k < len(rs) && unicode.IsSpace(rs[k]) {
				k++
			}
			if k < len(rs) && !(unicode.IsUpper(rs[k]) || unicode.IsDigit(rs[k]) || rs[k] == '"' || rs[k] == '“') {
				continue
			}
			if r == '.' && abbreviation(rs[start:i]) {
				continue
			}
			if t := strings.TrimSpace(string(rs[start:j])); t != "" {
				out = append(out, t)
			}
			start = k
			i = k - 1
		}
		if t := strings.TrimSpace(string(rs[start:])); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// abbreviation reports whether the word before a period is a common
// abbreviation or a single letter (an initial).
func abbreviation(before []rune) bool {
	i := len(before)
	for i > 0 && !unicode.IsSpace(before[i-1]) {
		i--
	}
	w := strings.ToLower(string(before[i:]))
	switch w {
	case "dr", "mr", "mrs", "ms", "prof", "st", "no", "fig", "eq", "vs", "al", "e.g", "i.e", "etc", "approx", "sec", "tab", "vol", "pp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec":
		return true
	}
	r := []rune(string(before[i:]))
	return len(r) == 1 && unicode.IsUpper(r[0])
}

// splitLines splits s at blank lines and at line breaks before list items
// or table rows; other line breaks are soft (wrapped prose).
func splitLines(s string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		if listItem(t) || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "#") {
			flush()
			out = append(out, t)
			continue
		}
		cur = append(cur, t)
	}
	flush()
	return out
}

// listItem reports whether a line starts a Markdown list item.
func listItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") || strings.HasPrefix(t, "• ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}
