package eval

import (
	"errors"
	"reflect"
	"testing"
)

func TestParsePyLiteral(t *testing.T) {
	cases := []struct {
		in   string
		want any
	}{
		{`['a.pdf', "b's.pdf"]`, []any{"a.pdf", "b's.pdf"}},
		{`[[0, 1], (2, -3)]`, []any{[]any{int64(0), int64(1)}, []any{int64(2), int64(-3)}}},
		{`{'answer': 'x', 'type': None, 'n': 1.5, 'ok': True}`, map[string]any{"answer": "x", "type": nil, "n": 1.5, "ok": true}},
		{`'it\'s' "cat"`, "it'scat"},
		{`'\u00e9\x41\n\q'`, "éA\n\\q"},
		{`[]`, []any{}},
		{` [1, ] `, []any{int64(1)}},
	}
	for _, c := range cases {
		got, err := ParsePyLiteral(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParsePyLiteral(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{``, `[`, `['a'`, `'abc`, `[1 2]`, `{1}`, `nan`, `[1]]`, `'\x4'`, "'a\nb'"} {
		if _, err := ParsePyLiteral(bad); !errors.Is(err, ErrPyLiteral) {
			t.Errorf("ParsePyLiteral(%q): err %v, want ErrPyLiteral", bad, err)
		}
	}
	deep := ""
	for i := 0; i < 100; i++ {
		deep += "["
	}
	if _, err := ParsePyLiteral(deep); !errors.Is(err, ErrPyLiteral) {
		t.Errorf("deep nesting: %v", err)
	}
}

func TestPyHelpers(t *testing.T) {
	if _, err := pyCells("[[1, -2]]"); !errors.Is(err, ErrPyLiteral) {
		t.Errorf("negative cell: %v", err)
	}
	if _, err := pyStrings("[1]"); !errors.Is(err, ErrPyLiteral) {
		t.Errorf("non-string: %v", err)
	}
	tab, err := pyTable("[['a', 1], ['b', None]]")
	if err != nil || !reflect.DeepEqual(tab, [][]string{{"a", "1"}, {"b", "<nil>"}}) {
		t.Errorf("pyTable: %q %v", tab, err)
	}
}

func FuzzParsePyLiteral(f *testing.F) {
	for _, s := range []string{`['a.pdf', 'b.pdf']`, `[[1, 2], [3, 4]]`, `[{'answer': 'x', 'type': 'extractive'}]`, `'\u00e9'`, `(1.5e3, -2, None, True)`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePyLiteral(s)
		if err != nil {
			if !errors.Is(err, ErrPyLiteral) {
				t.Fatalf("error not wrapping ErrPyLiteral: %v", err)
			}
			return
		}
		_ = v
		_, _ = pyTable(s)
		_, _ = pyCells(s)
		_, _ = pyStrings(s)
	})
}
