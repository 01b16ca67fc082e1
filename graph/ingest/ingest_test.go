package ingest

import (
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

const fixtures = "testdata/collection"

func TestMinerUFixture(t *testing.T) {
	doc, err := readOne(Config{}, filepath.Join(fixtures, "report"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.ID != "report" || doc.Title != "Glacier Melt Sensing with the Aurora Probe" {
		t.Fatalf("ID %q title %q", doc.ID, doc.Title)
	}
	var mods []string
	for _, it := range doc.Items {
		mods = append(mods, it.Modality.String())
		if strings.Contains(it.Text, "Confidential") || strings.Contains(it.Text, "Lumen Labs technical report") {
			t.Errorf("page furniture kept: %q", it.Text)
		}
	}
	want := "text text table text figure text figure text"
	if got := strings.Join(mods, " "); got != want {
		t.Fatalf("modalities %q, want %q", got, want)
	}
	table := doc.Items[2]
	wantTable := "Station | Flow (L/s) | Flow (L/s)\n" +
		"Station | July | August\n" +
		"Camp North | 41.5 | 38.2\n" +
		"Camp Ridge | 27.0 | 29.4\n" +
		"Camp Delta | 27.0 | 19.8"
	if table.Text != wantTable {
		t.Errorf("table text:\n%s\nwant:\n%s", table.Text, wantTable)
	}
	if table.Caption != "Table 3: Mean meltwater flow per station (litres per second)." ||
		table.Footnote != "Values averaged over the trial." || table.Page != 1 || table.Section != "Results" {
		t.Errorf("table fields: %+v", table)
	}
	if table.Image == nil || table.Image.Path != "images/flow_table.png" || table.Image.MIME != "image/png" {
		t.Errorf("table image %+v", table.Image)
	}
	fig := doc.Items[4]
	if fig.Caption != "Figure 2: Daily flow at Camp North, June to August 2024." || fig.Image == nil {
		t.Errorf("old img_caption not read: %+v", fig)
	}
	if !strings.Contains(fig.Context, "Camp Ridge and Camp Delta was equal") || !strings.Contains(fig.Context, "Aurora Probe is a low-power") {
		t.Errorf("figure context misses surrounding text: %q", fig.Context)
	}
	chart := doc.Items[6]
	if chart.Caption != "Figure 3: Battery voltage over the trial." || chart.Page != 2 {
		t.Errorf("chart: %+v", chart)
	}
	if !strings.Contains(doc.Items[1].Text, "Thermistor chain: 8 sensors") || doc.Items[1].Section != "Hardware" {
		t.Errorf("list item missing: %+v", doc.Items[1])
	}
	if !strings.Contains(doc.Items[3].Text, "Q = v \\cdot A") {
		t.Errorf("equation not kept as text: %q", doc.Items[3].Text)
	}
	if !strings.Contains(doc.Items[5].Text, "Listing 1: sampling loop") || !strings.Contains(doc.Items[5].Text, "sleep(15") {
		t.Errorf("code: %q", doc.Items[5].Text)
	}
}

func TestMarkdownFixture(t *testing.T) {
	doc, err := readOne(Config{}, filepath.Join(fixtures, "notes", "field-notes.md"))
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	for _, it := range doc.Items {
		mods = append(mods, it.Modality.String())
	}
	if got := strings.Join(mods, " "); got != "text text table figure text" {
		t.Fatalf("modalities %q", got)
	}
	if !strings.Contains(doc.Items[1].Text, "- The upper probe froze twice in June.\n  - It recovered") {
		t.Errorf("nested list: %q", doc.Items[1].Text)
	}
	tab := doc.Items[2]
	if tab.Caption != "Table 4: Probe uptime at Camp Ridge." || tab.Text != "Probe | Uptime (%) | Restarts\nUpper | 91.2 | 2\nLower | 99.6 | 0" {
		t.Errorf("table: %+v", tab)
	}
	fig := doc.Items[3]
	if fig.Caption != "Figure 5: Map of the Camp Ridge probes." || fig.Image == nil || fig.Image.Path != "ridge-map.png" {
		t.Errorf("figure: %+v", fig)
	}
	if fig.Section != "Observations" {
		t.Errorf("figure section %q", fig.Section)
	}
}

func TestPathCollection(t *testing.T) {
	docs, err := Path(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if got := strings.Join(ids, ","); got != "notes/field-notes.md,report,summary.txt" {
		t.Fatalf("ids %q", got)
	}
	if docs[2].Title != "Trial summary" || len(docs[2].Items) != 1 {
		t.Fatalf("text doc: %+v", docs[2])
	}
	if _, err := Path(filepath.Join(fixtures, "report", "images", "flow_chart.png")); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("png file: %v", err)
	}
}

func writeMinerU(t *testing.T, dir, list string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x_content_list.json"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPathTraversalRejected(t *testing.T) {
	for _, p := range []string{"../../etc/passwd", "/etc/passwd", `..\..\secret.png`, "images/../../out.png"} {
		dir := t.TempDir()
		writeMinerU(t, filepath.Join(dir, "doc"), `[{"type":"image","img_path":`+quote(p)+`,"image_caption":["Figure 1"]}]`)
		d, warn := readReported(t, Config{}, filepath.Join(dir, "doc"))
		if len(d.Items) != 1 || d.Items[0].Image != nil || !strings.Contains(warn, "leaves the document's folder") {
			t.Errorf("img_path %q: items %+v, warnings %q; want the figure without its image and a warning", p, d.Items, warn)
		}
	}
	// Markdown too.
	dir := t.TempDir()
	md := filepath.Join(dir, "a.md")
	os.WriteFile(md, []byte("![x](../../etc/passwd)\n"), 0o644)
	if d, warn := readReported(t, Config{}, md); len(d.Items) != 1 || d.Items[0].Image != nil || !strings.Contains(warn, "leaves") {
		t.Errorf("markdown: items %+v, warnings %q", d.Items, warn)
	}
}

// readReported ingests one file or MinerU folder with Read and returns its
// document and its warnings joined.
func readReported(t *testing.T, c Config, p string) (graph.Document, string) {
	t.Helper()
	docs, rep, err := c.Read(context.Background(), p)
	if err != nil || len(docs) != 1 || len(rep.Files) != 1 {
		t.Fatalf("%s: %d documents, report %+v, %v", p, len(docs), rep, err)
	}
	return docs[0], strings.Join(rep.Files[0].Warnings, "; ")
}

func TestSymlinkEscapeRejected(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "secret.png")
	os.WriteFile(outside, []byte("\x89PNG"), 0o644)
	doc := filepath.Join(dir, "doc")
	writeMinerU(t, doc, `[{"type":"image","img_path":"images/link.png","image_caption":["Figure 1"]}]`)
	os.MkdirAll(filepath.Join(doc, "images"), 0o755)
	if err := os.Symlink(outside, filepath.Join(doc, "images", "link.png")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if d, warn := readReported(t, Config{}, doc); d.Items[0].Image != nil || !strings.Contains(warn, "leaves") {
		t.Fatalf("symlink escape: items %+v, warnings %q", d.Items, warn)
	}
	// A symlink that stays inside is fine.
	os.WriteFile(filepath.Join(doc, "real.png"), []byte("\x89PNG"), 0o644)
	os.Remove(filepath.Join(doc, "images", "link.png"))
	os.Symlink(filepath.Join(doc, "real.png"), filepath.Join(doc, "images", "link.png"))
	d, err := readOne(Config{}, doc)
	if err != nil || d.Items[0].Image == nil {
		t.Fatalf("inside symlink: %v %+v", err, d.Items)
	}
}

func TestMinerUMissingImageAndErrors(t *testing.T) {
	dir := t.TempDir()
	writeMinerU(t, dir, `[{"type":"table","img_path":"images/none.png","table_body":"<table><tr><td>a</td></tr></table>"},
		{"type":"text","text":"Body.","page_idx":"3"}]`)
	d, err := readOne(Config{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Items[0].Image != nil || d.Items[0].Text != "a" || d.Items[1].Page != 3 {
		t.Fatalf("items %+v", d.Items)
	}
	writeMinerU(t, dir, `{"not":"a list"}`)
	if _, err := readOne(Config{}, dir); !errors.Is(err, ErrFormat) {
		t.Fatalf("object: %v", err)
	}
	if _, err := (&walker{box: folder{}}).contentList(t.TempDir()); !errors.Is(err, errNoContentList) {
		t.Fatalf("empty dir: %v", err)
	}
}

func TestTableText(t *testing.T) {
	cases := map[string]string{
		`<table><tr><td colspan="3">All</td></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>`:                              "All\na | b | c", // a title row, not a header repeated
		`<table><caption>Cap</caption><tr><td rowspan="3">x</td><td>1</td></tr><tr><td>2</td></tr><tr><td>3</td></tr></table>`: "Cap\nx | 1\nx | 2\nx | 3",
		`<table><tr><td>a<br>b</td><td rowspan="0">z</td></tr></table>`:                                                        "a b | z",
		`plain <b>text</b>`: "plain text",
		`<table><tr><td colspan="99999999">w</td></tr></table>`: strings.TrimSuffix(strings.Repeat("w | ", maxColspan), " | "),
	}
	for in, want := range cases {
		if got := tableText(in); got != want {
			t.Errorf("tableText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitPDFText(t *testing.T) {
	out := "Title line\r\n\n\n\nFirst   para    text\nnext line\n\n3\n\fPage 2 of 9\nSecond page\x00 text\n\f"
	got := splitPDFText(out)
	if len(got) != 2 {
		t.Fatalf("pages %q", got)
	}
	if got[0] != "Title line\n\nFirst  para  text\nnext line" {
		t.Errorf("page 0 %q", got[0])
	}
	if got[1] != "Second page text" {
		t.Errorf("page 1 %q", got[1])
	}
}

// minimalPDF builds a valid one-page-per-string PDF with Helvetica text.
func minimalPDF(pages ...string) []byte {
	var b strings.Builder
	var offs []int
	obj := func(s string) {
		offs = append(offs, b.Len())
		b.WriteString(s)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(pages)
	kids := ""
	for i := range pages {
		kids += " " + itoa(4+2*i) + " 0 R"
	}
	obj("1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n")
	obj("2 0 obj << /Type /Pages /Kids [" + kids + " ] /Count " + itoa(n) + " >> endobj\n")
	obj("3 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> endobj\n")
	for i, p := range pages {
		content := "BT /F1 12 Tf 72 720 Td (" + p + ") Tj ET"
		obj(itoa(4+2*i) + " 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents " + itoa(5+2*i) + " 0 R >> endobj\n")
		obj(itoa(5+2*i) + " 0 obj << /Length " + itoa(len(content)) + " >> stream\n" + content + "\nendstream endobj\n")
	}
	xref := b.Len()
	b.WriteString("xref\n0 " + itoa(len(offs)+1) + "\n0000000000 65535 f \n")
	for _, o := range offs {
		s := itoa(o)
		b.WriteString(strings.Repeat("0", 10-len(s)) + s + " 00000 n \n")
	}
	b.WriteString("trailer << /Size " + itoa(len(offs)+1) + " /Root 1 0 R >>\nstartxref\n" + itoa(xref) + "\n%%EOF\n")
	return []byte(b.String())
}

func itoa(i int) string { return strconv.Itoa(i) }

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

func TestPDFReaders(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "two.pdf")
	if err := os.WriteFile(p, minimalPDF("Alpha page one text.", "Beta page two text."), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, reader := range map[string]string{"go": pdfGo, "pdftotext": pdfPoppler} {
		t.Run(name, func(t *testing.T) {
			doc, err := readOne(Config{PDFReader: reader}, p)
			if reader == pdfPoppler && errors.Is(err, ErrUnsupported) {
				t.Skip("pdftotext not installed (apt-get install poppler-utils)")
			}
			if err != nil {
				t.Fatal(err)
			}
			all := ""
			for _, it := range doc.Items {
				all += it.Text + "\n"
			}
			if !strings.Contains(all, "Alpha page one") || !strings.Contains(all, "Beta page two") {
				t.Fatalf("text %q", all)
			}
			if len(doc.Items) != 1 || doc.Items[0].Page != 0 {
				t.Fatalf("items %+v", doc.Items)
			}
		})
	}
	bad := filepath.Join(dir, "bad.pdf")
	os.WriteFile(bad, []byte("%PDF-1.4 garbage"), 0o644)
	if _, err := readOne(Config{}, bad); !errors.Is(err, ErrFormat) {
		t.Fatalf("garbage pdf: %v", err)
	}
}

func TestRealPDFs(t *testing.T) {
	// FLOWREADER_TEST_PDFS names a folder of real PDFs (for example the
	// FeTaTab PDFs of VisDoMBench); the first two are read.
	dir := os.Getenv("FLOWREADER_TEST_PDFS")
	ents, err := os.ReadDir(dir)
	if dir == "" || err != nil {
		t.Skip("FLOWREADER_TEST_PDFS is not a folder of PDFs")
	}
	for _, e := range ents[:min(2, len(ents))] {
		doc, err := readOne(Config{}, filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if len(doc.Items) == 0 {
			t.Fatalf("%s: no text", e.Name())
		}
	}
}

// The fixture images are real PNGs (drawn with image/png for this project).
func TestFixtureImagesDecode(t *testing.T) {
	for _, p := range []string{"report/images/flow_table.png", "report/images/flow_chart.png", "notes/ridge-map.png"} {
		f, err := os.Open(filepath.Join(fixtures, p))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 48 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// readOne ingests one file or MinerU folder with c, as Path does when given it.
func readOne(c Config, p string) (graph.Document, error) {
	docs, err := c.path(p)
	if err != nil {
		return graph.Document{}, err
	}
	if len(docs) != 1 {
		return graph.Document{}, fmt.Errorf("%s: %d documents", p, len(docs))
	}
	return docs[0], nil
}

func TestChunkExample(t *testing.T) {
	text := "First paragraph. It has two sentences.\n\nSecond paragraph."
	got := chunk(text, chunking{size: 40, overlap: -1})
	if want := []string{"First paragraph. It has two sentences.", "Second paragraph."}; !slices.Equal(got, want) {
		t.Fatalf("chunks %q, want %q", got, want)
	}
}

func TestTableTextExample(t *testing.T) {
	got := tableText(`<table>
<tr><th rowspan="2">Site</th><th colspan="2">Rain (mm)</th></tr>
<tr><th>May</th><th>June</th></tr>
<tr><td>North</td><td>40</td><td>12</td></tr></table>`)
	if want := "Site | Rain (mm) | Rain (mm)\nSite | May | June\nNorth | 40 | 12"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPDFReaderName checks that an unknown PDFReader fails Read and FS at
// once, before any file is read.
func TestPDFReaderName(t *testing.T) {
	c := Config{PDFReader: "poppler"}
	if _, _, err := c.Read(context.Background(), "testdata/collection"); err == nil || !strings.Contains(err.Error(), `PDFReader "poppler"`) {
		t.Fatalf("Read: %v", err)
	}
	if _, _, err := c.FS(context.Background(), os.DirFS("testdata"), "collection"); err == nil {
		t.Fatal("FS accepted an unknown PDFReader")
	}
	for _, r := range []string{"", "pdftotext", "go"} {
		if err := (Config{PDFReader: r}).check(); err != nil {
			t.Errorf("%q: %v", r, err)
		}
	}
}
