package graph

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// segmentBreak is the expression isSegmentBreak replaced: the oracle.
var segmentBreak = regexp.MustCompile(`[:;|()\[\]\n]+`)

func checkPrefilter(t *testing.T, s string) {
	t.Helper()
	if !mayHoldIdentifier(s) && identifier.MatchString(s) {
		t.Fatalf("%q: identifier matches %q, the prefilter says it cannot", s, identifier.FindString(s))
	}
	var want []string
	for _, seg := range segmentBreak.Split(s, -1) {
		if seg != "" {
			want = append(want, seg)
		}
	}
	if got := strings.FieldsFunc(s, isSegmentBreak); !slices.Equal(got, want) {
		t.Fatalf("%q: segments %q, the expression's %q", s, got, want)
	}
}

// TestIdentifierPrefilter: whenever identifier matches, the prefilter lets
// the text through (random texts built from the words it looks for, in
// every case, with and without non-ASCII letters), and the segments are
// the expression's less its empty ones.
func TestIdentifierPrefilter(t *testing.T) {
	for _, s := range []string{"Table 3", "see fig. 2b", "FIG 4", "ſection 4", "Sec. 2", "Eq. 7", "tab. 1", "Slide 12",
		"no reference here", "", "a: b; c|(d)[e]\nf", "::", "Table", "tabular 3", "stable 3", "frequency", "_Table 3", "x.table 3", "3table 4", "fig.\t\n2", "table\vA", "second Sun", "tab.3", "fig A", "eq.B"} {
		checkPrefilter(t, s)
	}
	parts := []string{"figure", "Fig.", "TABLE", "tab.", "Section", "sec.", "Equation", "eq.", "Algorithm", "appendix",
		"Listing", "chart", "SLIDE", "fi", "ta", "se", "e", "stable", "frequency", "_", "x_", "9", "\t", "\r", "\f", "\v", "Z", "a", "second", ".", "3", "4.1", "2b", "A", " ", "  ", ":", ";", "|", "(", ")",
		"[", "]", "\n", "é", "ſ", "K", "the", "flow", "x"}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.IntN(8); n >= 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		checkPrefilter(t, b.String())
	}
}

func FuzzIdentifierPrefilter(f *testing.F) {
	for _, s := range []string{"Table 3", "ſection 4", "a: b; c", "fig.2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkPrefilter(t, s) })
}

// BenchmarkSalientTerms: a passage that references nothing (most of a
// Wikipedia-like corpus) and one that does.
func BenchmarkSalientTerms(b *testing.B) {
	plain := "Kestrel Bay is a small harbour town on the northern coast, founded in 1843 by whalers from Nantucket. " +
		"Its population was 4,212 at the 2020 census, and its economy rests on fishing, ferries to the Aurora Islands " +
		"and a frequently requested summer festival of sea shanties held every other weekend of July."
	for _, c := range []struct{ name, text string }{{"plain", plain}, {"references", plain + " See Table 3 and Fig. 2b."}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				salientTerms(offlineKeywords, c.text)
			}
		})
	}
}
