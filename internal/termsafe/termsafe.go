// Package termsafe makes text from outside the program safe to print: to a
// terminal (documents, model answers and file names may hold control
// characters and escape sequences: ESC [2J clears the screen, OSC 0 sets
// the window title, OSC 52 writes the clipboard, a newline in a file name
// forges an output line) and to a log (URLs may carry a password).
//
// Text replaces every C0 control character (U+0000–U+001F, tab excepted),
// DEL, every C1 control character (U+0080–U+009F, among them the 8-bit
// CSI and OSC introducers), the Unicode line and paragraph separators, the
// bidirectional overrides and isolates (which reorder what is shown) and
// invalid UTF-8 by a visible escape: \n, \r, \e for ESC, \xNN for a byte or
// \u{NNNN} for a code point. Printable text (backslashes included), tabs
// and non-ASCII letters pass unchanged, so ordinary answers print as
// before.
package termsafe

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Text returns s with what a terminal would interpret escaped (see the
// package doc). It returns s itself when there is nothing to escape.
func Text(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if c >= 0x80 && !unsafeRune(r, n) {
			i += n
			continue
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' {
			b.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case c < 0x80 || r == utf8.RuneError && n == 1:
			switch c {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case 0x1b:
				b.WriteString(`\e`)
			default:
				fmt.Fprintf(&b, `\x%02x`, c)
			}
			i++
		case unsafeRune(r, n):
			fmt.Fprintf(&b, `\u{%04x}`, r)
			i += n
		default:
			b.WriteString(s[i : i+n])
			i += n
		}
	}
	return b.String()
}

// unsafeRune reports whether the n-byte rune r (decoded from bytes ≥ 0x80)
// is invalid UTF-8 or a character a terminal acts on or that reorders text.
func unsafeRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r >= 0x80 && r <= 0x9f: // C1 controls: CSI, OSC, ST, ...
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidirectional marks, embeddings, overrides and isolates
	}
	return false
}

// URL returns s with the password of a URL's userinfo redacted
// (url.URL.Redacted: "http://alice:xxxxx@host/v1"). A string that does not
// parse as a URL with a host is returned with anything between "://" and
// the next "@" before the first "/" replaced, so that a malformed URL does
// not leak either.
func URL(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		if u.User == nil {
			return s
		}
		if _, ok := u.User.Password(); !ok {
			u.User = url.User("xxxxx")
		}
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	host, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		s = scheme + "://xxxxx@" + host[at+1:]
		if path != "" || strings.Contains(rest, "/") {
			s += "/" + path
		}
	}
	return s
}
