package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/flowreader/flowreader/llm"
)

// chunk is what one event of a streamed chat completion says: the text
// its first choice adds, that choice's finish reason, the usage (sent on
// the last event when stream_options.include_usage is set) and an error
// member (sent by vLLM and hosted APIs when generation fails mid-stream).
type chunk struct {
	text     string
	finish   string
	usage    llm.Usage
	hasUsage bool
	errRaw   []byte // the "error" member, unparsed, when present and not null
}

// parseChunk reads one event's data, a chat.completion.chunk object:
//
//	{"choices":[{"delta":{"content":"…"},"finish_reason":null}],"usage":null}
//
// It allocates nothing but the text itself (on the path every token takes),
// which a json.Unmarshal into a struct would not allow: it first checks that
// data is JSON (json.Valid, which allocates nothing), then walks the members
// it needs and skips the others. Members match their names exactly, a
// repeated member counts once (the last, as encoding/json does), and
// strings are unescaped as encoding/json does, invalid UTF-8 and lone
// surrogates becoming U+FFFD. A value of the wrong type, a negative or
// non-integer token count, or data that is not a JSON object wraps
// llm.ErrInvalidOutput. scratch is reused for strings with escapes.
func parseChunk(data []byte, scratch *[]byte) (chunk, error) {
	var c chunk
	if !json.Valid(data) {
		return c, fmt.Errorf("%w: stream event is not JSON", llm.ErrInvalidOutput)
	}
	w := walker{b: data}
	w.ws()
	if w.peek() != '{' {
		return c, fmt.Errorf("%w: stream event is not a JSON object", llm.ErrInvalidOutput)
	}
	err := w.object(scratch, func(key []byte) error {
		switch string(key) {
		case "choices":
			c.text, c.finish = "", ""
			return w.choices(&c, scratch)
		case "usage":
			c.usage, c.hasUsage = llm.Usage{}, false
			return w.usage(&c, scratch)
		case "error":
			start := w.i
			if w.null() {
				c.errRaw = nil
				return nil
			}
			w.skip()
			c.errRaw = data[start:w.i]
			return nil
		}
		w.skip()
		return nil
	})
	return c, err
}

// walker reads a document that json.Valid accepted.
type walker struct {
	b []byte
	i int
}

func (w *walker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *walker) peek() byte {
	if w.i < len(w.b) {
		return w.b[w.i]
	}
	return 0
}

// null consumes a null literal, if that is what comes next.
func (w *walker) null() bool {
	if w.peek() == 'n' {
		w.i += len("null")
		return true
	}
	return false
}

func typeErr(what string) error {
	return fmt.Errorf("%w: stream event: %s has the wrong type", llm.ErrInvalidOutput, what)
}

// object walks the object at w.i, calling member with each key (valid
// until the next call) while w.i is at its value; member consumes the
// value.
func (w *walker) object(scratch *[]byte, member func(key []byte) error) error {
	w.i++ // {
	for {
		w.ws()
		if w.peek() == '}' {
			w.i++
			return nil
		}
		if w.peek() == ',' {
			w.i++
			w.ws()
		}
		raw := w.rawString()
		key := raw
		if needsUnquote(raw) {
			*scratch = unquote((*scratch)[:0], raw)
			key = *scratch
		}
		w.ws()
		w.i++ // :
		w.ws()
		if err := member(key); err != nil {
			return err
		}
		w.ws()
	}
}

// choices reads the choices array into c: the first element's delta
// content and finish reason.
func (w *walker) choices(c *chunk, scratch *[]byte) error {
	if w.null() {
		return nil
	}
	if w.peek() != '[' {
		return typeErr("choices")
	}
	w.i++
	first := true
	for {
		w.ws()
		switch w.peek() {
		case ']':
			w.i++
			return nil
		case ',':
			w.i++
			w.ws()
		}
		if !first {
			w.skip()
			continue
		}
		first = false
		if w.peek() != '{' {
			return typeErr("choices[0]")
		}
		err := w.object(scratch, func(key []byte) error {
			switch string(key) {
			case "delta":
				c.text = ""
				if w.null() {
					return nil
				}
				if w.peek() != '{' {
					return typeErr("delta")
				}
				return w.object(scratch, func(key []byte) error {
					if string(key) != "content" {
						w.skip()
						return nil
					}
					var err error
					c.text, err = w.optString(scratch, "delta.content")
					return err
				})
			case "finish_reason":
				var err error
				c.finish, err = w.optString(scratch, "finish_reason")
				return err
			}
			w.skip()
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// usage reads the usage object into c.
func (w *walker) usage(c *chunk, scratch *[]byte) error {
	if w.null() {
		return nil
	}
	if w.peek() != '{' {
		return typeErr("usage")
	}
	c.hasUsage = true
	return w.object(scratch, func(key []byte) error {
		var dst *int
		switch string(key) {
		case "prompt_tokens":
			dst = &c.usage.PromptTokens
		case "completion_tokens":
			dst = &c.usage.CompletionTokens
		default:
			w.skip()
			return nil
		}
		start := w.i
		w.skip()
		n, err := strconv.Atoi(string(w.b[start:w.i]))
		if err != nil || n < 0 {
			return fmt.Errorf("%w: stream event: %s is not a token count", llm.ErrInvalidOutput, key)
		}
		*dst = n
		return nil
	})
}

// optString reads a string or null ("").
func (w *walker) optString(scratch *[]byte, what string) (string, error) {
	if w.null() {
		return "", nil
	}
	if w.peek() != '"' {
		return "", typeErr(what)
	}
	raw := w.rawString()
	if !needsUnquote(raw) {
		return string(raw), nil
	}
	*scratch = unquote((*scratch)[:0], raw)
	return string(*scratch), nil
}

// rawString consumes the string at w.i and returns its bytes between the
// quotes, escapes and all.
func (w *walker) rawString() []byte {
	w.i++ // "
	start := w.i
	for w.b[w.i] != '"' {
		if w.b[w.i] == '\\' {
			w.i++
		}
		w.i++
	}
	w.i++
	return w.b[start : w.i-1]
}

// skip consumes one value.
func (w *walker) skip() {
	switch w.peek() {
	case '"':
		w.rawString()
	case '{', '[':
		depth := 0
		for {
			switch w.b[w.i] {
			case '"':
				w.rawString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.i++
			if depth == 0 {
				return
			}
		}
	default: // number, true, false, null
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			w.i++
		}
	}
}

// needsUnquote reports whether a raw string differs from its value: it
// has an escape or bytes that are not UTF-8.
func needsUnquote(raw []byte) bool {
	high := false
	for _, c := range raw {
		if c == '\\' {
			return true
		}
		high = high || c >= utf8.RuneSelf
	}
	return high && !utf8.Valid(raw)
}

// unquote appends the value of a raw JSON string (valid JSON, without its
// quotes) to dst, as encoding/json decodes it: invalid UTF-8 and lone
// surrogates become U+FFFD.
func unquote(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			e := raw[i+1]
			i += 2
			switch e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(raw[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if r2 := hex4(raw[i+2:]); utf16.DecodeRune(r, r2) != utf8.RuneError {
							r = utf16.DecodeRune(r, r2)
							i += 6
							dst = utf8.AppendRune(dst, r)
							break
						}
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
			default: // " \ /
				dst = append(dst, e)
			}
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			dst = utf8.AppendRune(dst, r)
			i += n
		}
	}
	return dst
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
