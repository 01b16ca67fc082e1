package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
)

// checkItems asserts invariants every ingester keeps on any input.
func checkItems(t *testing.T, c Config, items []itemView) {
	t.Helper()
	for _, it := range items {
		if it.img != "" && (!filepath.IsLocal(filepath.FromSlash(it.img)) || strings.Contains(it.img, `\`)) {
			t.Fatalf("image path %q escapes", it.img)
		}
		if utf8.RuneCountInString(it.text) > c.chunking().norm().size && !it.visual {
			t.Fatalf("text chunk of %d runes", utf8.RuneCountInString(it.text))
		}
	}
}

type itemView struct {
	text, img string
	visual    bool
}

func FuzzMinerU(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join(fixtures, "report", "content_list.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`[{"type":"table","table_body":"<table><tr><td rowspan=\"3\" colspan=\"2\">x</td></tr><tr></tr></table>"}]`))
	f.Add([]byte(`[[{"type":"text","text":["a","b"],"text_level":"1"}],[{"type":"image","img_path":"../x"}]]`))
	f.Add([]byte(`[{"type":"list","list_items":[["nested"],1.5]},{"type":"code","code_body":null}]`))
	f.Add([]byte(`[[{"type":"title","content":{"title_content":[{"type":"text","content":"T"}],"level":1}},{"type":"image","content":{"image_source":{"path":"images/flow_chart.png"},"image_caption":[{"type":"text","content":"Figure 1"}]}}],[{"type":"list","content":{"list_items":[{"item_content":[{"type":"equation_inline","content":"x"}]}]}}]]`))
	r := testReading(f, filepath.Join(fixtures, "report"))
	c := Config{ChunkSize: 200, ChunkOverlap: 20, ContextWords: 50}
	f.Fuzz(func(t *testing.T, data []byte) {
		r.log = warnings{}
		doc, err := c.parseMinerU(r, data)
		if err != nil {
			return
		}
		var v []itemView
		for _, it := range doc.Items {
			iv := itemView{text: it.Text, visual: it.Modality != graph.ModalityText}
			if it.Image != nil {
				iv.img = it.Image.Path
			}
			v = append(v, iv)
		}
		checkItems(t, c, v)
	})
}

func FuzzMarkdown(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join(fixtures, "notes", "field-notes.md"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("# H\n\n| a | b |\n|---|---|\n| 1 | ![i](ridge-map.png) |\n\nTable 1: cap\n"))
	f.Add([]byte("> quote\n> - list\n>   1. nested\n\n```go\ncode\n```\n<div>html <b>x</b></div>\n[![alt](../up.png)](http://x)"))
	f.Add([]byte("<p><img src=\"ridge-map.png\" alt=\"Ridge\"></p>\n\ntext <img src='../x.png'> more\n\n" + strings.Repeat("- ", 70) + "x\n"))
	r := testReading(f, filepath.Join(fixtures, "notes"))
	c := Config{ChunkSize: 200, ChunkOverlap: 20, ContextWords: 50}
	f.Fuzz(func(t *testing.T, data []byte) {
		r.log = warnings{}
		doc, err := c.parseMarkdown(r, data)
		if err != nil {
			return
		}
		var v []itemView
		for _, it := range doc.Items {
			iv := itemView{text: it.Text, visual: it.Modality != graph.ModalityText}
			if it.Image != nil {
				iv.img = it.Image.Path
			}
			v = append(v, iv)
		}
		checkItems(t, c, v)
	})
}

func FuzzPDFText(f *testing.F) {
	f.Add("Title\r\n\n\nBody   text\n\n3\n\fPage 2 of 9\nNext\x00page\n\f")
	f.Add("\f\f\f")
	f.Add("- 12 -\n\xff\xfe broken utf8\n")
	f.Fuzz(func(t *testing.T, out string) {
		pages := splitPDFText(out)
		if len(pages) > strings.Count(out, "\f")+1 {
			t.Fatalf("%d pages from %d form feeds", len(pages), strings.Count(out, "\f"))
		}
		for _, p := range pages {
			if strings.ContainsAny(p, "\f\r\x00") || strings.Contains(p, "\n\n\n") || !utf8.ValidString(p) {
				t.Fatalf("unclean page %q", p)
			}
			for _, para := range paragraphs(p) {
				if strings.TrimSpace(para) == "" {
					t.Fatal("blank paragraph")
				}
			}
		}
	})
}

// FuzzTableText feeds arbitrary HTML to the table renderer (MinerU's
// table_body): valid UTF-8 in, valid UTF-8 out, and an output that grows
// at most linearly with the input even for huge rowspan or colspan values.
func FuzzTableText(f *testing.F) {
	f.Add(`<table><caption>T1</caption><tr><th>a</th><th colspan="2">b</th></tr><tr><td rowspan="2">1</td><td>2</td><td>3</td></tr><tr><td>4</td><td>5</td></tr></table>`)
	f.Add(`<table><tr><td rowspan="999999999" colspan="999999999">x</td></tr></table>`)
	f.Add(`<tr><td>no table</td>`)
	f.Add(`plain <b>text</b> &amp; entities &#x1F600; <script>x</script>`)
	f.Fuzz(func(t *testing.T, body string) {
		if !utf8.ValidString(body) {
			return
		}
		out := tableText(body)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q", body)
		}
		// Spans repeat a cell's text, so the rendering may be larger than
		// the HTML, but only linearly: the budget is max(64 KiB,
		// 16·len(body)), which one last cell may overshoot.
		if limit := max(64<<10, 16*len(body)) + 2*len(body) + 64; len(out) > limit {
			t.Fatalf("%d bytes of output from %d bytes of HTML (limit %d)", len(out), len(body), limit)
		}
	})
}

// testReading is the reading state of a file in the OS folder root.
func testReading(tb testing.TB, root string) *reading {
	tb.Helper()
	box, err := confineTo(root)
	if err != nil {
		tb.Fatal(err)
	}
	return &reading{ctx: context.Background(), box: box, root: root}
}
