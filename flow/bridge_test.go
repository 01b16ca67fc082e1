package flow

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// TestNormKeywordFastPath checks asciiPunct against unicode.IsPunct on all
// of ASCII, and normKeyword (with its fast path) against the plain rule on
// random strings over an alphabet of letters, digits, punctuation, symbols,
// spaces, control and non-ASCII characters; the fast path must be taken
// for some of them.
func TestNormKeywordFastPath(t *testing.T) {
	for b := 0; b < 0x80; b++ {
		if asciiPunct(byte(b)) != unicode.IsPunct(rune(b)) {
			t.Fatalf("asciiPunct(%q) = %v", rune(b), asciiPunct(byte(b)))
		}
	}
	alphabet := []rune("abcxyzABZ0129 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\t\n\x7fé É\u00a0")
	rng := rand.New(rand.NewPCG(8, 8))
	fast := 0
	for trial := 0; trial < 20000; trial++ {
		var sb strings.Builder
		n := rng.IntN(12)
		for i := 0; i < n; i++ {
			if rng.IntN(3) == 0 {
				sb.WriteRune(alphabet[rng.IntN(len(alphabet))])
			} else {
				sb.WriteByte("abcdefghij 0123"[rng.IntN(15)])
			}
		}
		k := sb.String()
		want := normKeywordRule(k)
		if got := normKeyword(k); got != want {
			t.Fatalf("normKeyword(%q) = %q, want %q", k, got, want)
		}
		if isNormKeyword(k) {
			fast++
			if want != k {
				t.Fatalf("isNormKeyword(%q) but its normal form is %q", k, want)
			}
		}
	}
	if fast < 1000 {
		t.Fatalf("fast path taken %d times: the test would not bite", fast)
	}
}
