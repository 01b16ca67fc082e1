package reader

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/internal/jsonx"
)

// Status is a worker's verdict on its chain.
type Status string

const (
	// Supported: the worker found (part of) the answer in its chain.
	StatusSupported Status = "supported"
	// NotReported: the worker found nothing usable, or its output could not be read.
	StatusNotReported Status = "not_reported"
	// Failed: the worker call itself failed; the chain was dropped.
	StatusFailed Status = "failed"
)

// workerOutput is the JSON a worker is asked to return.
type workerOutput struct {
	Status   Status `json:"status"`
	Answer   string `json:"answer"`
	Evidence string `json:"evidence"`
}

// parseWorker reads a worker's reply leniently: the JSON object may be
// wrapped in prose or a code fence, use single quotes, carry trailing commas,
// or be cut off; values may be numbers or lists. A reply with no readable
// object, an unknown status, or a "supported" status with an empty answer
// reads as not_reported; ok reports whether an object was found at all.
// It never panics.
func parseWorker(s string) (out workerOutput, ok bool) {
	m, ok := lenientObject(s, "status", "answer")
	if !ok {
		return workerOutput{Status: StatusNotReported}, false
	}
	out.Answer = strings.TrimSpace(m["answer"])
	out.Evidence = strings.TrimSpace(m["evidence"])
	st := strings.ToLower(strings.TrimSpace(m["status"]))
	st = strings.NewReplacer(" ", "_", "-", "_").Replace(st)
	switch {
	case st == "supported" || st == "partial" || st == "partially_supported":
		out.Status = StatusSupported
	case st == "" && out.Answer != "":
		out.Status = StatusSupported
	default:
		out.Status = StatusNotReported
	}
	if out.Status == StatusSupported && (out.Answer == "" || isRefusal(out.Answer)) {
		out.Status = StatusNotReported
	}
	if out.Status == StatusNotReported {
		out.Answer, out.Evidence = "", ""
	}
	return out, true
}

func isRefusal(a string) bool {
	switch normalise(a) {
	case "not reported", "not_reported", "n/a", "none", "unknown", "not answerable", "not mentioned":
		return true
	}
	return false
}

// lenientObject finds the first JSON object in s that has at least one of
// the wanted keys and returns its top-level values as strings (non-string
// values in their JSON form). It tries, in order: internal/jsonx (the whole
// text, fences, bracket spans, trailing commas), each balanced {...} span
// as strict JSON, the same span repaired (single quotes, trailing commas,
// Python literals), and finally a key-by-key regular-expression scan that
// also reads truncated objects.
func lenientObject(s string, wanted ...string) (map[string]string, bool) {
	var raw map[string]json.RawMessage
	if jsonx.Extract(s, &raw) == nil {
		if m := lowerKeys(raw); hasAny(m, wanted) {
			return m, true
		}
	}
	s = stripFences(thinkBlock.ReplaceAllString(s, ""))
	has := func(m map[string]string) bool {
		for _, k := range wanted {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	for _, span := range objectSpans(s) {
		for _, cand := range []string{span, repairJSON(span)} {
			if m, ok := decodeObject(cand); ok && has(m) {
				return m, true
			}
		}
	}
	if m := scanFields(s, wanted); len(m) > 0 {
		return m, true
	}
	return nil, false
}

// stripFences removes Markdown code fences (```json ... ```), keeping their
// content.
func stripFences(s string) string {
	if !strings.Contains(s, "```") {
		return s
	}
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// objectSpans returns the balanced {...} spans of s, outermost first, in
// order of appearance. Braces inside double- or single-quoted strings do not
// count. An unclosed object at the end is returned closed, so that a reply
// cut off by the token limit can still be read.
func objectSpans(s string) []string {
	var spans []string
	depth, start := 0, -1
	var quote byte
	escaped := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"':
			if depth > 0 {
				quote = c
			}
		case '\'':
			// A single quote opens a string only where a JSON value or key
			// may start; elsewhere it is an apostrophe in prose.
			if depth > 0 && prevSignificant(s, i) != 0 && strings.IndexByte("{[,:", prevSignificant(s, i)) >= 0 {
				quote = c
			}
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			if depth > 0 {
				depth--
				if depth == 0 {
					spans = append(spans, s[start:i+1])
				}
			}
		}
	}
	if depth > 0 && start >= 0 {
		tail := s[start:]
		if quote != 0 {
			tail += string(quote)
		}
		spans = append(spans, tail+strings.Repeat("}", depth))
	}
	return spans
}

func prevSignificant(s string, i int) byte {
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return s[j]
	}
	return 0
}

