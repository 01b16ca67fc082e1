package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// binarySniff is how many leading bytes decide whether a file is text.
const binarySniff = 8 << 10

// cp1252 maps the bytes 0x80–0x9F of Windows-1252 (the superset of
// Latin-1 that legacy "Latin-1" text nearly always is); the five bytes it
// leaves undefined map to the C1 controls, as Latin-1 does.
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

// decodeText turns the bytes of a text file into valid UTF-8: a UTF-8 byte
// order mark is dropped; UTF-16 with a byte order mark (or, without one,
// the zero bytes of ASCII text in UTF-16) is decoded; bytes that are not
// UTF-8 are read as Windows-1252 when the file has no valid multi-byte
// UTF-8 at all, else replaced by U+FFFD. A guess or a repair is returned
// as a note ("" for UTF-8, or UTF-16 with a byte order mark, read as
// they are). Empty input is ErrEmpty; zero
// bytes or other binary control bytes (in a text that is not UTF-16) are
// ErrUnsupported, so that a binary file named .txt is refused rather than
// ingested as garbage.
func decodeText(data []byte) (string, string, error) {
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return "", "", fmt.Errorf("%w: no text", ErrEmpty)
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return decodeText(data[3:])
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(data[2:], false, "UTF-16LE")
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data[2:], true, "UTF-16BE")
	}
	if le, ok := utf16Guess(data); ok {
		name := "UTF-16BE"
		if le {
			name = "UTF-16LE"
		}
		return decodeUTF16(data, !le, name+" without a byte order mark")
	}
	if isBinary(data) {
		return "", "", fmt.Errorf("%w: binary content, not text", ErrUnsupported)
	}
	if utf8.Valid(data) {
		return string(data), "", nil
	}
	multi, bad := 0, 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			bad++
		case n > 1:
			multi++
		}
		i += n
	}
	if multi == 0 {
		var b strings.Builder
		b.Grow(len(data) + len(data)/4)
		for _, c := range data {
			switch {
			case c < 0x80:
				b.WriteByte(c)
			case c < 0xA0:
				b.WriteRune(cp1252[c-0x80])
			default:
				b.WriteRune(rune(c))
			}
		}
		return b.String(), "not UTF-8: decoded as Windows-1252 (Latin-1)", nil
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), fmt.Sprintf("invalid UTF-8: %d bytes replaced by U+FFFD", bad), nil
}

// decodeUTF16 decodes UTF-16 (big-endian when be); an odd trailing byte or
// an unpaired surrogate becomes U+FFFD and is noted.
func decodeUTF16(data []byte, be bool, name string) (string, string, error) {
	units := make([]uint16, len(data)/2)
	for i := range units {
		if be {
			units[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			units[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	odd := len(data)%2 == 1
	bad := 0
	var b strings.Builder
	b.Grow(len(units))
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF:
			b.WriteRune(utf16.DecodeRune(rune(u), rune(units[i+1])))
			i++
		case utf16.IsSurrogate(rune(u)):
			b.WriteRune(utf8.RuneError)
			bad++
		default:
			b.WriteRune(rune(u))
		}
	}
	if odd {
		b.WriteRune(utf8.RuneError)
		bad++
	}
	s := b.String()
	if len(strings.TrimSpace(s)) == 0 {
		return "", "", fmt.Errorf("%w: no text", ErrEmpty)
	}
	if strings.ContainsRune(s, 0) {
		return "", "", fmt.Errorf("%w: binary content in %s text", ErrUnsupported, name)
	}
	// UTF-16 with a byte order mark is as good as UTF-8: only a guess or
	// a repair is worth a note.
	note := ""
	switch {
	case bad > 0:
		note = fmt.Sprintf("decoded from %s (%d invalid code units replaced by U+FFFD)", name, bad)
	case strings.Contains(name, "without"):
		note = "decoded from " + name
	}
	return s, note, nil
}

// utf16Guess recognises UTF-16 without a byte order mark by its zero
// bytes: in mostly-ASCII text every other byte is zero, on the odd side
// for little-endian.
func utf16Guess(data []byte) (le, ok bool) {
	n := min(len(data), binarySniff) &^ 1
	if n < 8 {
		return false, false
	}
	var zeroEven, zeroOdd int
	for i := 0; i < n; i += 2 {
		if data[i] == 0 {
			zeroEven++
		}
		if data[i+1] == 0 {
			zeroOdd++
		}
	}
	half := n / 2
	switch {
	case zeroOdd*10 >= half*9 && zeroEven*10 < half:
		return true, true
	case zeroEven*10 >= half*9 && zeroOdd*10 < half:
		return false, true
	}
	return false, false
}

// isBinary reports whether the leading bytes hold a zero byte, or control
// bytes other than white space, form feeds and escapes in more than one
// byte in a hundred and at least eight of them (a text that rings a bell or
// two is still text: its control characters are escaped when printed).
func isBinary(data []byte) bool {
	head := data[:min(len(data), binarySniff)]
	ctl := 0
	for _, c := range head {
		switch {
		case c == 0:
			return true
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1B:
			ctl++
		}
	}
	return ctl >= 8 && ctl*100 > len(head)
}
