package ingest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// TestTableSpansOracle checks the rendering of row and column spans
// against an oracle: random tables of merged cells are laid out on a grid
// (each cell written into every position it covers), written as HTML
// with rowspan and colspan, and rendered; every rendered row must be the
// grid's row, so each value stays under its column's header.
func TestTableSpansOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for iter := range 5000 {
		rows, cols := 2+r.IntN(5), 2+r.IntN(5)
		grid := make([][]string, rows)
		for i := range grid {
			grid[i] = make([]string, cols)
		}
		var b strings.Builder
		b.WriteString("<table>")
		id, title := 0, false
		for i := range rows {
			b.WriteString("<tr>")
			for j := range cols {
				if grid[i][j] != "" {
					continue
				}
				rs, cs := 1+r.IntN(3), 1+r.IntN(3)
				fits := func() bool {
					if i+rs > rows || j+cs > cols {
						return false
					}
					for a := i; a < i+rs; a++ {
						for c := j; c < j+cs; c++ {
							if grid[a][c] != "" {
								return false
							}
						}
					}
					return true
				}
				for !fits() {
					if cs > 1 {
						cs--
					} else {
						rs--
					}
				}
				id++
				text := fmt.Sprintf("v%d", id)
				title = title || i == 0 && j == 0 && rs == 1 && cs == cols
				for a := i; a < i+rs; a++ {
					for c := j; c < j+cs; c++ {
						grid[a][c] = text
					}
				}
				fmt.Fprintf(&b, `<td rowspan="%d" colspan="%d">%s</td>`, rs, cs, text)
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</table>")
		var want []string
		for i, row := range grid {
			if i == 0 && title {
				want = append(want, row[0]) // one cell across the table: its title
				continue
			}
			want = append(want, joinRow(row))
		}
		if got := tableText(b.String()); got != strings.Join(want, "\n") {
			t.Fatalf("table %d: %s\ngot\n%s\nwant\n%s", iter, b.String(), got, strings.Join(want, "\n"))
		}
	}
}

// HTML tables in Markdown (MinerU's Markdown, MDX pages) and HTML tables
// MinerU gives inside a text block are table items with their spans
// expanded, not markup or flattened text.
func TestHTMLTablesAreTables(t *testing.T) {
	table := `<table><tr><td rowspan="2">Metric</td><td colspan="2">Setting</td></tr><tr><td>aligned</td><td>unaligned</td></tr><tr><td>ROUGE</td><td>41.2</td><td>38.0</td></tr></table>`
	want := "Metric | Setting | Setting\nMetric | aligned | unaligned\nROUGE | 41.2 | 38.0"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "results.md"), []byte("# Results\n\nTable 2: Scores.\n\n"+table+"\n\nAfter it.\n"), 0o644)
	mineru := filepath.Join(dir, "paper")
	os.Mkdir(mineru, 0o755)
	os.WriteFile(filepath.Join(mineru, "paper_content_list.json"),
		[]byte(`[{"type":"text","text":"Scores follow. `+strings.ReplaceAll(table, `"`, `\"`)+`","page_idx":2}]`), 0o644)
	docs, _, err := Config{}.Read(context.Background(), dir)
	if err != nil || len(docs) != 2 {
		t.Fatalf("%v, %d docs", err, len(docs))
	}
	for _, d := range docs {
		var tables []graph.Item
		for _, it := range d.Items {
			if it.Modality == graph.ModalityTable {
				tables = append(tables, it)
			}
			if strings.Contains(it.Text, "<t") {
				t.Errorf("%s: markup in %q", d.ID, it.Text)
			}
		}
		if len(tables) != 1 || tables[0].Text != want {
			t.Errorf("%s: tables %+v", d.ID, tables)
			continue
		}
		if d.ID == "results.md" && tables[0].Caption != "Table 2: Scores." {
			t.Errorf("caption %q", tables[0].Caption)
		}
		if d.ID == "paper" && tables[0].Page != 2 {
			t.Errorf("page %d", tables[0].Page)
		}
	}
}