var (
	trailingComma = regexp.MustCompile(`,\s*([}\]])`)
	pyLiteral     = regexp.MustCompile(`\b(True|False|None)\b`)
)

// repairJSON fixes the usual deviations of model output from JSON.
func repairJSON(s string) string {
	if !strings.Contains(s, `"`) && strings.Contains(s, `'`) {
		s = strings.ReplaceAll(s, `'`, `"`)
	} else if strings.Contains(s, `'`) {
		s = singleToDouble(s)
	}
	s = trailingComma.ReplaceAllString(s, "$1")
	s = pyLiteral.ReplaceAllStringFunc(s, func(m string) string {
		switch m {
		case "True":
			return "true"
		case "False":
			return "false"
		}
		return "null"
	})
	return s
}

// singleToDouble rewrites single-quoted strings that open after a JSON
// structural character as double-quoted ones, escaping inner double quotes.
func singleToDouble(s string) string {
	var b strings.Builder
	var quote byte
	escaped := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch {
			case escaped:
				escaped = false
				b.WriteByte(c)
			case c == '\\':
				escaped = true
				b.WriteByte(c)
			case c == quote:
				quote = 0
				b.WriteByte('"')
			case c == '"' && quote == '\'':
				b.WriteString(`\"`)
			default:
				b.WriteByte(c)
			}
			continue
		}
		switch {
		case c == '"':
			quote = '"'
			b.WriteByte(c)
		case c == '\'' && strings.IndexByte("{[,:", prevSignificant(s, i)) >= 0 && prevSignificant(s, i) != 0:
			quote = '\''
			b.WriteByte('"')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func decodeObject(s string) (map[string]string, bool) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, false
	}
	return lowerKeys(raw), true
}

func lowerKeys(raw map[string]json.RawMessage) map[string]string {
	m := make(map[string]string, len(raw))
	for k, v := range raw {
		m[strings.ToLower(strings.TrimSpace(k))] = rawString(v)
	}
	return m
}

func hasAny(m map[string]string, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// thinkBlock matches a reasoning model's <think>…</think> block.
var thinkBlock = regexp.MustCompile(`(?is)<think>.*?</think>`)

// rawString renders a JSON value as text: strings unquoted, arrays of
// strings joined by "; ", null as "", anything else verbatim.
func rawString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) == nil {
		parts := make([]string, 0, len(arr))
		for _, a := range arr {
			if t := rawString(a); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "; ")
	}
	t := strings.TrimSpace(string(v))
	if t == "null" {
		return ""
	}
	return t
}

// scanFields reads "key": value pairs one by one, for replies that are not
// valid JSON even after repair. A double-quoted value ends at the first
// quote followed by "," "}" or the end of the text, so unescaped inner
// quotes and cut-off strings still read.
func scanFields(s string, keys []string) map[string]string {
	m := map[string]string{}
	for _, k := range append(append([]string(nil), keys...), "evidence") {
		if _, done := m[k]; done {
			continue
		}
		re := regexp.MustCompile(`(?i)["']` + regexp.QuoteMeta(k) + `["']\s*:\s*`)
		loc := re.FindStringIndex(s)
		if loc == nil {
			continue
		}
		m[k] = scanValue(s[loc[1]:])
	}
	if len(m) == 1 {
		if _, only := m["evidence"]; only && !hasAny(map[string]string{"evidence": ""}, keys) {
			return map[string]string{}
		}
	}
	return m
}

// scanValue reads one value at the start of s.
func scanValue(s string) string {
	if s == "" {
		return ""
	}
	switch q := s[0]; q {
	case '"', '\'':
		body := s[1:]
		for i := 0; i < len(body); i++ {
			switch body[i] {
			case '\\':
				i++
			case q:
				rest := strings.TrimLeft(body[i+1:], " \t\r\n")
				if rest == "" || rest[0] == ',' || rest[0] == '}' {
					return unescape(body[:i])
				}
			}
		}
		return unescape(strings.TrimRight(body, "} \t\r\n"))
	}
	end := strings.IndexAny(s, ",}\n")
	if end < 0 {
		end = len(s)
	}
	v := strings.TrimSpace(s[:end])
	if v == "null" {
		return ""
	}
	return v
}

func unescape(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// normalise lowercases, collapses white space and trims surrounding
// punctuation, so that answers differing only in form compare equal.
func normalise(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.Trim(s, " .,;:!?\"'`()[]")
}
