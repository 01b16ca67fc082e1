package ingest

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// text reads the plain-text file path. Paragraphs are separated by blank
// lines; a line starting with one to six '#' and a space is a heading (as
// in the PaperTab texts). The bytes are decoded by decodeText (UTF-16,
// Windows-1252, invalid UTF-8 replaced; binary content refused).
func (c Config) text(r *reading, path string) (graph.Document, error) {
	data, err := r.box.read(path)
	if err != nil {
		return graph.Document{}, err
	}
	s, note, err := decodeText(data)
	if err != nil {
		return graph.Document{}, err
	}
	r.decoded(note)
	doc, err := c.parseText(r.ctx, s)
	if err != nil {
		return graph.Document{}, err
	}
	doc.ID = filepath.Base(path)
	if doc.Title == "" {
		doc.Title = strings.TrimSuffix(doc.ID, filepath.Ext(doc.ID))
	}
	return doc, nil
}

func (c Config) parseText(ctx context.Context, s string) (graph.Document, error) {
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
	for i, line := range strings.Split(s, "\n") {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return graph.Document{}, err
			}
		}
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
	return graph.Document{Title: title, Items: c.assemble(blocks)}, nil
}

// checkEvery is how many lines or items a long loop handles between two
// looks at its context.
const checkEvery = 1024

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
