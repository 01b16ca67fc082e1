package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowreader/flowreader/llm"
)

// refEvents is the event-stream algorithm written plainly over the whole
// input, the oracle of sseReader: split into lines at CRLF, LF or CR (a
// last line without an end counts), skip a leading BOM, then apply the
// field rules.
func refEvents(in []byte) (events []string, truncated bool) {
	in = bytes.TrimPrefix(in, []byte("\xef\xbb\xbf"))
	var lines []string
	start := 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '\n':
			lines = append(lines, string(in[start:i]))
			start = i + 1
		case '\r':
			lines = append(lines, string(in[start:i]))
			if i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(in) {
		lines = append(lines, string(in[start:]))
	}
	var data []string
	has := false
	for _, l := range lines {
		if l == "" {
			if has {
				events = append(events, strings.Join(data, "\n"))
			}
			data, has = nil, false
			continue
		}
		if l[0] == ':' {
			continue
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			name, value = l, ""
		}
		value = strings.TrimPrefix(value, " ")
		if name == "data" {
			data, has = append(data, value), true
		}
	}
	if has {
		d := strings.Join(data, "\n")
		if d == "[DONE]" || json.Valid([]byte(d)) {
			events = append(events, d)
		} else {
			truncated = true
		}
	}
	return events, truncated
}

// chunked delivers its input in pieces of the given sizes (cycled).
type chunked struct {
	b     []byte
	sizes []byte
	k     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.k%len(c.sizes)])%23 + 1
		c.k++
	}
	n = min(n, len(p), len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

func readAll(t *testing.T, r io.Reader, size int, limit int64) ([]string, error) {
	t.Helper()
	s := newSSEReaderSize(r, limit, size)
	var got []string
	for {
		d, err := s.next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, string(d))
	}
}

func TestSSEReader(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
		trunc    bool
	}{
		{"openai", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`{"a":1}`, "[DONE]"}, false},
		{"crlf and comments", ": keep-alive\r\n\r\ndata: {}\r\n\r\n", []string{"{}"}, false},
		{"lone cr", "data: 1\rdata: 2\r\r", []string{"1\n2"}, false},
		{"no space, other fields", "event: x\nid: 3\nretry: 10\ndata:{}\n\n", []string{"{}"}, false},
		{"bom", "\xef\xbb\xbfdata: {}\n\n", []string{"{}"}, false},
		{"no final blank line", "data: {}\n\ndata: [DONE]", []string{"{}", "[DONE]"}, false},
		{"cut inside an event", "data: {}\n\ndata: {\"choi", []string{"{}"}, true},
		{"a data field without a value", "data\n\n\n\n", []string{""}, false},
		{"long line", "data: " + strings.Repeat("x", 100) + "\n\n", []string{strings.Repeat("x", 100)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(t, &chunked{b: []byte(c.in), sizes: []byte{3, 1, 7}}, 16, 1<<20)
			if c.trunc != errors.Is(err, errTruncated) || (!c.trunc && err != nil) {
				t.Fatalf("err %v, truncated %v", err, c.trunc)
			}
			if !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("events %q, want %q", got, c.want)
			}
			ref, trunc := refEvents([]byte(c.in))
			if !reflect.DeepEqual(ref, c.want) && !(len(ref) == 0 && len(c.want) == 0) || trunc != c.trunc {
				t.Fatalf("oracle %q %v disagrees with the table", ref, trunc)
			}
		})
	}
	// The limit counts every byte read.
	_, err := readAll(t, strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 16, 50)
	if !errors.Is(err, llm.ErrInvalidOutput) || !errors.Is(err, errStreamLimit) {
		t.Fatalf("over the limit: %v", err)
	}
}

