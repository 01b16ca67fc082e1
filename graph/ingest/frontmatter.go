package ingest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Front matter: a Markdown or MDX file may open with a YAML block between
// two "---" lines (Jekyll, Hugo, Docusaurus, Mintlify), which sites render
// as the page's title and description, never as text. It is read into the
// document's Metadata and left out of the text.

const (
	// maxFrontMatter bounds the front matter read, in bytes; a longer
	// block is not front matter (the file is read as it is).
	maxFrontMatter = 64 << 10
	// maxMetaFields and maxMetaValue bound the metadata kept.
	maxMetaFields = 64
	maxMetaValue  = 4 << 10
)

// frontMatter splits the front matter off s: its fields flattened to
// strings (nested maps as "key.sub", lists joined by ", "), and the text
// after it. ok is false when s opens with no front matter; a block that is
// not valid YAML is still cut off the text, with a note.
func frontMatter(s string) (meta map[string]string, body, note string, ok bool) {
	rest, found := strings.CutPrefix(s, "---")
	if !found {
		return nil, s, "", false
	}
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 || strings.TrimSpace(rest[:nl]) != "" {
		return nil, s, "", false // "----" or "--- text": not an opening line
	}
	rest = rest[nl+1:]
	end, next := -1, 0
	for off := 0; off <= len(rest) && off <= maxFrontMatter; {
		line := rest[off:]
		n := strings.IndexByte(line, '\n')
		if n >= 0 {
			line = line[:n]
		}
		if t := strings.TrimRight(line, " \t\r"); t == "---" || t == "..." {
			end = off
			next = off + len(line)
			if n >= 0 {
				next++
			}
			break
		}
		if n < 0 {
			break
		}
		off += n + 1
	}
	if end < 0 {
		return nil, s, "", false
	}
	body = rest[next:]
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(rest[:end]), &doc); err != nil {
		return nil, body, fmt.Sprintf("front matter is not valid YAML (%v): left out of the text", shortErr(err)), true
	}
	meta = map[string]string{}
	var flat func(prefix string, v any)
	flat = func(prefix string, v any) {
		if len(meta) >= maxMetaFields || prefix == "" {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				flat(prefix+"."+k, v[k])
			}
		case []any:
			var parts []string
			for _, x := range v {
				if s, ok := scalar(x); ok && s != "" {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				meta[prefix] = shorten(strings.Join(parts, ", "), maxMetaValue)
			}
		default:
			if s, ok := scalar(v); ok && s != "" {
				meta[prefix] = shorten(s, maxMetaValue)
			}
		}
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		flat(strings.TrimSpace(k), doc[k])
	}
	if len(meta) == 0 {
		meta = nil
	}
	return meta, body, "", true
}

// scalar renders a YAML scalar as text.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(strings.ToValidUTF8(v, "\uFFFD")), true
	case bool:
		return strconv.FormatBool(v), true
	case int:
		return strconv.Itoa(v), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case nil:
		return "", true
	case fmt.Stringer:
		return v.String(), true
	}
	return "", false
}

// shortErr is the first line of an error, at most 120 bytes.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return shorten(s, 120)
}
