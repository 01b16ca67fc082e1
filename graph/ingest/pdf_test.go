package ingest

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
			"that the left column ends in a bro-",
		}
		right := []string{
			"ken word; the right column comes second and",
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

// readPDF writes data to a file in a fresh folder and reads it with
// reader, images rendered into a fresh assets folder (returned); the
// folder of the PDF must hold the PDF alone afterwards.
func readPDF(t *testing.T, reader string, data []byte) (graph.Document, pdfInfo, string) {
	t.Helper()
	doc, info, dir, err := readPDFErr(t, reader, data)
	if err != nil {
		t.Fatal(err)
	}
	return doc, info, dir
}

// readPDFErr is readPDF returning the error.
func readPDFErr(t *testing.T, reader string, data []byte) (graph.Document, pdfInfo, string, error) {
	t.Helper()
	if reader == pdfPoppler {
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	assets := t.TempDir()
	doc, info, err := Config{PDFReader: reader, Assets: assets}.pdf(ctx, box, p, "doc.pdf")
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the PDF's folder holds %v", ents)
	}
	return doc, info, assets, err
}

func pdfText(doc graph.Document) string {
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

var readers = map[string]string{"poppler": pdfPoppler, "go": pdfGo}

func TestPDFReadingOrder(t *testing.T) {
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			doc, info, _ := readPDF(t, r, twoColumns().bytes())
			golden(t, "pdf/twocolumns.txt", pdfText(doc))
			doc, _, _ = readPDF(t, r, interleaved().bytes())
			golden(t, "pdf/interleaved.txt", pdfText(doc))
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
		text := pdfText(doc)
		if os.Getenv("FLOWREADER_PDF_VISUAL") != "" {
			text = ""
			for _, it := range doc.Items {
				if it.Modality != graph.ModalityText {
					text += fmt.Sprintf("p%d %v %.80q %v\n", it.Page+1, it.Modality, it.Caption, it.Image)
				}
			}
		}
		t.Logf("%s: %v, %d items, info %+v\n%s", name, time.Since(start), len(doc.Items), info, text)
	}
}

// figures is a page with body text, a chart with its caption below it, and
// a table with its caption above it.
func figures() fxDoc {
	var p fxPage
	p.column(72, 720,
		"Body text before the chart says that the growth",
		"of the method is shown in the chart right below",
		"and that the table further down lists the scores.")
	p.images = append(p.images, fxImage{x: 150, y: 480, w: 300, h: 180, img: boxImage(200, 120)})
	p.runs = append(p.runs, fxRun{x: 72, y: 460, size: 10, text: "Figure 1: Growth of the method over ten years."})
	p.column(72, 430,
		"Body text between the chart and the table goes on",
		"for two lines so that it reads as a paragraph.")
	p.runs = append(p.runs, fxRun{x: 72, y: 380, size: 10, text: "Table 1: Scores by method."})
	for i, row := range [][]string{{"Method", "Score", "Time"}, {"Base", "0.41", "12 s"}, {"Ours", "0.52", "9 s"}} {
		y := 355 - 14*float64(i)
		for j, cell := range row {
			p.runs = append(p.runs, fxRun{x: 100 + 120*float64(j), y: y, size: 10, text: cell})
		}
	}
	p.column(72, 280,
		"Body text after the table closes the page with a",
		"last paragraph of two lines that a reader keeps.")
	return fxDoc{pages: []fxPage{p}}
}

func TestPDFFigures(t *testing.T) {
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			doc, info, dir := readPDF(t, r, figures().bytes())
			golden(t, "pdf/figures.txt", pdfText(doc))
			if info.Figures != 1 || info.Tables != 1 {
				t.Fatalf("info %+v", info)
			}
			var fig, tab *graph.Item
			for i := range doc.Items {
				switch doc.Items[i].Modality {
				case graph.ModalityFigure:
					fig = &doc.Items[i]
				case graph.ModalityTable:
					tab = &doc.Items[i]
				}
			}
			if fig == nil || tab == nil || fig.Page != 0 || tab.Page != 0 {
				t.Fatalf("items %+v", doc.Items)
			}
			if !strings.Contains(fig.Context, "growth of the method") {
				t.Errorf("figure context %q", fig.Context)
			}
			if name == "go" || !hasTool("pdftoppm") {
				if fig.Image != nil || len(info.Warnings) == 0 {
					t.Errorf("go reader: image %v, warnings %q", fig.Image, info.Warnings)
				}
				return
			}
			if fig.Image == nil || tab.Image == nil || info.Images != 2 || doc.Root != filepath.Join(dir, "doc.pdf") {
				t.Fatalf("images: figure %v table %v info %+v root %q", fig.Image, tab.Image, info, doc.Root)
			}
			if fig.Image.Path != "p001-figure1.png" || fig.Image.MIME != "image/png" {
				t.Errorf("figure image %+v", fig.Image)
			}
			f, err := os.Open(filepath.Join(doc.Root, filepath.FromSlash(fig.Image.Path)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			// The region above the caption up to the body text: about 300 x
			// 180 points of chart at 150 dpi, plus margins.
			if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 350 || b.Dy() > 600 {
				t.Errorf("figure image %v", b)
			}
			// A second read replaces the images in one piece.
			src := t.TempDir()
			os.WriteFile(filepath.Join(src, "doc.pdf"), figures().bytes(), 0o644)
			box, _ := confineTo(src)
			if _, _, err := (Config{PDFReader: r, Assets: dir}).pdf(context.Background(), box, filepath.Join(src, "doc.pdf"), "doc.pdf"); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 || ents[0].Name() != "doc.pdf" {
				t.Errorf("assets folder holds %v", ents)
			}
		})
	}
}

