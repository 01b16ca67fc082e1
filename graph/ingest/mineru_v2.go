package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// MinerU's content_list_v2.json (MinerU ≥ 2.5) holds one list per page of
// blocks {"type": …, "content": {…}, "bbox": …}. Text fields are lists of
// spans {"type": "text" | "equation_inline" | …, "content": "…"}; images
// are {"image_source": {"path": …}}. Block types: title (title_content,
// level), paragraph (paragraph_content), list and index (list_items of
// {item_content}), image, table (html), chart, code, algorithm,
// equation_interline (math_content), and the page furniture page_header,
// page_footer, page_aside_text, page_number; page_footnote is kept as text.

// v2Furniture are v2 block types that are page decoration, not content.
var v2Furniture = map[string]bool{
	"page_header": true, "page_footer": true, "page_aside_text": true, "page_number": true,
}

// mineruV2Block converts one v2 block; nil means "nothing to keep".
func (c Config) mineruV2Block(r *reading, it *mineruItem, page, i int) *block {
	typ := strings.ToLower(strings.TrimSpace(it.Type))
	if v2Furniture[typ] || furniture[typ] {
		return nil
	}
	var f map[string]json.RawMessage
	if json.Unmarshal(it.Content, &f) != nil {
		r.lose("item %d (%s): content is not an object: skipped", i, typ)
		return nil
	}
	what := fmt.Sprintf("item %d (%s)", i, typ)
	img := func() json.RawMessage {
		var src struct {
			Path json.RawMessage `json:"path"`
		}
		if json.Unmarshal(f["image_source"], &src) != nil {
			return nil
		}
		return src.Path
	}
	switch typ {
	case "title":
		return textBlock(spansText(f["title_content"]), page, true)
	case "paragraph", "page_footnote":
		return textBlock(spansText(f[typ+"_content"]), page, false)
	case "image":
		return visualBlock(r, what, graph.ModalityFigure, page, img(), "",
			[]string{spansText(f["image_caption"])}, []string{spansText(f["image_footnote"])})
	case "chart":
		return visualBlock(r, what, graph.ModalityFigure, page, img(), "",
			[]string{spansText(f["chart_caption"])}, []string{spansText(f["chart_footnote"])})
	case "table":
		return visualBlock(r, what, graph.ModalityTable, page, img(), tableText(joinStr(f["html"], "\n")),
			[]string{spansText(f["table_caption"])}, []string{spansText(f["table_footnote"])})
	case "code", "algorithm":
		return textBlock(joinNonEmpty([]string{
			spansText(f[typ+"_caption"]), spansText(f[typ+"_content"]), spansText(f[typ+"_footnote"]),
		}, "\n"), page, false)
	case "list", "index":
		var items []struct {
			Content json.RawMessage `json:"item_content"`
		}
		_ = json.Unmarshal(f["list_items"], &items)
		lines := make([]string, 0, len(items))
		for _, x := range items {
			lines = append(lines, spansText(x.Content))
		}
		return textBlock(joinNonEmpty(lines, "\n"), page, false)
	case "equation_interline":
		return textBlock(joinStr(f["math_content"], "\n"), page, false)
	}
	// An unknown type: keep the text of its *_content fields, in name order.
	var keys []string
	for k := range f {
		if strings.HasSuffix(k, "_content") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, spansText(f[k]))
	}
	return textBlock(joinNonEmpty(parts, "\n"), page, false)
}

// spansText joins a v2 span list (or a plain string, or a list of them):
// text spans as they are, inline equations between dollar signs.
func spansText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return joinStr(raw, " ")
	}
	var spans []json.RawMessage
	if json.Unmarshal(raw, &spans) != nil {
		return ""
	}
	var b strings.Builder
	for _, sp := range spans {
		var s struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if t := bytes.TrimSpace(sp); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &s) != nil {
			b.WriteString(joinStr(sp, " "))
			continue
		}
		text := joinStr(s.Content, " ")
		if text == "" {
			continue
		}
		if strings.HasPrefix(s.Type, "equation") {
			text = "$" + text + "$"
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") && !strings.HasPrefix(text, " ") {
			b.WriteByte(' ')
		}
		b.WriteString(text)
	}
	return strings.TrimSpace(b.String())
}
