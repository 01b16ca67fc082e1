package ingest

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFrontMatter(t *testing.T) {
	for _, c := range []struct {
		in, body string
		meta     map[string]string
		ok       bool
		note     bool
	}{
		{"---\ntitle: FAQ\ntags: [a, b]\nauthor:\n  name: Ann\n  mail: a@x\ndraft: false\nweight: 3\n---\n# Body\n", "# Body\n",
			map[string]string{"title": "FAQ", "tags": "a, b", "author.name": "Ann", "author.mail": "a@x", "draft": "false", "weight": "3"}, true, false},
		{"---\r\ntitle: \"Quoted: yes\"\r\n...\r\nText", "Text", map[string]string{"title": "Quoted: yes"}, true, false},
		{"---\n---\nText", "Text", nil, true, false},
		{"---\ntitle: [unclosed\n---\nText", "Text", nil, true, true},
		{"# No front matter\n---\ntitle: x\n---\n", "# No front matter\n---\ntitle: x\n---\n", nil, false, false},
		{"----\ntitle: x\n---\n", "----\ntitle: x\n---\n", nil, false, false},
		{"---\ntitle: never closed\n", "---\ntitle: never closed\n", nil, false, false},
		{"---\n" + strings.Repeat("k: v\n", maxFrontMatter/4) + "---\nText", "---\n" + strings.Repeat("k: v\n", maxFrontMatter/4) + "---\nText", nil, false, false},
	} {
		meta, body, note, ok := frontMatter(c.in)
		if ok != c.ok || body != c.body || !maps.Equal(meta, c.meta) || (note != "") != c.note {
			t.Errorf("%.40q: meta %v body %.40q note %q ok %v", c.in, meta, body, note, ok)
		}
	}
}

// A Markdown file's front matter becomes its metadata and its title the
// document's title and first heading; none of it is text.
func TestMarkdownFrontMatter(t *testing.T) {
	dir := t.TempDir()
	src := "---\ntitle: Ollama FAQ\ndescription: Frequently asked questions\n---\n\nimport X from \"y\"\n\nHow do I update Ollama? It updates itself.\n\n## GPU\n\nSet the variable.\n"
	os.WriteFile(filepath.Join(dir, "faq.mdx"), []byte(src), 0o644)
	docs, rep, err := Config{}.Read(context.Background(), dir)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%v, %d docs", err, len(docs))
	}
	d := docs[0]
	if d.Title != "Ollama FAQ" || d.Metadata["description"] != "Frequently asked questions" || len(rep.Files[0].Warnings) != 0 {
		t.Errorf("title %q metadata %v warnings %q", d.Title, d.Metadata, rep.Files[0].Warnings)
	}
	text := docText(d)
	if strings.Contains(text, "description") || strings.Contains(text, "---") || !strings.Contains(text, "How do I update Ollama?") {
		t.Errorf("text %q", text)
	}
	if d.Items[0].Section != "Ollama FAQ" {
		t.Errorf("first section %q", d.Items[0].Section)
	}
}

// FuzzFrontMatter: any input gives valid UTF-8 metadata within its bounds
// and a body that is a suffix of the input, never a panic.
func FuzzFrontMatter(f *testing.F) {
	f.Add("---\ntitle: x\n---\nbody")
	f.Add("---\na: &a [*a, *a, *a]\nb: [*a, *a]\n---\n")
	f.Add("---\n- 1\n- 2\n---\n")
	f.Add("---\nx: !!binary aGVsbG8=\n...\n")
	f.Fuzz(func(t *testing.T, s string) {
		meta, body, _, _ := frontMatter(s)
		if !strings.HasSuffix(s, body) {
			t.Fatalf("body %q is not a suffix", body)
		}
		if len(meta) > maxMetaFields {
			t.Fatalf("%d fields", len(meta))
		}
		for k, v := range meta {
			if len(v) > maxMetaValue+len("…") || !utf8.ValidString(v) {
				t.Fatalf("field %q: %d bytes", k, len(v))
			}
		}
	})
}
