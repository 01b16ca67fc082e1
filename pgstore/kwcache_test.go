package pgstore

import (
	"slices"
	"testing"
)

// TestSharedKeywords: the keywords of two or more lists, each once, in
// their first occurrence's order (a list holds a keyword once).
func TestSharedKeywords(t *testing.T) {
	for _, c := range []struct {
		in   [][]string
		want []string
	}{
		{nil, nil},
		{[][]string{{"a", "b"}}, nil},
		{[][]string{{"a", "b"}, {"c"}, {"b", "d"}, {"d", "a"}, {"b"}}, []string{"b", "d", "a"}},
		{[][]string{{}, {"x"}, {}, {"x"}}, []string{"x"}},
	} {
		if got := sharedKeywords(c.in); !slices.Equal(got, c.want) {
			t.Errorf("sharedKeywords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
