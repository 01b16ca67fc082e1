package local

import (
	"strings"
	"unicode"
)

// tokens lowercases s and splits it on every rune that is neither a letter
// nor a digit, the tokenisation the embedder and the vocabulary share.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stopWords is a common English stop list (function words, auxiliaries,
// pronouns), together with the fragments that splitting contractions on the
// apostrophe leaves behind ("don't" → "don", "t").
const stopWords = `a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more most my
myself no nor not now of off on once only or other our ours ourselves out over own same she should so some
such than that the their theirs them themselves then there these they this those through to too under until
up very was we were what when where which while who whom why will with would you your yours yourself
yourselves s t d ll m re ve don didn doesn isn wasn aren weren won wouldn shouldn couldn hasn haven hadn`

func stopSet() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(stopWords) {
		m[w] = true
	}
	return m
}
