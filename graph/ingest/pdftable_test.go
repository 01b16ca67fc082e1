package ingest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/realdocs"
)

// unruled is a two-page report with a table drawn without rules: a
// header over four columns (the numbers right-aligned, one cell empty,
// names of several words), prose set close above and below it, and the
// table continuing on page 2 without its header.
func unruled() fxDoc {
	var p1, p2 fxPage
	p1.runs = append(p1.runs, fxRun{x: 72, y: 720, size: 14, text: "Quarterly Shipments"})
	p1.column(72, 690,
		"The harbour office counts every vessel that loads",
		"or unloads at the quay, port by port, as follows.")
	row := func(p *fxPage, y float64, port, vessel, tonnes, status string) {
		if port != "" {
			p.runs = append(p.runs, fxRun{x: 72, y: y, size: 10, text: port})
		}
		if vessel != "" {
			p.runs = append(p.runs, fxRun{x: 150, y: y, size: 10, text: vessel})
		}
		if tonnes != "" { // right-aligned at x 330: Courier is 6pt a glyph
			p.runs = append(p.runs, fxRun{x: 330 - 6*float64(len(tonnes)), y: y, size: 10, text: tonnes})
		}
		if status != "" {
			p.runs = append(p.runs, fxRun{x: 360, y: y, size: 10, text: status})
		}
	}
	// The header: "Vessel name" centred over its column, "Tonnes" over
	// the right-aligned numbers.
	p1.runs = append(p1.runs,
		fxRun{x: 72, y: 660, size: 10, text: "Port"},
		fxRun{x: 168, y: 660, size: 10, text: "Vessel name"},
		fxRun{x: 294, y: 660, size: 10, text: "Tonnes"},
		fxRun{x: 360, y: 660, size: 10, text: "Status"})
	body := [][4]string{
		{"Rotterdam", "Nordic Star", "1,250", "On time"},
		{"Le Havre", "Baltic Queen Mary", "980", "Delayed"},
		{"Hamburg", "Elbe", "12,400", ""},
		{"Antwerp", "Scheldt Pride", "", "Cancelled"},
		{"Gdansk", "Amber", "77", "On time"},
	}
	for i, r := range body {
		row(&p1, 646-14*float64(i), r[0], r[1], r[2], r[3])
	}
	for i, r := range [][4]string{
		{"Bilbao", "Cantabria", "3,010", "Delayed"},
		{"Porto", "Douro Light", "450", "On time"},
		{"Cork", "Lee", "2,200", "On time"},
	} {
		row(&p2, 720-14*float64(i), r[0], r[1], r[2], r[3])
	}
	p2.column(72, 678,
		"Tonnes are gross weights as declared by the master",
		"of each vessel; a cancelled call carries none.")
	return fxDoc{pages: []fxPage{p1, p2}}
}

// TestPDFUnruledTable: a table without rules comes out as one table item
// per page, a row per line with every cell under its header (the header
// repeated on the page that continues it), and the prose around it as
// text; both readers give the same.
func TestPDFUnruledTable(t *testing.T) {
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			doc, info, _ := readPDF(t, r, unruled().bytes())
			golden(t, "pdf/unruled.txt", pdfText(doc))
			if info.Tables != 2 {
				t.Errorf("info %+v", info)
			}
			var pages []int
			for _, it := range doc.Items {
				if it.Modality == graph.ModalityTable {
					pages = append(pages, it.Page)
				}
			}
			if len(pages) != 2 || pages[0] != 0 || pages[1] != 1 {
				t.Errorf("table pages %v", pages)
			}
		})
	}
}

// TestPDFWarnReport reads the California WARN report (16 pages, 15 of
// them one table without rules; a real public document kept outside the
// repository, see testdata/pdf/real/README.md) with both readers. Every
// data row is checked against an oracle made by another program,
// Poppler's pdftotext -layout (warnOracle; 633 rows): a row comes out
// right when it is one line of the table with seven cells whose words are
// the oracle line's, and, where the oracle splits the line into seven
// fields (621 rows), the same seven cells. The cells are also checked by
// kind: three dates, a count, and the kind of layoff. The goal is 95% of
// the rows; all of them come out right.
func TestPDFWarnReport(t *testing.T) {
	data := realdocs.Read(t, "pdf/ca-warn-report.pdf")
	oracle := warnOracle(t, data)
	if len(oracle) != 633 {
		t.Fatalf("the oracle has %d rows, want 633", len(oracle))
	}
	date := regexp.MustCompile(`^\d\d/\d\d/\d{4}$`)
	count := regexp.MustCompile(`^\d+$`)
	kind := regexp.MustCompile(`^(Layoff|Closure) (Permanent|Temporary|Unknown at this time)$`)
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			doc, _, _ := readPDF(t, r, data)
			var rows [][]string
			for _, it := range doc.Items {
				if it.Modality != graph.ModalityTable {
					continue
				}
				for _, l := range strings.Split(it.Text, "\n") {
					rows = append(rows, strings.Split(l, " | "))
				}
			}
			// Index the table's rows by their words.
			byWords := map[string][][]string{}
			for _, c := range rows {
				k := strings.Join(strings.Fields(strings.Join(c, " ")), " ")
				byWords[k] = append(byWords[k], c)
			}
			right := 0
			var wrong []string
			for _, o := range oracle {
				k := strings.Join(strings.Fields(strings.Join(o, " ")), " ")
				cands := byWords[k]
				ok := false
				for _, c := range cands {
					if len(c) != 7 || !date.MatchString(c[0]) || !date.MatchString(c[1]) || !date.MatchString(c[2]) ||
						c[3] == "" || c[4] == "" || !count.MatchString(c[5]) || !kind.MatchString(c[6]) {
						continue
					}
					if len(o) == 7 && strings.Join(o, "\t") != strings.Join(c, "\t") {
						continue
					}
					ok = true
				}
				if ok {
					right++
				} else if len(wrong) < 5 {
					wrong = append(wrong, strings.Join(o, "\t"))
				}
			}
			t.Logf("%s: %d of %d rows with all their cells (%.1f%%); not: %q", name, right, len(oracle), 100*float64(right)/float64(len(oracle)), wrong)
			if 100*right < 95*len(oracle) {
				t.Errorf("%d of %d rows right, want 95%%; first wrong: %q", right, len(oracle), wrong)
			}
		})
	}
}

