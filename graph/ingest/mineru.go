package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// mineruItem is one entry of a MinerU content_list.json. Fields whose type
// varies between MinerU versions (a string or a list of strings, a number
// or a string) are kept raw and read leniently.
type mineruItem struct {
	Type      string          `json:"type"`
	Text      json.RawMessage `json:"text"`
	TextLevel json.RawMessage `json:"text_level"`
	PageIdx   json.RawMessage `json:"page_idx"`
	ImgPath   json.RawMessage `json:"img_path"`

	ImageCaption  json.RawMessage `json:"image_caption"`
	ImageFootnote json.RawMessage `json:"image_footnote"`
	ImgCaption    json.RawMessage `json:"img_caption"`  // MinerU < 1.0
	ImgFootnote   json.RawMessage `json:"img_footnote"` // MinerU < 1.0
	TableCaption  json.RawMessage `json:"table_caption"`
	TableFootnote json.RawMessage `json:"table_footnote"`
	TableBody     json.RawMessage `json:"table_body"`
	ChartCaption  json.RawMessage `json:"chart_caption"`
	ChartFootnote json.RawMessage `json:"chart_footnote"`
	CodeCaption   json.RawMessage `json:"code_caption"`
	CodeFootnote  json.RawMessage `json:"code_footnote"`
	CodeBody      json.RawMessage `json:"code_body"`
	ListItems     json.RawMessage `json:"list_items"`
	Content       json.RawMessage `json:"content"` // v2: the block's fields
}

// furniture are MinerU block types that are page decoration, not content.
var furniture = map[string]bool{
	"header": true, "footer": true, "page_number": true, "page_header": true,
	"page_footer": true, "aside_text": true, "discarded": true, "page_aside_text": true,
}

// mineru reads the MinerU output folder dir through its content list
// (v1, or v2 when the name ends in content_list_v2.json) and the images it
// references. The document's ID is the folder's base name.
func (c Config) mineru(r *reading, dir, list string) (graph.Document, error) {
	data, err := r.box.read(list)
	if err != nil {
		return graph.Document{}, err
	}
	name := strings.TrimSuffix(filepath.Base(list), ".json")
	name = strings.TrimSuffix(name, "_v2")
	name = strings.TrimSuffix(strings.TrimSuffix(name, "content_list"), "_")
	if name == "" {
		name = filepath.Base(filepath.Clean(dir))
	}
	doc, err := c.parseMinerU(r, data)
	if err != nil {
		return graph.Document{}, fmt.Errorf("%s: %w", list, err)
	}
	doc.ID = filepath.Base(filepath.Clean(dir))
	if doc.Title == "" {
		doc.Title = name
	}
	return doc, nil
}

// parseMinerU parses a content list whose images live under r.root: v1
// (a flat list of items with page_idx, or one list per page) or v2 (one
// list per page of blocks {"type", "content": {...}}).
func (c Config) parseMinerU(r *reading, data []byte) (graph.Document, error) {
	data, err := jsonText(r, data)
	if err != nil {
		return graph.Document{}, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return graph.Document{}, fmt.Errorf("%w: content list: %v", ErrFormat, err)
	}
	// Some exports nest the list per page: [[...page 0...], [...page 1...]].
	var flat []json.RawMessage
	var pageOf []int
	for i, raw := range raw {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			var page []json.RawMessage
			if err := json.Unmarshal(t, &page); err != nil {
				return graph.Document{}, fmt.Errorf("%w: page %d: %v", ErrFormat, i, err)
			}
			for _, p := range page {
				flat = append(flat, p)
				pageOf = append(pageOf, i)
			}
			continue
		}
		flat = append(flat, raw)
		pageOf = append(pageOf, -1)
	}
	var blocks []block
	title := ""
	for i, raw := range flat {
		if i%checkEvery == 0 {
			if err := r.ctx.Err(); err != nil {
				return graph.Document{}, err
			}
		}
		var it mineruItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return graph.Document{}, fmt.Errorf("%w: item %d: %v", ErrFormat, i, err)
		}
		page := intOf(it.PageIdx, pageOf[i])
		var b *block
		if t := bytes.TrimSpace(it.Content); len(t) > 0 && t[0] == '{' {
			b = c.mineruV2Block(r, &it, page, i)
		} else {
			b = c.mineruBlock(r, &it, page, i)
		}
		if b == nil {
			continue
		}
		if b.heading && title == "" {
			title = b.text
		}
		if b.visual == nil && !b.heading && strings.Contains(strings.ToLower(b.text), "<table") {
			// A table MinerU gave as text (HTML in a text block): a
			// table item, its spans expanded, not markup in the text.
			for _, part := range htmlParts(mustParseHTML(b.text)) {
				if part.table {
					blocks = append(blocks, block{visual: &graph.Item{Modality: graph.ModalityTable, Text: part.text, Page: b.page}, page: b.page})
				} else {
					blocks = append(blocks, block{text: part.text, page: b.page})
				}
			}
			continue
		}
		blocks = append(blocks, *b)
	}
	return graph.Document{Title: title, Root: r.root, Items: c.assemble(blocks)}, nil
}

