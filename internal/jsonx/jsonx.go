// Package jsonx extracts a JSON value from a language model's output, which
// often wraps it in prose, in Markdown ``` fences, or after a <think> block,
// and sometimes leaves a trailing comma.
//
// Extract tries, in order, until one candidate decodes into the target:
//  1. the whole output, with <think>…</think> blocks removed and trimmed;
//  2. the body of each ``` fence (any language tag), in order;
//  3. each balanced {…} or […] span (brackets inside strings ignored), in
//     order of its opening bracket, at most MaxSpans of them;
//
// and then the same candidates once more with trailing commas before a
// closing bracket removed. A candidate that is valid JSON but does not fit
// the target's type (an array where an object is wanted) is skipped, and the
// target is only written on success.
//
// Failures wrap both ErrNoJSON and llm.ErrInvalidOutput, so callers can test
// either with errors.Is without wrapping again.
package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/flowreader/flowreader/llm"
)

// ErrNoJSON: no candidate in the text decodes into the target.
var ErrNoJSON = errors.New("jsonx: no JSON value fits")

// MaxSpans bounds the bracket spans tried, so that adversarial output with
// many brackets costs linear, not quadratic, time in practice.
const MaxSpans = 64

// Extract decodes the first JSON value in s that fits v (a non-nil pointer).
func Extract(s string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("jsonx: Extract needs a non-nil pointer, got %T", v)
	}
	cands := candidates(s)
	for _, repair := range []bool{false, true} {
		for _, c := range cands {
			if repair {
				r := dropTrailingCommas(c)
				if r == c {
					continue
				}
				c = r
			}
			if !json.Valid([]byte(c)) {
				continue
			}
			fresh := reflect.New(rv.Elem().Type())
			if json.Unmarshal([]byte(c), fresh.Interface()) == nil {
				rv.Elem().Set(fresh.Elem())
				return nil
			}
		}
	}
	return fmt.Errorf("%w: %w in %q", llm.ErrInvalidOutput, ErrNoJSON, clip(s, 120))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// candidates lists the texts to try, in the order of the package doc.
func candidates(s string) []string {
	s = stripThink(s)
	out := []string{strings.TrimSpace(s)}
	out = append(out, fences(s)...)
	out = append(out, spans(s, MaxSpans)...)
	return out
}

// stripThink removes <think>…</think> blocks; an unclosed block runs to the
// end of the text only if no JSON follows, so it is cut at its opening tag.
func stripThink(s string) string {
	for {
		i := strings.Index(s, "<think>")
		if i < 0 {
			// A reasoning model may emit only the closing tag.
			if j := strings.Index(s, "</think>"); j >= 0 {
				s = s[j+len("</think>"):]
				continue
			}
			return s
		}
		j := strings.Index(s[i:], "</think>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</think>"):]
	}
}

// fences returns the bodies of ``` blocks, dropping a language tag on the
// opening line.
func fences(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			return out
		}
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
			rest = rest[nl+1:]
		}
		j := strings.Index(rest, "```")
		if j < 0 {
			out = append(out, strings.TrimSpace(rest))
			return out
		}
		out = append(out, strings.TrimSpace(rest[:j]))
		s = rest[j+3:]
	}
}

// spans returns up to max balanced bracket spans, by opening position.
func spans(s string, max int) []string {
	var out []string
	for i := 0; i < len(s) && len(out) < max; i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		if end := closing(s, i); end > 0 {
			out = append(out, s[i:end])
		}
	}
	return out
}

// closing returns the index just past the bracket closing s[start], or -1.
func closing(s string, start int) int {
	var stack []byte
	inStr, esc := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// dropTrailingCommas removes commas (and the blanks after them) that are
// directly followed by } or ], outside strings.
func dropTrailingCommas(s string) string {
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			b.WriteByte(c)
			continue
		}
		if c == '"' {
			inStr = true
		}
		if c == ',' {
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r') {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
