package reader

import "testing"

// Unicode spaces and invisible format characters between "<", "/" and the
// tag name read as the same tag to a model, so they are neutralised too
// (found by the reliability tests of issue 10).
func TestNeutraliseUnicodeSpacing(t *testing.T) {
	for in, want := range map[string]string{
		"<\u200b/text>":          "‹\u200b/text>",
		"<\u00a0/text>":          "‹\u00a0/text>",
		"<\u2003output>":         "‹\u2003output>",
		"<\u00adoutput>":         "‹\u00adoutput>",
		"<\ufeff/\u200bthought>": "‹\ufeff/\u200bthought>",
		"<\u200btextarea>":       "<\u200btextarea>",
	} {
		if got := neutralise(in); got != want {
			t.Errorf("neutralise(%q) = %q, want %q", in, got, want)
		}
	}
}
