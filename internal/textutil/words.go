package textutil

import (
	"unicode"
	"unicode/utf8"
)

// Words returns the words of s in order: maximal runs of letters and
// digits, keeping inner apostrophes and hyphens ("don't", "state-of-the-art")
// and a period or comma between digits ("3.14", "1,024").
func Words(s string) []string {
	var out []string
	scan(s, func(a, b int) { out = append(out, s[a:b]) })
	return out
}

// CountWords returns len(Words(s)) without allocating the words.
func CountWords(s string) int {
	n := 0
	scan(s, func(int, int) { n++ })
	return n
}

// scan calls fn with the byte bounds of each word of s.
func scan(s string, fn func(a, b int)) {
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += w
			continue
		}
		start := i
		prev := r
		i += w
		for i < len(s) {
			r, w = utf8.DecodeRuneInString(s[i:])
			if isWordRune(r) {
				prev = r
				i += w
				continue
			}
			if i+w < len(s) && (r == '\'' || r == '’' || r == '-' || r == '.' || r == ',') {
				next, _ := utf8.DecodeRuneInString(s[i+w:])
				joins := isWordRune(prev) && isWordRune(next)
				if r == '.' || r == ',' {
					joins = unicode.IsDigit(prev) && unicode.IsDigit(next)
				}
				if joins {
					prev = r
					i += w
					continue
				}
			}
			break
		}
		fn(start, i)
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
