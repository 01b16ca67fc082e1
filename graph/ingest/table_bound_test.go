package ingest

import (
	"strings"
	"testing"
)

// A small table_body with huge spans and a long cell text must not render
// to gigabytes: spans repeat the text in every covered position, so the
// rendering is capped in bytes as well as in cells (found by FuzzTableText:
// 8.5 KB of HTML gave a 2 GB string).
func TestTableTextOutputIsBounded(t *testing.T) {
	body := `<table><tr><td rowspan="65534" colspan="1000">` + strings.Repeat("y", 4000) + `</td></tr>` +
		strings.Repeat("<tr></tr>", 500) + `</table>`
	out := tableText(body)
	if budget := max(minTableBytes, tableGrowth*len(body)); len(out) > budget+2*4100 {
		t.Fatalf("%d bytes of HTML rendered to %d bytes", len(body), len(out))
	}
	if !strings.HasPrefix(out, strings.Repeat("y", 4000)+" | ") {
		t.Fatalf("rendering lost its first cell: %.80q", out)
	}
}

// The byte cap holds across the tables of one body, not per table, and
// grows only linearly with the body.
func TestTableTextBoundAcrossTables(t *testing.T) {
	one := `<table><tr><td rowspan="65534" colspan="1000">` + strings.Repeat("z", 1000) + `</td></tr>` +
		strings.Repeat("<tr></tr>", 20) + `</table>`
	body := strings.Repeat(one, 40)
	if out := tableText(body); len(out) > max(minTableBytes, tableGrowth*len(body))+2*1100 {
		t.Fatalf("%d bytes of HTML rendered to %d bytes", len(body), len(out))
	}
}