func hasTool(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// scanned is a page that is one picture of text, as a scanner makes.
func scanned() fxDoc {
	var p fxPage
	img := textImage("Scanned pages are read by OCR.", "The second line of the scan.")
	p.images = append(p.images, fxImage{x: 36, y: 500, w: 540, h: 540 * 260 / 1400, img: img})
	return fxDoc{pages: []fxPage{p}}
}

// withoutTool limits PATH to links to the Poppler tools, so that tesseract
// (or every tool in skip) is absent.
func withoutTool(t *testing.T, skip ...string) {
	dir := t.TempDir()
	for _, name := range []string{"pdftotext", "pdfinfo", "pdfimages", "pdftoppm", "tesseract"} {
		if slices.Contains(skip, name) {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			os.Symlink(p, filepath.Join(dir, name))
		}
	}
	t.Setenv("PATH", dir)
}

func TestPDFScanned(t *testing.T) {
	t.Run("ocr", func(t *testing.T) {
		if !hasTool("tesseract") || !hasTool("pdftoppm") || !hasTool("pdfimages") {
			t.Skip("tesseract or Poppler not installed (apt-get install poppler-utils tesseract-ocr)")
		}
		doc, info, _ := readPDF(t, pdfPoppler, scanned().bytes())
		text := strings.ToLower(pdfText(doc))
		if !strings.Contains(text, "scanned pages are read by ocr") || !strings.Contains(text, "second line") {
			t.Errorf("OCR text %q", text)
		}
		if !slices.Equal(info.OCR, []int{0}) || len(info.Scanned) != 0 || len(info.Warnings) != 1 {
			t.Errorf("info %+v", info)
		}
	})
	t.Run("no-ocr", func(t *testing.T) {
		if !hasTool("pdfimages") {
			t.Skip("Poppler not installed")
		}
		withoutTool(t, "tesseract")
		doc, info, _, err := readPDFErr(t, pdfPoppler, scanned().bytes())
		if len(doc.Items) != 0 || !slices.Equal(info.Scanned, []int{0}) {
			t.Fatalf("items %+v info %+v", doc.Items, info)
		}
		// Skipped as empty, naming the tool that would read it.
		if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "tesseract-ocr") {
			t.Errorf("error %v", err)
		}
		if w := strings.Join(info.Warnings, "\n"); !strings.Contains(w, "page 1: scanned") || !strings.Contains(w, "tesseract not installed") {
			t.Errorf("warnings %q", info.Warnings)
		}
	})
	t.Run("go", func(t *testing.T) {
		_, info, _, err := readPDFErr(t, pdfGo, scanned().bytes())
		if !slices.Equal(info.Scanned, []int{0}) || !strings.Contains(strings.Join(info.Warnings, "\n"), "page 1: scanned") {
			t.Errorf("info %+v", info)
		}
		if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "poppler-utils") || !strings.Contains(err.Error(), "tesseract-ocr") {
			t.Errorf("error %v", err)
		}
	})
}