// warnOracle is the WARN report's data rows as Poppler lays them out
// (pdftotext -layout, pages 1-15), one row a line split into fields at
// runs of two spaces; the README beside the document gives the same as a
// shell pipeline. A long company name with one space before its city
// leaves a row of fewer than seven fields (12 of the 633).
func warnOracle(t *testing.T, pdf []byte) [][]string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("the oracle needs pdftotext (Debian package poppler-utils)")
	}
	p := filepath.Join(t.TempDir(), "warn.pdf")
	if err := os.WriteFile(p, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", "-f", "1", "-l", "15", p, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	row := regexp.MustCompile(`^\s*[0-9]{2}/[0-9]{2}/[0-9]{4}\s+[0-9]{2}/`)
	gap := regexp.MustCompile(` {2,}`)
	lead := regexp.MustCompile(`^([0-9]{2}/[0-9]{2}/[0-9]{4}) ([0-9]{2}/)`)
	var rows [][]string
	for _, l := range strings.Split(string(out), "\n") {
		if !row.MatchString(l) {
			continue
		}
		l = strings.TrimSpace(l)
		l = gap.ReplaceAllString(l, "\t")
		l = lead.ReplaceAllString(l, "$1\t$2")
		rows = append(rows, strings.Split(l, "\t"))
	}
	return rows
}

// words makes a row of words at height y from (x, text) pairs, each word
// 6pt a character at 10pt (Courier).
func words(y float64, xs ...any) tableRow {
	var r tableRow
	for i := 0; i+1 < len(xs); i += 2 {
		x := xs[i].(float64)
		for _, w := range strings.Fields(xs[i+1].(string)) {
			r.words = append(r.words, pdfWord{pdfBox{x, y, x + 6*float64(len(w)), y + 10}, w})
			x += 6 * float64(len(w)+1)
		}
	}
	r.pdfBox = pdfBox{r.words[0].x0, y, r.words[len(r.words)-1].x1, y + 10}
	return r
}

// TestTableColumns checks the column test on its own: prose, two text
// columns and a list are not tables; a header's words spread over the
// white of a column of numbers join that column.
func TestTableColumns(t *testing.T) {
	prose := []tableRow{
		words(100, 72.0, "The quick brown fox jumps over the lazy dog and"),
		words(112, 72.0, "then it runs far away into the deep dark forest"),
		words(124, 72.0, "where nobody will ever find it again or so they"),
	}
	if c := tableColumns(prose); c != nil {
		t.Errorf("prose: %+v", c)
	}
	twoCols := []tableRow{
		words(100, 72.0, "Left column text goes on", 320.0, "Right column text goes on"),
		words(112, 72.0, "and on for a few lines", 320.0, "and on for a few lines too"),
		words(124, 72.0, "before it ends here.", 320.0, "before it ends there."),
	}
	if c := tableColumns(twoCols); c != nil {
		t.Errorf("two text columns: %+v", c)
	}
	spread := []tableRow{
		words(100, 72.0, "City", 156.0, "No.", 180.0, "Of", 240.0, "Kind"),
		words(112, 72.0, "Milpitas", 132.0, "213", 240.0, "Layoff"),
		words(124, 72.0, "Novato", 138.0, "35", 240.0, "Closure"),
		words(136, 72.0, "Chico", 138.0, "44", 240.0, "Layoff"),
	}
	c := tableColumns(spread)
	if c == nil {
		t.Fatal("spread header: no columns")
	}
	tb := c.table(spread)
	if tb == nil || !tb.header || tb.text() != "City | No. Of | Kind\nMilpitas | 213 | Layoff\nNovato | 35 | Closure\nChico | 44 | Layoff" {
		t.Errorf("spread header: %+v", tb)
	}
}

// A table longer than tableMaxRows rows is cut into tables of at most that
// many (the work of the column test is bounded by it), none lost.
func TestLongTable(t *testing.T) {
	var lines []pdfLine
	n := 2*tableMaxRows + 500
	for r := range n {
		var l pdfLine
		for c := range 4 {
			x, y := 50+float64(c)*100, float64(r)*12
			w := pdfWord{pdfBox{x, y, x + 30, y + 10}, fmt.Sprint(r*7 + c)}
			l.words = append(l.words, w)
			l.grow(w.pdfBox)
		}
		lines = append(lines, splitLine(l)...)
	}
	rows := 0
	var sizes []int
	for _, b := range orderBlocks(groupLines(lines)) {
		if b.table == nil {
			t.Fatalf("a block of text: %q", blockText(b))
		}
		rows += len(b.table.rows)
		sizes = append(sizes, len(b.table.rows))
	}
	if rows != n || len(sizes) != 3 || sizes[0] != tableMaxRows {
		t.Errorf("%d rows in tables of %v", rows, sizes)
	}
}