// FuzzSSEReader checks the incremental reader against refEvents, whatever
// the bytes and however they are cut into reads.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"a\":1}\n\ndata: [DONE]\n\n", ": c\r\n\r\ndata: {}\r\n\r\n", "data: 1\rdata: 2\r\r",
		"\xef\xbb\xbfdata:x\n\n", "data: {\"x\":\"\r\n\"}", "data\n\n", "data: [DONE]",
		"data: " + strings.Repeat("y", 40) + "\r\n\r\n",
	} {
		f.Add([]byte(s), []byte{1, 5, 16})
	}
	f.Fuzz(func(t *testing.T, in, sizes []byte) {
		want, trunc := refEvents(in)
		got, err := readAll(t, &chunked{b: in, sizes: sizes}, 16, 1<<30)
		if trunc {
			if !errors.Is(err, errTruncated) {
				t.Fatalf("err %v, want errTruncated", err)
			}
		} else if err != nil {
			t.Fatalf("err %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("events %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("event %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}

// refChunk decodes a chunk with encoding/json into generic values, the
// oracle of parseChunk.
func refChunk(data []byte) (chunk, bool) {
	var c chunk
	var top any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if d.Decode(&top) != nil || d.InputOffset() != int64(len(data)) && len(bytes.TrimSpace(data[d.InputOffset():])) > 0 {
		return c, false
	}
	m, ok := top.(map[string]any)
	if !ok {
		return c, false
	}
	str := func(v any) (string, bool) {
		if v == nil {
			return "", true
		}
		s, ok := v.(string)
		return s, ok
	}
	if ch, present := m["choices"]; present && ch != nil {
		arr, ok := ch.([]any)
		if !ok {
			return c, false
		}
		if len(arr) > 0 {
			first, ok := arr[0].(map[string]any)
			if !ok {
				return c, false
			}
			if dv, present := first["delta"]; present && dv != nil {
				dm, ok := dv.(map[string]any)
				if !ok {
					return c, false
				}
				if c.text, ok = str(dm["content"]); !ok {
					return c, false
				}
			}
			if c.finish, ok = str(first["finish_reason"]); !ok {
				return c, false
			}
		}
	}
	if u, present := m["usage"]; present && u != nil {
		um, ok := u.(map[string]any)
		if !ok {
			return c, false
		}
		c.hasUsage = true
		for k, dst := range map[string]*int{"prompt_tokens": &c.usage.PromptTokens, "completion_tokens": &c.usage.CompletionTokens} {
			v, present := um[k]
			if !present {
				continue
			}
			n, ok := v.(json.Number)
			if !ok {
				return c, false
			}
			x, err := strconv.Atoi(string(n))
			if err != nil || x < 0 {
				return c, false
			}
			*dst = x
		}
	}
	if e, present := m["error"]; present && e != nil {
		c.errRaw = []byte("x")
	}
	return c, true
}

func TestParseChunk(t *testing.T) {
	var scratch []byte
	for _, s := range []string{
		`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null}]}`,
		`{"choices":[{"delta":{"content":"a\n\"b\" \u00e9\ud83d\ude00 \ud800"}}]}`,
		`{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}`,
		`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`,
		`{"error":{"message":"boom","type":"InternalServerError","code":500}}`,
		`{"choices":[{"delta":{"content":1}}]}`, `{"usage":{"prompt_tokens":1.5}}`, `[]`, `{"choices":{}}`,
		`{"cho\u0069ces":[{"delta":{"content":"escaped key"}}]}`, `{"choices":[{"delta":{"content":"x"}}],"choices":null}`,
	} {
		got, err := parseChunk([]byte(s), &scratch)
		want, ok := refChunk([]byte(s))
		if ok != (err == nil) {
			t.Fatalf("%s: err %v, oracle ok %v", s, err, ok)
		}
		if err != nil {
			if !errors.Is(err, llm.ErrInvalidOutput) {
				t.Fatalf("%s: %v does not wrap ErrInvalidOutput", s, err)
			}
			continue
		}
		if got.text != want.text || got.finish != want.finish || got.usage != want.usage || got.hasUsage != want.hasUsage || (got.errRaw == nil) != (want.errRaw == nil) {
			t.Fatalf("%s: got %+v, want %+v", s, got, want)
		}
	}
}

// FuzzParseChunk checks parseChunk against encoding/json on any input.
func FuzzParseChunk(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
		`{"choices":[{"delta":{"content":"a\n\u00e9\ud83d\ude00\ud800x\udc00"}}],"usage":{"prompt_tokens":3,"completion_tokens":0}}`,
		`{"choices":[{"delta":{},"finish_reason":"length"}, 3, "x"]}`, `{"error":"x"}`, `{"error":null}`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\xfe ok\"}}]}", `{"usage":{"prompt_tokens":-0}}`, ` {} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var scratch []byte
		got, err := parseChunk(data, &scratch)
		want, ok := refChunk(data)
		if ok != (err == nil) {
			t.Fatalf("err %v, oracle ok %v", err, ok)
		}
		if err != nil {
			if !errors.Is(err, llm.ErrInvalidOutput) {
				t.Fatalf("%v does not wrap ErrInvalidOutput", err)
			}
			return
		}
		if got.text != want.text || got.finish != want.finish || got.usage != want.usage || got.hasUsage != want.hasUsage || (got.errRaw == nil) != (want.errRaw == nil) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		if !utf8.ValidString(got.text) {
			t.Fatalf("text %q is not UTF-8", got.text)
		}
	})
}
