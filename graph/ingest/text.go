package ingest

import (
	"path/filepath"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// text reads the plain-text file path of box. Paragraphs are separated by
// blank lines; a line starting with one to six '#' and a space is a heading
// (as in the PaperTab texts). Invalid UTF-8 is replaced by U+FFFD.
func (c Config) text(box folder, path string) (graph.Document, error) {
	data, err := box.read(path)
	if err != nil {
		return graph.Document{}, err
	}
	doc := c.parseText(string(data))
	doc.ID = filepath.Base(path)
	if doc.Title == "" {
		doc.Title = strings.TrimSuffix(doc.ID, filepath.Ext(doc.ID))
	}
	return doc, nil
}

func (c Config) parseText(s string) graph.Document {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var blocks []block
	title := ""
	var para []string
	flush := func() {
		if t := strings.TrimSpace(strings.Join(para, "\n")); t != "" {
			blocks = append(blocks, block{text: t, page: -1})
		}
		para = para[:0]
	}
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if h, ok := heading(t); ok {
			flush()
			if title == "" {
				title = h
			}
			blocks = append(blocks, block{heading: true, text: h, page: -1})
			continue
		}
		if t == "" {
			flush()
			continue
		}
		para = append(para, line)
	}
	flush()
	return graph.Document{Title: title, Items: c.assemble(blocks)}
}

// heading recognises "# Title" … "###### Title".
func heading(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(line) || line[n] != ' ' {
		return "", false
	}
	h := collapse(strings.TrimRight(line[n:], "# "))
	return h, h != ""
}
