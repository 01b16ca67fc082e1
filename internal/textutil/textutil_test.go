package textutil

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One. Two! Three?", []string{"One.", "Two!", "Three?"}},
		{"Pi is 3.14 here. See Fig. 2 and e.g. Table 3. Done", []string{"Pi is 3.14 here.", "See Fig. 2 and e.g. Table 3.", "Done"}},
		{"J. Smith wrote it. Then \"he left.\" Next", []string{"J. Smith wrote it.", "Then \"he left.\"", "Next"}},
		{"第一句。第二句！", []string{"第一句。", "第二句！"}},
		{"no end", []string{"no end"}},
	}
	for _, c := range cases {
		if got := Sentences(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Sentences(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWords(t *testing.T) {
	got := Words("State-of-the-art results: 3.14, 1,024 items; don't stop -- Table 3.")
	want := []string{"State-of-the-art", "results", "3.14", "1,024", "items", "don't", "stop", "Table", "3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Words = %q, want %q", got, want)
	}
	for _, s := range []string{"", "a b c", want[0] + " x", "3.14 ,, a-b 'q' a.b x-", "héllo wörld"} {
		if CountWords(s) != len(Words(s)) {
			t.Errorf("CountWords(%q) = %d, Words gives %d", s, CountWords(s), len(Words(s)))
		}
	}
}

func FuzzWords(f *testing.F) {
	f.Add("State-of-the-art 3.14 don't")
	f.Add("a. B! c?")
	f.Fuzz(func(t *testing.T, s string) {
		ws := Words(s)
		for _, w := range ws {
			if !strings.Contains(s, w) || w == "" {
				t.Fatalf("word %q not in input", w)
			}
		}
		for _, x := range Sentences(s) {
			if !strings.Contains(s, x) || x == "" {
				t.Fatalf("sentence %q not in input", x)
			}
		}
	})
}

func ExampleSentences() {
	for _, s := range Sentences("Fig. 2 shows 3.5 mm of rain. It fell in May!") {
		fmt.Println(s)
	}
	// Output:
	// Fig. 2 shows 3.5 mm of rain.
	// It fell in May!
}
