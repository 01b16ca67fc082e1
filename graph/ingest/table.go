package ingest

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Bounds on table spans, so that a hostile rowspan or colspan cannot blow up
// memory: HTML caps colspan at 1000 and rowspan at 65534; we also cap the
// number of rendered cells and, since a spanning cell repeats its text in
// every position it covers, the rendered bytes of all tables of one body.
const (
	maxColspan    = 1000
	maxRowspan    = 65534
	maxTableCells = 1 << 20
	maxTableBytes = 8 << 20
	// A body of n bytes renders to at most max(minTableBytes,
	// tableGrowth·n) bytes (and never above maxTableBytes), so that the
	// output of a content list grows linearly with its size.
	minTableBytes = 64 << 10
	tableGrowth   = 16
)

// tableText renders an HTML table (MinerU's table_body) as text: one line
// per row, cells separated by " | ". A cell spanning several rows or columns
// (rowspan, colspan) is repeated in every grid position it covers, so each
// line reads on its own. A <caption> becomes the first line. Input that is
// not a table is rendered as its text content.
func tableText(body string) string {
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return strings.TrimSpace(body)
	}
	var tables []*html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			tables = append(tables, n)
			return // nested tables are rendered inside their cell
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if len(tables) == 0 {
		return collapse(nodeText(doc))
	}
	parts := make([]string, 0, len(tables))
	size := 0 // rendered bytes of all tables, against the budget
	budget := min(maxTableBytes, max(minTableBytes, tableGrowth*len(body)))
	for _, t := range tables {
		if s := renderTable(t, &size, budget); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

type carry struct {
	text string
	left int // rows still covered below
}

func renderTable(t *html.Node, sizep *int, budget int) string {
	var lines []string
	var caption string
	var carries []carry
	cells := 0
	var rows []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				rows = append(rows, c)
			case atom.Caption:
				caption = collapse(nodeText(c))
			case atom.Table:
				// nested table outside a cell: skip
			default:
				walk(c)
			}
		}
	}
	walk(t)
	if caption != "" {
		lines = append(lines, caption)
	}
	// A first row that is one cell across the whole table is its title
	// (MinerU writes a table's heading so): a line of its own, not a
	// header repeated over every column, so the next row names the
	// columns.
	if len(rows) > 1 {
		if title, ok := titleRow(rows); ok {
			lines = append(lines, title)
			rows = rows[1:]
		}
	}
	size := *sizep
	defer func() { *sizep = size }()
	for _, tr := range rows {
		if cells >= maxTableCells || size >= budget {
			break
		}
		var row []string
		col := 0
		full := func() bool { return cells >= maxTableCells || size >= budget }
		take := func() { // cells carried down from rows above
			for col < len(carries) && carries[col].left > 0 && !full() {
				row = append(row, carries[col].text)
				carries[col].left--
				col++
				cells++
				size += len(carries[col-1].text) + 3
			}
		}
		for c := tr.FirstChild; c != nil && !full(); c = c.NextSibling {
			if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
				continue
			}
			take()
			text := collapse(nodeText(c))
			cs := min(span(c, "colspan", maxColspan), maxTableCells-cells)
			rs := span(c, "rowspan", maxRowspan)
			for k := 0; k < cs && size < budget; k++ {
				for len(carries) <= col {
					carries = append(carries, carry{})
				}
				carries[col] = carry{text: text, left: rs - 1}
				row = append(row, text)
				col++
				cells++
				size += len(text) + 3
			}
		}
		take()
		for ; col < len(carries) && !full(); col++ {
			if carries[col].left > 0 { // a spanning cell right of the row's last cell
				for len(row) < col {
					row = append(row, "")
				}
				row = append(row, carries[col].text)
				carries[col].left--
				cells++
				size += len(carries[col].text) + 3
			}
		}
		if line := joinRow(row); line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// htmlPart is a piece of an HTML fragment in document order: a table
// rendered by renderTable, or the text between tables.
type htmlPart struct {
	table bool
	text  string
}

// htmlParts splits the parsed fragment h into its tables and the text
// around them, bounded as tableText bounds its output.
func htmlParts(h *html.Node) []htmlPart {
	var parts []htmlPart
	var text strings.Builder
	size := 0
	budget := maxTableBytes
	flush := func() {
		if t := collapse(text.String()); t != "" {
			parts = append(parts, htmlPart{text: t})
		}
		text.Reset()
	}
	var rec func(n *html.Node)
	rec = func(n *html.Node) {
		switch {
		case n.Type == html.ElementNode && n.DataAtom == atom.Table:
			flush()
			if s := renderTable(n, &size, budget); s != "" {
				parts = append(parts, htmlPart{table: true, text: s})
			}
			return
		case n.Type == html.TextNode:
			text.WriteString(n.Data)
			return
		case n.Type == html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style:
				return
			case atom.Br, atom.P, atom.Div, atom.Li, atom.Tr, atom.Td, atom.Th:
				text.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(h)
	flush()
	return parts
}

// titleRow reports whether the first of rows is one cell spanning as many
// columns as any other row has (and at least two), and returns its text.
func titleRow(rows []*html.Node) (string, bool) {
	var only *html.Node
	for c := rows[0].FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
			if only != nil {
				return "", false
			}
			only = c
		}
	}
	if only == nil || span(only, "rowspan", maxRowspan) > 1 {
		return "", false
	}
	cs := span(only, "colspan", maxColspan)
	width := 0
	for _, tr := range rows[1:] {
		w := 0
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
				w += span(c, "colspan", maxColspan)
			}
		}
		width = max(width, w)
	}
	text := collapse(nodeText(only))
	return text, cs >= 2 && cs >= width && text != ""
}

// joinRow joins cells with " | ", dropping trailing empty cells; an all-empty
// row gives "".
func joinRow(row []string) string {
	end := len(row)
	for end > 0 && row[end-1] == "" {
		end--
	}
	return strings.Join(row[:end], " | ")
}

// span reads a rowspan/colspan attribute: 1 when absent or invalid, capped.
func span(n *html.Node, name string, limit int) int {
	for _, a := range n.Attr {
		if a.Key != name {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(a.Val))
		if err != nil || v < 1 {
			return 1
		}
		return min(v, limit)
	}
	return 1
}

// nodeText concatenates the text under n; <br> and block ends become
// spaces.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var rec func(n *html.Node)
	rec = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Br, atom.P, atom.Div, atom.Li, atom.Tr:
				b.WriteByte(' ')
			case atom.Td, atom.Th:
				b.WriteString(" ")
			case atom.Script, atom.Style:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// collapse trims s and collapses runs of white space to one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// mustParseHTML parses an HTML fragment; on error it returns a text node
// holding the input.
func mustParseHTML(s string) *html.Node {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return &html.Node{Type: html.TextNode, Data: s}
	}
	return doc
}
