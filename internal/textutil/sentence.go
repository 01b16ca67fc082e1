package textutil

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations do not end a sentence when followed by a period. Lower-case
// keys, without the period.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "fig": true, "figs": true, "eq": true, "eqs": true,
	"tab": true, "sec": true, "no": true, "vs": true, "al": true, "dr": true, "mr": true,
	"mrs": true, "ms": true, "prof": true, "st": true, "approx": true, "cf": true, "ref": true,
}

// Sentences splits s into sentences, each trimmed of surrounding white
// space; empty sentences are dropped. The split is conservative: text
// without a sentence end is one sentence.
func Sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		end := i + w
		if isTerminal(r) {
			// Absorb closing quotes, brackets and repeated terminals.
			for end < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[end:])
				if isTerminal(r2) || strings.ContainsRune(`"')]}’”`, r2) {
					end += w2
					continue
				}
				break
			}
			if sentenceEnd(s, i, r, end) {
				if t := strings.TrimSpace(s[start:end]); t != "" {
					out = append(out, t)
				}
				start = end
			}
		}
		i = end
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

func isTerminal(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？':
		return true
	}
	return false
}

// sentenceEnd decides whether the terminal rune r at byte i (whose run ends
// at end) closes a sentence.
func sentenceEnd(s string, i int, r rune, end int) bool {
	if r == '。' || r == '！' || r == '？' {
		return true
	}
	if end < len(s) {
		next, _ := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsSpace(next) {
			return false
		}
	}
	if r != '.' {
		return true
	}
	// The word before the period.
	j := i
	for j > 0 {
		p, w := utf8.DecodeLastRuneInString(s[:j])
		if unicode.IsSpace(p) || p == '(' || p == '[' {
			break
		}
		j -= w
	}
	word := s[j:i]
	if utf8.RuneCountInString(word) == 1 {
		if c, _ := utf8.DecodeRuneInString(word); unicode.IsUpper(c) {
			return false // an initial: "J. Smith"
		}
	}
	return !abbreviations[strings.ToLower(word)]
}
