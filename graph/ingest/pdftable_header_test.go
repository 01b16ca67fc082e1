package ingest

import (
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// ledger is a two-page report whose tables test the header and the row
// rules of unruled tables:
//
//   - page 1: a header whose names over two narrow columns of numbers
//     stand a word space apart ("Hand Long"), a section label between the
//     header and the body ("Fuel use"), and a note that wraps onto a line
//     of its own running further right than the notes above it, and a
//     totals row with two values in one column;
//   - page 2: a table printed without a header (its columns are named by
//     position), then two columns of prose and a list, which stay text;
//   - page 3: a header printed once at the top, above a table of other
//     columns, that names the columns of the table below it.
func ledger() fxDoc {
	var p1, p2 fxPage
	p1.runs = append(p1.runs, fxRun{x: 72, y: 740, size: 14, text: "Weekly Ledger"})
	right := func(p *fxPage, edge, y float64, s string) {
		p.runs = append(p.runs, fxRun{x: edge - 6*float64(len(s)), y: y, size: 10, text: s})
	}
	p1.runs = append(p1.runs,
		fxRun{x: 72, y: 700, size: 10, text: "Code"},
		fxRun{x: 150, y: 700, size: 10, text: "Hand Long"},
		fxRun{x: 240, y: 700, size: 10, text: "Note"},
		fxRun{x: 510, y: 700, size: 10, text: "Total"},
		fxRun{x: 72, y: 686, size: 10, text: "Fuel use"})
	y := 672.0
	for _, r := range [][5]string{
		{"A-101", "12", "340", "Depot run", "1,250.00"},
		{"A-102", "7", "1,020", "Night shift", "980.50"},
		{"A-103", "15", "88", "Relief convoy to the northern", "2,010.00"},
		{"", "", "", "border crossings and the coastal road", ""},
		{"A-104", "3", "410", "Depot run", "640.00"},
		{"A-105", "9", "77", "Spares", "1,100.00"},
	} {
		if r[0] != "" {
			p1.runs = append(p1.runs, fxRun{x: 72, y: y, size: 10, text: r[0]})
			right(&p1, 174, y, r[1])
			right(&p1, 216, y, r[2])
			right(&p1, 540, y, r[4])
		}
		p1.runs = append(p1.runs, fxRun{x: 240, y: y, size: 10, text: r[3]})
		y -= 14
	}
	// A totals row with a value where the body has none: two cells in
	// the note column, apart by more than a word space.
	p1.runs = append(p1.runs, fxRun{x: 72, y: y, size: 10, text: "All"},
		fxRun{x: 240, y: y, size: 10, text: "(5)"}, fxRun{x: 400, y: y, size: 10, text: "runs"})
	right(&p1, 174, y, "46")
	right(&p1, 216, y, "1,935")
	right(&p1, 540, y, "5,980.50")
	p1.column(72, 560,
		"Totals are in euros and include the fuel duty paid at the",
		"depot; the notes name the route where it was not the usual.")

	p2.column(72, 740,
		"The depots open on these days and hours of the week, and",
		"every depot keeps the same hours through the whole year.")
	y = 700
	for _, r := range [][4]string{
		{"North", "1,200", "3.5", "open"},
		{"South", "860", "2.0", "closed"},
		{"East", "1,010", "4.5", "open"},
		{"West", "95", "1.0", "open"},
	} {
		p2.runs = append(p2.runs, fxRun{x: 72, y: y, size: 10, text: r[0]})
		right(&p2, 200, y, r[1])
		right(&p2, 260, y, r[2])
		p2.runs = append(p2.runs, fxRun{x: 300, y: y, size: 10, text: r[3]})
		y -= 14
	}
	p2.column(72, 600,
		"Drivers who start before six",
		"sign the early book at the",
		"gate, and the clerk copies",
		"it into the ledger at noon.")
	p2.column(320, 600,
		"Drivers who end after ten",
		"leave the keys in the night",
		"safe; the foreman counts",
		"them at the morning call.")
	p2.column(72, 520,
		"1. Check the tyres before each run.",
		"2. Fill the log with the odometer.",
		"3. Report any damage at the gate.")
	// Page 3: a header printed once at the top of the page, above a
	// staff list of other columns set apart from it, names the columns
	// of the table further down.
	var p3 fxPage
	p3.runs = append(p3.runs,
		fxRun{x: 72, y: 740, size: 10, text: "Ref"},
		fxRun{x: 150, y: 740, size: 10, text: "Day"},
		fxRun{x: 228, y: 740, size: 10, text: "Amount"},
		fxRun{x: 300, y: 740, size: 10, text: "Note"})
	y = 710
	for _, r := range [][3]string{
		{"Alder, J", "Clerk", "1,000.00"},
		{"Birch, K", "Driver", "1,450.00"},
		{"Cedar, L", "Foreman", "2,100.00"},
	} {
		p3.runs = append(p3.runs, fxRun{x: 100, y: y, size: 10, text: r[0]}, fxRun{x: 300, y: y, size: 10, text: r[1]})
		right(&p3, 520, y, r[2])
		y -= 14
	}
	y -= 20
	for _, r := range [][4]string{
		{"R-1", "Mon", "120.00", "Fuel"},
		{"R-2", "Tue", "75.50", "Tolls"},
		{"R-3", "Wed", "310.00", "Tyres"},
		{"R-4", "Thu", "42.00", "Fuel"},
	} {
		p3.runs = append(p3.runs, fxRun{x: 72, y: y, size: 10, text: r[0]}, fxRun{x: 150, y: y, size: 10, text: r[1]},
			fxRun{x: 300, y: y, size: 10, text: r[3]})
		right(&p3, 264, y, r[2])
		y -= 14
	}
	return fxDoc{pages: []fxPage{p1, p2, p3}}
}

func TestPDFTableHeaders(t *testing.T) {
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			doc, _, _ := readPDF(t, r, ledger().bytes())
			golden(t, "pdf/ledger.txt", pdfText(doc))
			var tables []string
			for _, it := range doc.Items {
				if it.Modality == graph.ModalityTable {
					tables = append(tables, it.Text)
				}
			}
			if len(tables) != 4 {
				t.Fatalf("%d tables, want 4: %q", len(tables), tables)
			}
			// Page 3: the staff list is not named by the page's header;
			// the expenses table is.
			if first, _, _ := strings.Cut(tables[2], "\n"); first != "column 1 | column 2 | column 3" {
				t.Errorf("staff list's header %q", first)
			}
			if first, _, _ := strings.Cut(tables[3], "\n"); first != "Ref | Day | Amount | Note" {
				t.Errorf("header printed once: %q", first)
			}
			// The header over the narrow columns with the label under it
			// (a header row too: no number in a column of numbers), and
			// the wrapped note inside the table.
			if first, _, _ := strings.Cut(tables[0], "\n"); first != "Code Fuel use | Hand | Long | Note | Total" {
				t.Errorf("header %q", first)
			}
			for _, want := range []string{"A-101 | 12 | 340 | Depot run | 1,250.00", "A-105 | 9 | 77 | Spares | 1,100.00", "border crossings and the coastal road", "All | 46 | 1,935 | (5) runs | 5,980.50"} {
				if !strings.Contains(tables[0], want) {
					t.Errorf("table 1 lacks %q:\n%s", want, tables[0])
				}
			}
			if first, _, _ := strings.Cut(tables[1], "\n"); first != "column 1 | column 2 | column 3 | column 4" {
				t.Errorf("headerless table's header %q", first)
			}
			// The prose columns and the list are text.
			for _, tb := range tables {
				for _, w := range []string{"Drivers", "tyres", "Totals are"} {
					if strings.Contains(tb, w) {
						t.Errorf("%q read into a table:\n%s", w, tb)
					}
				}
			}
		})
	}
}

// A line set half a line off the rows above and below it (a cell wrapped
// over two lines, vertically centred) joins one row, not both: rows are
// grouped by their first segment's box, not by a box that grows.
func TestRegionRowsNoChain(t *testing.T) {
	seg := func(x, y0, y1 float64, s string) pdfLine {
		w := pdfWord{pdfBox{x, y0, x + 6*float64(len(s)), y1}, s}
		return pdfLine{pdfBox: w.pdfBox, words: []pdfWord{w}}
	}
	blocks := []pdfBlock{{lines: []pdfLine{
		seg(72, 100, 110, "A-101"),
		seg(240, 104, 114, "wrapped"),
		seg(72, 109, 119, "A-102"),
	}}}
	rows := regionRows(blocks)
	var got []string
	for _, r := range rows {
		var ws []string
		for _, w := range r.words {
			ws = append(ws, w.s)
		}
		got = append(got, strings.Join(ws, " "))
	}
	if len(got) != 2 || got[0] != "A-101 wrapped" || got[1] != "A-102" {
		t.Errorf("rows %q, want [\"A-101 wrapped\" \"A-102\"]", got)
	}
}