// bombs are the crafted page trees of the hardening report: each is small
// and must give an error or a bounded result quickly. They are made once a
// test binary: the flate bomb's 64 MiB of zeros are compressed once, not
// once a caller (about a minute of CPU a call under -race).
var bombs = sync.OnceValue(func() map[string][]byte {
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>"
	page := func(parent int) string {
		return "<< /Type /Page /Parent " + itoa(parent) + " 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>"
	}
	content := "<< /Length 44 >>\nstream\nBT /F1 12 Tf 72 720 Td (Bomb page text.) Tj ET\nendstream"
	rep := func(s string, n int) string { return strings.TrimSpace(strings.Repeat(s+" ", n)) }
	zeros := func() string {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write(make([]byte, 64<<20))
		w.Close()
		return "<< /Length " + itoa(b.Len()) + " /Filter /FlateDecode >>\nstream\n" + b.String() + "\nendstream"
	}
	return map[string][]byte{
		"count2e9": rawPDF("<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [4 0 R] /Count 2000000000 >>", font, page(2), content),
		"kids-self": rawPDF("<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [2 0 R 4 0 R] /Count 2 >>", font, page(2), content),
		"parent-cycle": rawPDF("<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [4 0 R] /Count 1 /Parent 6 0 R >>", font,
			"<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>", content,
			"<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>"),
		"repeat60x60": rawPDF("<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids ["+rep("6 0 R", 60)+"] /Count 3600 >>", font, page(6), content,
			"<< /Type /Pages /Parent 2 0 R /Kids ["+rep("4 0 R", 60)+"] /Count 60 >>"),
		"flate-bomb": rawPDF("<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [4 0 R] /Count 1 >>", font, page(2), zeros()),
	}
})

func TestPDFBombs(t *testing.T) {
	for name, data := range bombs() {
		for rname, r := range map[string]string{"auto": pdfAuto, "go": pdfGo} {
			t.Run(name+"/"+rname, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "bomb.pdf")
				os.WriteFile(p, data, 0o644)
				box, _ := confineTo(dir)
				// The bounds are checked on the work (pages, text, the inflate
				// bound in the error); the deadline only catches a hang. It was
				// 20 s, and the flate bomb under -race on a 2-core machine at load
				// 19 took 20 s through both readers (7 s for the Go reader alone).
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				start := time.Now()
				doc, info, err := Config{PDFReader: r}.pdf(ctx, box, p, "bomb.pdf")
				t.Logf("%d bytes, %v: %d items, err %v, info %+v", len(data), time.Since(start), len(doc.Items), err, info)
				if ctx.Err() != nil {
					t.Fatalf("not stopped in time: %v", ctx.Err())
				}
				if err != nil {
					if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrEmpty) {
						t.Fatalf("error %v wraps neither ErrFormat nor ErrEmpty", err)
					}
					return
				}
				text := 0
				for _, it := range doc.Items {
					text += len(it.Text)
				}
				lim := limitsFor(int64(len(data)))
				if info.Pages > lim.pages || text > 2*lim.text {
					t.Errorf("unbounded: %d pages, %d bytes of text (limits %+v)", info.Pages, text, lim)
				}
			})
		}
	}
}

func TestPDFContext(t *testing.T) {
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			if r == pdfPoppler && !hasTool("pdftotext") {
				t.Skip("pdftotext not installed")
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "doc.pdf")
			os.WriteFile(p, twoColumns().bytes(), 0o644)
			box, _ := confineTo(dir)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, _, err := (Config{PDFReader: r}).pdf(ctx, box, p, "doc.pdf"); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled read: %v", err)
			}
		})
	}
}

// TestPDFAssets: rendered images go to Config.Assets, in a folder per
// document named by its ID, and never into the collection; without
// Assets nothing is rendered and a warning says why; an assets folder that
// cannot be written leaves the items with their captions and says so.
func TestPDFAssets(t *testing.T) {
	if !hasTool("pdftotext") || !hasTool("pdftoppm") {
		t.Skip("Poppler not installed (apt-get install poppler-utils)")
	}
	coll := t.TempDir()
	os.Mkdir(filepath.Join(coll, "papers"), 0o755)
	os.WriteFile(filepath.Join(coll, "papers", "doc.pdf"), figures().bytes(), 0o644)
	listing := func() []string {
		var out []string
		filepath.WalkDir(coll, func(p string, _ fs.DirEntry, _ error) error {
			out = append(out, p)
			return nil
		})
		return out
	}
	before := listing()

	assets := filepath.Join(t.TempDir(), "g.assets")
	docs, rep, err := Config{Assets: assets}.Read(context.Background(), coll)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%v, %d docs", err, len(docs))
	}
	d := docs[0]
	if d.ID != "papers/doc.pdf" || d.Root != filepath.Join(assets, "papers", "doc.pdf") {
		t.Errorf("id %q root %q", d.ID, d.Root)
	}
	images := 0
	for _, it := range d.Items {
		if it.Image != nil {
			images++
			if _, err := os.Stat(filepath.Join(d.Root, it.Image.Path)); err != nil {
				t.Error(err)
			}
		}
	}
	if images != 2 || len(rep.Files[0].Warnings) != 0 {
		t.Errorf("%d images, warnings %q", images, rep.Files[0].Warnings)
	}
	if after := listing(); !slices.Equal(before, after) {
		t.Errorf("the collection changed: %q", after)
	}
	again, _, err := Config{Assets: assets}.Read(context.Background(), coll)
	if err != nil || len(again) != 1 || pdfText(again[0]) != pdfText(d) {
		t.Fatalf("second read: %v", err)
	}

	// No assets folder: no image, a warning.
	docs, rep, _ = Config{}.Read(context.Background(), coll)
	for _, it := range docs[0].Items {
		if it.Image != nil {
			t.Errorf("image %+v", it.Image)
		}
	}
	if w := strings.Join(rep.Files[0].Warnings, "\n"); !strings.Contains(w, "no folder for rendered images") {
		t.Errorf("warnings %q", w)
	}

	// An assets folder that cannot be made.
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, []byte("a file where the folder would go"), 0o644)
	docs, rep, _ = Config{Assets: blocked}.Read(context.Background(), coll)
	if w := strings.Join(rep.Files[0].Warnings, "\n"); !strings.Contains(w, "figure images not written") || len(docs) != 1 {
		t.Errorf("warnings %q", w)
	}
	if after := listing(); !slices.Equal(before, after) {
		t.Errorf("the collection changed: %q", after)
	}
}

