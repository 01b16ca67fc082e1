package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/realdocs"
)

// deck is four slides: a title in 32pt over bullets in 26pt (text read
// from afar: 26pt on the 612pt side is 4%), one slide with its title
// alone.
func deck() fxDoc {
	slides := []struct {
		title string
		lines []string
	}{
		{"Harbour Survey", []string{"Spring 2025", "Field team North"}},
		{"Nesting", []string{"- Terns on the mole", "- 40 nests lost"}},
		{"Results", nil},
		{"Next steps", []string{"- Repeat in May", "- Count again"}},
	}
	var d fxDoc
	for _, s := range slides {
		var p fxPage
		p.runs = append(p.runs, fxRun{x: 60, y: 700, size: 32, text: s.title})
		for i, l := range s.lines {
			p.runs = append(p.runs, fxRun{x: 60, y: 620 - 36*float64(i), size: 26, text: l})
		}
		d.pages = append(d.pages, p)
	}
	return d
}

// TestPDFSlideDeck: a deck gives a text item per slide, on the slide's
// page and under the slide's title, the slide with only a title
// included; a document's paragraph that runs over two pages keeps both.
func TestPDFSlideDeck(t *testing.T) {
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			doc, _, _ := readPDF(t, r, deck().bytes())
			want := []struct {
				section, start string
			}{
				{"Harbour Survey", "Harbour Survey\n\nSpring 2025"},
				{"Nesting", "Nesting\n\n- Terns on the mole"},
				{"Results", "Results"},
				{"Next steps", "Next steps\n\n- Repeat in May"},
			}
			if len(doc.Items) != len(want) {
				t.Fatalf("%d items: %q", len(doc.Items), pdfText(doc))
			}
			for i, it := range doc.Items {
				if it.Page != i || it.LastPage > it.Page || it.Section != want[i].section || !strings.HasPrefix(it.Text, want[i].start) {
					t.Errorf("item %d: page %d-%d section %q text %q", i, it.Page, it.LastPage, it.Section, it.Text)
				}
			}
			// A document (not slides): one chunk over both pages.
			doc, _, _ = readPDF(t, r, twoColumns().bytes())
			if len(doc.Items) != 1 || doc.Items[0].Page != 0 || doc.Items[0].LastPage != 1 {
				t.Errorf("two pages: %+v", doc.Items)
			}
		})
	}
}

// TestPDFRealDecks reads the real decks: the 25-page Beamer demo of the
// Metropolis theme and a 3-page LibreOffice Impress export
// (real public documents kept outside the repository, see
// testdata/pdf/real/README.md). Every slide has a node of its own on its
// page, no text node runs over two slides, and the pure-Go reader keeps
// the words apart ("A modern beamer theme", not "Amodernbeamertheme").
// The pure-Go reader reads no text from the Impress export (its text is
// drawn rotated): it says so, and that Poppler reads it.
func TestPDFRealDecks(t *testing.T) {
	for _, c := range []struct {
		file   string
		slides int
		want   string // words the first slide must hold
	}{
		{"pdf/beamer-metropolis-demo.pdf", 25, "A modern beamer theme"},
		{"pdf/impress-export.pdf", 3, "Test Table Slide"},
	} {
		for name, r := range readers {
			t.Run(name+"/"+c.file, func(t *testing.T) {
				data := realdocs.Read(t, c.file)
				if name == "go" && strings.Contains(c.file, "impress") {
					dir := t.TempDir()
					p := filepath.Join(dir, "deck.pdf")
					os.WriteFile(p, data, 0o644)
					box, _ := confineTo(dir)
					_, _, err := Config{PDFReader: r}.pdf(context.Background(), box, p, "deck.pdf")
					if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "pure-Go PDF reader found no text") || !strings.Contains(err.Error(), "Poppler") {
						t.Errorf("go reader on the Impress export: %v", err)
					}
					return
				}
				doc, info, _ := readPDF(t, r, data)
				if info.Pages != c.slides {
					t.Fatalf("%d pages", info.Pages)
				}
				seen := make([]int, c.slides)
				for _, it := range doc.Items {
					if it.Page < 0 || it.Page >= c.slides || it.LastPage > it.Page {
						t.Errorf("item on pages %d-%d", it.Page, it.LastPage)
						continue
					}
					seen[it.Page]++
				}
				for p, n := range seen {
					if n == 0 {
						t.Errorf("slide %d has no node", p+1)
					}
				}
				if first := doc.Items[0]; !strings.Contains(first.Text+first.Caption+first.Context, c.want) {
					t.Errorf("first slide: %q", first.Text)
				}
				t.Logf("%d slides, %d items", c.slides, len(doc.Items))
			})
		}
	}
}

var _ = graph.ModalityText
