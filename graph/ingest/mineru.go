package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
}

// furniture are MinerU block types that are page decoration, not content.
var furniture = map[string]bool{
	"header": true, "footer": true, "page_number": true, "page_header": true,
	"page_footer": true, "aside_text": true, "discarded": true,
}

// mineru reads the MinerU output folder dir of box: the *content_list.json
// inside it (the plain one is preferred over a _v2 variant) and the images
// it references. The document's ID is the folder's base name.
func (c Config) mineru(box folder, dir string) (graph.Document, error) {
	list, err := contentList(dir)
	if err != nil {
		return graph.Document{}, err
	}
	data, err := box.read(list)
	if err != nil {
		return graph.Document{}, err
	}
	name := strings.TrimSuffix(filepath.Base(list), ".json")
	name = strings.TrimSuffix(strings.TrimSuffix(name, "content_list"), "_")
	if name == "" {
		name = filepath.Base(filepath.Clean(dir))
	}
	doc, err := c.parseMinerU(data, dir)
	if err != nil {
		return graph.Document{}, fmt.Errorf("%s: %w", list, err)
	}
	doc.ID = filepath.Base(filepath.Clean(dir))
	if doc.Title == "" {
		doc.Title = name
	}
	return doc, nil
}

// contentList finds the content list of a MinerU folder.
func contentList(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("ingest: %w", err)
	}
	var found []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), "content_list.json") {
			found = append(found, e.Name())
		}
	}
	if len(found) == 0 {
		return "", fmt.Errorf("%w: %s", errNoContentList, dir)
	}
	sort.Strings(found)
	return filepath.Join(dir, found[0]), nil
}

// parseMinerU parses a content list whose images live under root.
func (c Config) parseMinerU(data []byte, root string) (graph.Document, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return graph.Document{}, fmt.Errorf("%w: content list: %v", ErrFormat, err)
	}
	// Some exports nest the list per page: [[...page 0...], [...page 1...]].
	var flat []json.RawMessage
	var pageOf []int
	for i, r := range raw {
		if t := bytes.TrimSpace(r); len(t) > 0 && t[0] == '[' {
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
		flat = append(flat, r)
		pageOf = append(pageOf, -1)
	}
	var blocks []block
	title := ""
	for i, r := range flat {
		var it mineruItem
		if err := json.Unmarshal(r, &it); err != nil {
			return graph.Document{}, fmt.Errorf("%w: item %d: %v", ErrFormat, i, err)
		}
		page := intOf(it.PageIdx, pageOf[i])
		b, err := c.mineruBlock(&it, page, root)
		if err != nil {
			return graph.Document{}, fmt.Errorf("item %d: %w", i, err)
		}
		if b == nil {
			continue
		}
		if b.heading && title == "" {
			title = b.text
		}
		blocks = append(blocks, *b)
	}
	return graph.Document{Title: title, Root: root, Items: c.assemble(blocks)}, nil
}

// mineruBlock converts one item; nil means "nothing to keep".
func (c Config) mineruBlock(it *mineruItem, page int, root string) (*block, error) {
	typ := strings.ToLower(strings.TrimSpace(it.Type))
	if furniture[typ] {
		return nil, nil
	}
	switch typ {
	case "table":
		return visualBlock(graph.ModalityTable, page, root, it.ImgPath,
			tableText(joinStr(it.TableBody, "\n")),
			strs(it.TableCaption), strs(it.TableFootnote))
	case "image", "figure":
		return visualBlock(graph.ModalityFigure, page, root, it.ImgPath, "",
			append(strs(it.ImageCaption), strs(it.ImgCaption)...),
			append(strs(it.ImageFootnote), strs(it.ImgFootnote)...))
	case "chart":
		return visualBlock(graph.ModalityFigure, page, root, it.ImgPath, "",
			append(strs(it.ChartCaption), strs(it.ImageCaption)...),
			append(strs(it.ChartFootnote), strs(it.ImageFootnote)...))
	case "list":
		text := joinStr(it.ListItems, "\n")
		if text == "" {
			text = joinStr(it.Text, "\n")
		}
		return textBlock(text, page, false), nil
	case "code", "algorithm":
		parts := append(strs(it.CodeCaption), joinStr(it.CodeBody, "\n"))
		if joinStr(it.CodeBody, "") == "" {
			parts = append(parts, joinStr(it.Text, "\n"))
		}
		parts = append(parts, strs(it.CodeFootnote)...)
		return textBlock(joinNonEmpty(parts, "\n"), page, false), nil
	case "title":
		return textBlock(joinStr(it.Text, " "), page, true), nil
	}
	// text, equation, interline_equation, ref_text, page_footnote and
	// unknown types with text.
	heading := typ == "text" && intOf(it.TextLevel, 0) >= 1
	return textBlock(joinStr(it.Text, "\n"), page, heading), nil
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

func visualBlock(m graph.Modality, page int, root string, img json.RawMessage, body string, caption, footnote []string) (*block, error) {
	ref, err := resolveImage(root, joinStr(img, ""))
	if err != nil {
		return nil, err
	}
	it := &graph.Item{
		Modality: m,
		Text:     strings.TrimSpace(body),
		Caption:  joinNonEmpty(caption, " "),
		Footnote: joinNonEmpty(footnote, " "),
		Page:     page,
		Image:    ref,
	}
	if it.Text == "" && it.Caption == "" && it.Footnote == "" && it.Image == nil {
		return nil, nil
	}
	return &block{visual: it, page: page}, nil
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