// TestOCRLanguageAndProgress: OCR reports its progress page by page,
// reads in the languages asked for, names the Debian package of a missing
// language pack (and loses those pages, saying so), and refuses a
// language list that is not tesseract's codes.
func TestOCRLanguageAndProgress(t *testing.T) {
	if !hasTool("tesseract") || !hasTool("pdftoppm") || !hasTool("pdfimages") {
		t.Skip("tesseract or Poppler not installed (apt-get install poppler-utils tesseract-ocr)")
	}
	read := func(c Config, data []byte) (graph.Document, pdfInfo, error) {
		dir := t.TempDir()
		p := filepath.Join(dir, "scan.pdf")
		os.WriteFile(p, data, 0o644)
		box, _ := confineTo(dir)
		c.PDFReader = pdfPoppler
		return c.pdf(context.Background(), box, p, "scan.pdf")
	}
	type call struct {
		done, total int
		stage       string
	}
	var calls []call
	c := Config{Progress: func(done, total int, stage string) { calls = append(calls, call{done, total, filepath.Base(stage)}) }}
	if _, info, err := read(c, scanned().bytes()); err != nil || len(info.OCR) != 1 {
		t.Fatalf("%v, info %+v", err, info)
	}
	if want := []call{{0, 1, "scan.pdf"}, {1, 1, "scan.pdf"}}; !slices.Equal(calls, want) || !strings.HasPrefix(calls[0].stage, "scan.pdf") {
		t.Errorf("progress %+v", calls)
	}

	_, info, err := read(Config{OCRLanguage: "eng+zzz_x"}, scanned().bytes())
	if !errors.Is(err, ErrEmpty) || !slices.Equal(info.Scanned, []int{0}) || !strings.Contains(strings.Join(info.Warnings, "\n"), "no tesseract language pack for zzz_x (Debian package tesseract-ocr-zzz-x)") {
		t.Errorf("missing pack: %v, info %+v", err, info)
	}
	if _, _, err := (Config{OCRLanguage: "eng;rm -rf"}).Read(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "OCRLanguage") {
		t.Errorf("bad language list: %v", err)
	}

	// German: with its pack, the umlauts and ß come out.
	out, _ := exec.Command("tesseract", "--list-langs").Output()
	if !strings.Contains(string(out), "\ndeu\n") {
		t.Skip("tesseract has no German pack (apt-get install tesseract-ocr-deu; .ci/run installs it)")
	}
	var p fxPage
	img := textImage("Die Größe der Brücke über den Fluss", "wurde im März gemessen.")
	p.images = append(p.images, fxImage{x: 36, y: 500, w: 540, h: 540 * 260 / 1400, img: img})
	doc, info, err := read(Config{OCRLanguage: "deu"}, fxDoc{pages: []fxPage{p}}.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if text := pdfText(doc); !strings.Contains(text, "Größe") || !strings.Contains(text, "Brücke") || !strings.Contains(text, "März") {
		t.Errorf("German OCR: %q", text)
	}
	if !strings.Contains(strings.Join(info.Warnings, "\n"), "read by OCR (tesseract, deu)") {
		t.Errorf("warnings %q", info.Warnings)
	}
}
