package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The tester's strings: an OSC 0 title, an ED clear screen, an OSC 52
// clipboard write, 8-bit CSI, a newline forging an output line, bidi
// overrides, invalid UTF-8.
var attacks = map[string]string{
	"Kestrels \x1b]0;PWNED\x07 were \x1b[2J42": `Kestrels \e]0;PWNED\x07 were \e[2J42`,
	"\x1b]52;c;ZWNobyBwd25lZA==\x07":           `\e]52;c;ZWNobyBwd25lZA==\x07`,
	"notes\nbuild: wrote FAKE LINE.md":         `notes\nbuild: wrote FAKE LINE.md`,
	"a\rb":                                     `a\rb`,
	"\u009b31mred":                             `\u{009b}31mred`,
	"abc\u202edcba.txt":                        `abc\u{202e}dcba.txt`,
	"bad \xff\xfe utf8":                        `bad \xff\xfe utf8`,
	"line\u2028sep":                            `line\u{2028}sep`,
	"del\x7f":                                  `del\x7f`,
	"plain text, tabs\tand ü, 日本, emoji 🦅, \\n literal": "plain text, tabs\tand ü, 日本, emoji 🦅, \\n literal",
}

func TestText(t *testing.T) {
	for in, want := range attacks {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://alice:hunter2@host:8000/v1": "http://alice:xxxxx@host:8000/v1",
		"http://sk-token@host/v1":           "http://xxxxx@host/v1",
		"https://host/v1":                   "https://host/v1",
		"http://alice:hun ter2@host/v1":     "http://xxxxx@host/v1",
		"not a url":                         "not a url",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzText checks that nothing a terminal acts on survives Text, that valid
// output comes out, and that clean text is unchanged.
func FuzzText(f *testing.F) {
	for in := range attacks {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Text(%q) = %q is not valid UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || unsafeRune(r, utf8.RuneLen(r)) && r != utf8.RuneError {
				t.Fatalf("Text(%q) = %q keeps %U", s, out, r)
			}
		}
		if strings.ContainsRune(out, utf8.RuneError) && !strings.ContainsRune(s, utf8.RuneError) {
			t.Fatalf("Text(%q) = %q adds U+FFFD", s, out)
		}
		if clean(s) && out != s {
			t.Fatalf("clean %q changed to %q", s, out)
		}
	})
}

func clean(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return false
			}
		}
		if r < 0x20 && r != '\t' || r == 0x7f || unsafeRune(r, utf8.RuneLen(r)) {
			return false
		}
	}
	return true
}