// jsonText gives JSON bytes as UTF-8: a byte order mark dropped, UTF-16
// decoded (and noted); encoding/json replaces invalid UTF-8 itself, which
// is noted too.
func jsonText(r *reading, data []byte) ([]byte, error) {
	s, note, err := decodeText(data)
	switch {
	case errors.Is(err, ErrUnsupported):
		return nil, fmt.Errorf("%w: content list: %v", ErrFormat, err)
	case err != nil:
		return nil, err
	}
	r.decoded(note)
	return []byte(s), nil
}

// mineruBlock converts one item; nil means "nothing to keep".
func (c Config) mineruBlock(r *reading, it *mineruItem, page, i int) *block {
	typ := strings.ToLower(strings.TrimSpace(it.Type))
	if furniture[typ] {
		return nil
	}
	what := fmt.Sprintf("item %d (%s)", i, typ)
	switch typ {
	case "table":
		return visualBlock(r, what, graph.ModalityTable, page, it.ImgPath,
			tableText(joinStr(it.TableBody, "\n")),
			strs(it.TableCaption), strs(it.TableFootnote))
	case "image", "figure":
		return visualBlock(r, what, graph.ModalityFigure, page, it.ImgPath, "",
			append(strs(it.ImageCaption), strs(it.ImgCaption)...),
			append(strs(it.ImageFootnote), strs(it.ImgFootnote)...))
	case "chart":
		return visualBlock(r, what, graph.ModalityFigure, page, it.ImgPath, "",
			append(strs(it.ChartCaption), strs(it.ImageCaption)...),
			append(strs(it.ChartFootnote), strs(it.ImageFootnote)...))
	case "list":
		text := joinStr(it.ListItems, "\n")
		if text == "" {
			text = joinStr(it.Text, "\n")
		}
		return textBlock(text, page, false)
	case "code", "algorithm":
		parts := append(strs(it.CodeCaption), joinStr(it.CodeBody, "\n"))
		if joinStr(it.CodeBody, "") == "" {
			parts = append(parts, joinStr(it.Text, "\n"))
		}
		parts = append(parts, strs(it.CodeFootnote)...)
		return textBlock(joinNonEmpty(parts, "\n"), page, false)
	case "title":
		return textBlock(joinStr(it.Text, " "), page, true)
	}
	// text, equation, interline_equation, ref_text, page_footnote and
	// unknown types with text.
	heading := typ == "text" && intOf(it.TextLevel, 0) >= 1
	return textBlock(joinStr(it.Text, "\n"), page, heading)
}

func textBlock(text string, page int, heading bool) *block {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if heading {
		text = collapse(text)
	}
	return &block{text: text, page: page, heading: heading}
}

func visualBlock(r *reading, what string, m graph.Modality, page int, img json.RawMessage, body string, caption, footnote []string) *block {
	ref := r.image(joinStr(img, ""), what)
	it := &graph.Item{
		Modality: m,
		Text:     strings.TrimSpace(body),
		Caption:  joinNonEmpty(caption, " "),
		Footnote: joinNonEmpty(footnote, " "),
		Page:     page,
		Image:    ref,
	}
	if it.Text == "" && it.Caption == "" && it.Footnote == "" && it.Image == nil {
		return nil
	}
	return &block{visual: it, page: page}
}

// strs reads a JSON string, list of strings (nested lists flattened) or
// number as strings; anything else gives nil.
func strs(r json.RawMessage) []string {
	r = bytes.TrimSpace(r)
	if len(r) == 0 {
		return nil
	}
	switch r[0] {
	case '"':
		var s string
		if json.Unmarshal(r, &s) == nil {
			return []string{s}
		}
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(r, &list) == nil {
			var out []string
			for _, x := range list {
				out = append(out, strs(x)...)
			}
			return out
		}
	case '{', 'n', 't', 'f':
		return nil
	default:
		var n json.Number
		if json.Unmarshal(r, &n) == nil {
			return []string{n.String()}
		}
	}
	return nil
}

func joinStr(r json.RawMessage, sep string) string { return joinNonEmpty(strs(r), sep) }

func joinNonEmpty(parts []string, sep string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// maxIndex bounds the integers read from a content_list.json (page_idx,
// text_level): a value beyond it is treated as absent, so that a page index
// such as 3000000000 falls back to the page of its list instead of making a
// graph that the file format (32-bit pages) cannot hold.
const maxIndex = 1 << 30

// intOf reads a JSON number or numeric string; def when absent, invalid or
// beyond ±maxIndex.
func intOf(r json.RawMessage, def int) int {
	s := strings.Trim(string(bytes.TrimSpace(r)), `"`)
	if s == "" {
		return def
	}
	if n, err := strconv.Atoi(s); err == nil && n >= -maxIndex && n <= maxIndex {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= -maxIndex && f <= maxIndex {
		return int(f)
	}
	return def
}
