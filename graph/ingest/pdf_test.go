package ingest

import (
	"context"
	"flag"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowreader/flowreader/graph"
	"os"
	"testing"
)

// twoColumns is a two-page, two-column article with a running header, page
// numbers, a hyphenated word and a ligature.
func twoColumns() fxDoc {
	var d fxDoc
	for pg := 0; pg < 2; pg++ {
		var p fxPage
		p.runs = append(p.runs, fxRun{x: 72, y: 760, size: 8, text: "Journal of Test Documents, Vol. 7"})
		p.runs = append(p.runs, fxRun{x: 300, y: 40, size: 8, text: itoa(pg + 1)})
		top := 700.0
		if pg == 0 {
			p.runs = append(p.runs, fxRun{x: 150, y: 720, size: 14, text: "Reading Order in Two Columns"})
			top = 680
		}
		left := []string{
			"The left column starts here and",
			"it keeps going for a while so that",
			"a reader that interleaves lines",
			"will produce nonsense. A repre-",
			"sentation is learned, and we \x01nd",
			"that the left column ends here.",
		}
		right := []string{
			"The right column comes second and",
			"its lines must never be mixed with",
			"the lines of the left column. Our",
			"pro\x01le method is state-of-the-",
			"art, and the right column ends.",
		}
		if pg == 1 {
			left = []string{
				"Page two opens in the left column",
				"with a second paragraph of text.",
			}
			right = []string{
				"Page two closes in the right one.",
			}
		}
		p.column(72, top, left...)
		p.column(324, top, right...)
		d.pages = append(d.pages, p)
	}
	return d
}

// interleaved writes the lines of a two-column page row by row (left line,
// right line, ...), as some generators do, with paragraph gaps at the same
// height in both columns: content-stream order is then no guide.
func interleaved() fxDoc {
	var p fxPage
	p.runs = append(p.runs, fxRun{x: 72, y: 720, size: 14, text: "Interleaved Streams"})
	left := []string{"Left one opens the first", "paragraph of the left side.", "", "Left two is the second", "paragraph on the left."}
	right := []string{"Right one opens the first", "paragraph of the right side.", "", "Right two is the second", "paragraph on the right."}
	for i := range left {
		y := 690 - 12*float64(i)
		if left[i] != "" {
			p.runs = append(p.runs, fxRun{x: 72, y: y, size: 10, text: left[i]})
		}
		if right[i] != "" {
			p.runs = append(p.runs, fxRun{x: 324, y: y, size: 10, text: right[i]})
		}
	}
	p.runs = append(p.runs, fxRun{x: 72, y: 600, size: 10, text: "A closing line spans both columns of the page, full width, at the end."})
	return fxDoc{pages: []fxPage{p}}
}

func TestDumpFixture(t *testing.T) {
	if os.Getenv("PDF_DUMP") == "" {
		t.Skip()
	}
	os.WriteFile(os.Getenv("PDF_DUMP"), twoColumns().bytes(), 0o644)
}

// readPDF writes data to a file in a fresh folder and reads it with reader.
func readPDF(t *testing.T, reader PDFReader, data []byte) (graph.Document, pdfInfo, string) {
	t.Helper()
	if reader == PDFReaderPoppler {
		if _, err := exec.LookPath("pdftotext"); err != nil {
			t.Skip("pdftotext not installed (apt-get install poppler-utils)")
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	box, err := confineTo(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	doc, info, err := Config{PDFReader: reader}.pdf(ctx, box, p)
	if err != nil {
		t.Fatal(err)
	}
	return doc, info, dir
}

func docText(doc graph.Document) string {
	var parts []string
	for _, it := range doc.Items {
		s := it.Text
		if it.Modality != graph.ModalityText {
			s = "[" + it.Modality.String() + ": " + it.Caption + "]\n" + it.Text
		}
		parts = append(parts, strings.TrimSpace(s))
	}
	return strings.Join(parts, "\n\n") + "\n"
}

var readers = map[string]PDFReader{"poppler": PDFReaderPoppler, "go": PDFReaderGo}

// golden compares got with testdata/pdf/name; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "pdf", name)
	if *update {
		os.WriteFile(p, []byte(got), 0o644)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

func TestPDFReadingOrder(t *testing.T) {
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			doc, info, _ := readPDF(t, r, twoColumns().bytes())
			golden(t, "twocolumns.txt", docText(doc))
			doc, _, _ = readPDF(t, r, interleaved().bytes())
			golden(t, "interleaved.txt", docText(doc))
			if info.Reader != map[string]string{"poppler": "pdftotext", "go": "go"}[name] || info.Pages != 2 {
				t.Errorf("info %+v", info)
			}
		})
	}
}

// TestPDFLocal prints what each reader makes of the PDF named by
// FLOWREADER_PDF (a local check on real files, which are not committed).
func TestPDFLocal(t *testing.T) {
	p := os.Getenv("FLOWREADER_PDF")
	if p == "" {
		t.Skip("FLOWREADER_PDF not set")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"poppler", "go"} {
		if os.Getenv("FLOWREADER_PDF_READER") != "" && os.Getenv("FLOWREADER_PDF_READER") != name {
			continue
		}
		start := time.Now()
		doc, info, dir := readPDF(t, readers[name], data)
		if out := os.Getenv("FLOWREADER_PDF_OUT"); out != "" {
			os.CopyFS(filepath.Join(out, name), os.DirFS(dir))
		}
		t.Logf("%s: %v, %d items, info %+v\n%s", name, time.Since(start), len(doc.Items), info, docText(doc))
	}
}
