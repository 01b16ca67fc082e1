package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrPyLiteral is returned (wrapped) by ParsePyLiteral for text that is not a
// supported Python literal.
var ErrPyLiteral = errors.New("eval: bad Python literal")

// maxPyDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxPyDepth = 64

// ParsePyLiteral parses the subset of Python literal syntax that the
// VisDoMBench CSV and JSONL files use for list columns: lists and tuples,
// dicts, strings in single or double quotes (with backslash escapes and
// implicit concatenation of adjacent strings), integers, floats, True, False
// and None. Lists and tuples become []any, dicts map[string]any (keys are
// rendered with fmt when not strings), strings string, numbers float64 (or
// int64 when integral without a fraction or exponent), booleans bool and None
// nil. It is what Python's ast.literal_eval accepts for these types, and no
// more: there is no expression evaluation.
func ParsePyLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errorf("trailing text")
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errorf(format string, a ...any) error {
	return fmt.Errorf("%w: %s at byte %d", ErrPyLiteral, fmt.Sprintf(format, a...), p.i)
}

func (p *pyParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > maxPyDepth {
		return nil, p.errorf("nesting deeper than %d", maxPyDepth)
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '[':
		return p.seq(depth, ']')
	case c == '(':
		return p.seq(depth, ')')
	case c == '{':
		return p.dict(depth)
	case c == '\'' || c == '"':
		var b strings.Builder
		for {
			s, err := p.str()
			if err != nil {
				return nil, err
			}
			b.WriteString(s)
			p.space()
			if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
				return b.String(), nil
			}
		}
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, w := range []struct {
			word string
			v    any
		}{{"True", true}, {"False", false}, {"None", nil}} {
			if strings.HasPrefix(p.s[p.i:], w.word) {
				p.i += len(w.word)
				return w.v, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *pyParser) seq(depth int, end byte) (any, error) {
	p.i++ // opening bracket
	out := []any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated sequence")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case end:
			p.i++
			return out, nil
		default:
			return nil, p.errorf("expected ',' or %q", end)
		}
	}
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++
	out := map[string]any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("expected ':'")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			ks = fmt.Sprint(k)
		}
		out[ks] = v
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated dict")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return out, nil
		default:
			return nil, p.errorf("expected ',' or '}'")
		}
	}
}

// str reads one quoted string (no prefixes such as r or b).
func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case '\\', '\'', '"':
				b.WriteByte(e)
			case '\n':
				// line continuation
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if p.i+n > len(p.s) {
					return "", p.errorf("short \\%c escape", e)
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", p.errorf("bad \\%c escape", e)
				}
				b.WriteRune(rune(r))
				p.i += n
			default:
				// Python keeps unknown escapes verbatim.
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case c == '\n':
			return "", p.errorf("newline in string")
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE_", p.s[p.i]) >= 0 {
		p.i++
	}
	t := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if !strings.ContainsAny(t, ".eE") {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		p.i = start
		return nil, p.errorf("bad number %q", t)
	}
	return f, nil
}

// pyStrings parses a Python-literal list of strings, such as the documents
// column "['a.pdf', 'b.pdf']".
func pyStrings(s string) ([]string, error) {
	v, err := ParsePyLiteral(s)
	if err != nil {
		return nil, err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: want a list, got %T", ErrPyLiteral, v)
	}
	out := make([]string, len(l))
	for i, x := range l {
		if out[i], ok = x.(string); !ok {
			return nil, fmt.Errorf("%w: element %d is %T, want string", ErrPyLiteral, i, x)
		}
	}
	return out, nil
}

// pyTable parses a Python-literal list of lists of cells (table_array).
// Non-string cells are rendered with fmt.
func pyTable(s string) ([][]string, error) {
	v, err := ParsePyLiteral(s)
	if err != nil {
		return nil, err
	}
	rows, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: table: want a list, got %T", ErrPyLiteral, v)
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		cells, ok := r.([]any)
		if !ok {
			return nil, fmt.Errorf("%w: table row %d is %T, want list", ErrPyLiteral, i, r)
		}
		out[i] = make([]string, len(cells))
		for j, c := range cells {
			if s, ok := c.(string); ok {
				out[i][j] = s
			} else {
				out[i][j] = fmt.Sprint(c)
			}
		}
	}
	return out, nil
}

// pyCells parses a Python-literal list of [row, col] pairs.
func pyCells(s string) ([][2]int, error) {
	v, err := ParsePyLiteral(s)
	if err != nil {
		return nil, err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: cells: want a list, got %T", ErrPyLiteral, v)
	}
	out := make([][2]int, 0, len(l))
	for i, x := range l {
		pair, ok := x.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("%w: cell %d is not a pair", ErrPyLiteral, i)
		}
		var rc [2]int
		for k, e := range pair {
			n, ok := e.(int64)
			if !ok || n < 0 || n > 1<<30 {
				return nil, fmt.Errorf("%w: cell %d has a bad index %v", ErrPyLiteral, i, e)
			}
			rc[k] = int(n)
		}
		out = append(out, rc)
	}
	return out, nil
}
