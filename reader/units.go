package reader

import (
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

type nodeT = graph.Node

// Unit kinds: the pieces the extractive reader can answer with.
const (
	unitSentence = "sentence"
	unitItem     = "item"
	unitRow      = "row"
	unitCaption  = "caption"
)

// unit is one answerable piece of a node.
type unit struct {
	kind string
	// text is what is matched and, for sentences and items, answered.
	text string
	// raw is the text as it appears in the node (the quoted span).
	raw string
	// header and cells are a table row's column names and values.
	header, cells []string
	// group is the section label the row stands under ("Edible Tallow
	// ($/cwt)" over "Chicago | 34.50 | 30.50"), "" when none; label marks
	// the section label row itself, which names the rows below it and
	// holds no value of its own.
	group string
	label bool
	// borrowed: the header's value columns are named by an earlier table
	// of the document (borrowHeader).
	borrowed bool
}

// units splits a node into sentences, list items and table rows (with
// their header), plus caption and in-image text for visual nodes.
func units(n *graph.Node) []unit {
	var out []unit
	if n.Modality != graph.ModalityText {
		if c := strings.TrimSpace(n.Caption); c != "" {
			out = append(out, unit{kind: unitCaption, text: c, raw: c})
		}
	}
	out = append(out, textUnits(n.Content, n.Modality == graph.ModalityTable)...)
	if n.Modality != graph.ModalityText {
		for _, s := range sentences(n.ImageText) {
			out = append(out, unit{kind: unitSentence, text: s, raw: s})
		}
		if len(out) == 0 {
			for _, s := range sentences(n.Summary) {
				out = append(out, unit{kind: unitSentence, text: s, raw: s})
			}
		}
	}
	return out
}

// textUnits splits text into table rows (HTML, Markdown pipe or
// tab-separated tables), list items and sentences.
func textUnits(s string, table bool) []unit {
	if rows := htmlTable(s); len(rows) > 0 {
		return rowUnits(rows, nil)
	}
	var out []unit
	lines := strings.Split(s, "\n")
	var prose []string
	flushProse := func() {
		for _, p := range sentences(strings.Join(prose, "\n")) {
			k := unitSentence
			if listItem(p) {
				k = unitItem
			}
			out = append(out, unit{kind: k, text: p, raw: p})
		}
		prose = nil
	}
	for i := 0; i < len(lines); {
		if sep := tableSep(lines[i], table); sep != "" {
			j := i
			var rows [][]string
			var raws []string
			// A table whose first line starts with "|" has borders; one
			// rendered "a | b | c" has none, and a line " | b | c" there
			// begins with an empty cell.
			bordered := strings.HasPrefix(strings.TrimSpace(lines[i]), "|")
			for j < len(lines) && tableSep(lines[j], table) == sep {
				cells := splitRow(lines[j], sep, bordered)
				if !ruleRow(cells) {
					rows = append(rows, cells)
					raws = append(raws, strings.TrimSpace(lines[j]))
				}
				j++
			}
			if len(rows) >= 2 {
				flushProse()
				out = append(out, rowUnits(rows, raws)...)
				i = j
				continue
			}
		}
		prose = append(prose, lines[i])
		i++
	}
	flushProse()
	return out
}

// tableSep returns the cell separator of a table line: "|" for a Markdown
// row or, inside a table node, a row rendered as "a | b | c" (ingest's
// TableText); "\t" for a tab-separated row in a table node; "" otherwise.
func tableSep(line string, table bool) string {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2:
		return "|"
	case table && strings.Contains(t, " | "):
		return "|"
	case table && strings.Contains(t, "\t"):
		return "\t"
	}
	return ""
}

func splitRow(line, sep string, bordered bool) []string {
	t := strings.TrimSpace(line)
	if sep == "|" && bordered {
		t = strings.TrimPrefix(strings.TrimSuffix(t, "|"), "|")
	}
	cells := strings.Split(t, sep)
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// ruleRow reports a Markdown header rule (|---|:---:|).
func ruleRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

var (
	trRE   = regexp.MustCompile(`(?is)<tr[^>]*>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?is)<t([hd])[^>]*>(.*?)</t[hd]>`)
	tagsRE = regexp.MustCompile(`(?s)<[^>]*>`)
)

// htmlTable reads the rows of an HTML table (MinerU table_body).
func htmlTable(s string) [][]string {
	if !strings.Contains(strings.ToLower(s), "<tr") {
		return nil
	}
	var rows [][]string
	for _, tr := range trRE.FindAllStringSubmatch(s, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(tr[1], -1) {
			cells = append(cells, strings.TrimSpace(html.UnescapeString(tagsRE.ReplaceAllString(c[2], " "))))
		}
		if len(cells) > 0 {
			rows = append(rows, cells)
		}
	}
	return rows
}

// maxHeaderRows bounds how many leading rows headerRows merges.
const maxHeaderRows = 3

// headerRows returns how many leading rows of a table are its header: the
// first row, and each next row whose first cell repeats the first row's
// (a row-spanning header cell, which ingest repeats in every row it
// covers: "Methods | REQ | REQ" over "Methods | P | R") or which repeats
// the row above entirely; at most maxHeaderRows, and never every row.
func headerRows(rows [][]string) int {
	k := 1
	for k < len(rows)-1 && k < maxHeaderRows {
		r, first, prev := rows[k], rows[0], rows[k-1]
		spanned := len(r) > 0 && len(first) > 0 && r[0] != "" && r[0] == first[0]
		if !spanned && !equalRows(r, prev) {
			break
		}
		k++
	}
	return k
}

func equalRows(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mergeHeader names each column by its header rows top to bottom, each
// distinct name once ("REQ" over "P" is "REQ P"; a spanning "Methods" stays
// "Methods").
func mergeHeader(rows [][]string) []string {
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	out := make([]string, n)
	for j := range out {
		var parts []string
		for _, r := range rows {
			if j < len(r) && r[j] != "" && (len(parts) == 0 || parts[len(parts)-1] != r[j]) {
				parts = append(parts, r[j])
			}
		}
		out[j] = strings.Join(parts, " ")
	}
	return out
}

// rowUnits makes one unit per body row below the header rows (headerRows;
// several are merged per column by mergeHeader). A row reads "Header:
// value; Header: value" so that questions naming a column match it.
func rowUnits(rows [][]string, raws []string) []unit {
	k := headerRows(rows)
	header := rows[0]
	if k > 1 {
		header = mergeHeader(rows[:k])
	}
	var out []unit
	above, group := "", ""
	body := rows[k:]
	for i, row := range body {
		isLabel := sectionLabel(body, i)
		if isLabel {
			group = strings.TrimSpace(row[0])
		}
		// An empty first cell continues the row label above it (a label
		// spanning rows, as Markdown tables write it): the row reads with
		// it.
		if len(row) > 1 && strings.TrimSpace(row[0]) == "" && above != "" {
			row = append([]string{above}, row[1:]...)
		} else if len(row) > 0 {
			above = row[0]
		}
		g := group
		if isLabel {
			g = ""
		}
		raw := strings.Join(row, " | ")
		if raws != nil {
			raw = raws[i+k]
		}
		out = append(out, unit{kind: unitRow, text: rowText(g, header, row), raw: raw, header: header, cells: row, group: g, label: isLabel})
	}
	return out
}

// rowText is how a row is matched: its section label, then "Header:
// value" pairs, so that questions naming a column match it.
func rowText(group string, header, row []string) string {
	var parts []string
	if group != "" {
		parts = append(parts, group)
	}
	for j, c := range row {
		if j < len(header) && header[j] != "" {
			parts = append(parts, header[j]+": "+c)
		} else {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, "; ")
}

// sectionLabel reports whether body row i is a section label: a table of
// three columns or more whose row sets its first cell and at most one
// other (a stray value beside it, such as a chart's axis), while the next
// row that sets its first cell sets at least two cells more. Such a row
// ("Biodiesel B100 (SME) ($/gal)") names the rows under it up to the next
// label, as a heading names its paragraphs; a last row with a single
// value ("Totals | | | 512") is no label, since no row follows it.
func sectionLabel(body [][]string, i int) bool {
	row := body[i]
	if len(row) < 3 || strings.TrimSpace(row[0]) == "" {
		return false
	}
	set := filled(row)
	if set > 2 {
		return false
	}
	for _, next := range body[i+1:] {
		if len(next) == 0 || strings.TrimSpace(next[0]) == "" {
			continue
		}
		return filled(next) >= set+2
	}
	return false
}

// filled counts a row's non-empty cells.
func filled(row []string) int {
	n := 0
	for _, c := range row {
		if strings.TrimSpace(c) != "" {
			n++
		}
	}
	return n
}

// rowLabel is the name a row is quoted by: its first cell, under its
// section label when it has one.
func rowLabel(u unit) string {
	if len(u.cells) == 0 {
		return u.group
	}
	if u.group != "" {
		return u.group + " — " + u.cells[0]
	}
	return u.cells[0]
}

// positional reports whether a header only numbers its columns ("column
// 1 | column 2 | …"), as ingest names the columns of a table found
// without a header row.
func positional(header []string) bool {
	if len(header) == 0 {
		return false
	}
	for j, h := range header {
		if h != "column "+strconv.Itoa(j+1) {
			return false
		}
	}
	return true
}

// borrowHeader names the value columns of a table found without a header
// by the header of the nearest table before it in the same document that
// has one and as many columns: a report that prints its header once over
// parts set apart by charts or labels ("W/E | Last Week | Year Ago" over
// each commodity's prices). The first column keeps its positional name:
// the earlier table's first header names its own rows ("Ethanol ($/gal)"),
// not these. Only the evidence read (nodes) is searched, so that the
// work stays bounded by the evidence, not the collection. us are node n's
// units; they are returned, changed in place.
func borrowHeader(g *graph.Graph, nodes []int, n *graph.Node, us []unit) []unit {
	if n.Modality != graph.ModalityTable || len(us) == 0 {
		return us
	}
	var header []string
	for _, u := range us {
		if u.kind == unitRow {
			header = u.header
			break
		}
	}
	if !positional(header) {
		return us
	}
	var donor []string
	best := -1
	for _, k := range nodes {
		d := &g.Nodes[k]
		if d.Doc != n.Doc || d.Modality != graph.ModalityTable || d.Order >= n.Order || d.Order <= best {
			continue
		}
		for _, u := range units(d) {
			if u.kind == unitRow {
				if len(u.header) == len(header) && !positional(u.header) {
					donor, best = u.header, d.Order
				}
				break
			}
		}
	}
	if donor == nil {
		return us
	}
	named := append([]string{header[0]}, donor[1:]...)
	for i := range us {
		if us[i].kind == unitRow && len(us[i].header) == len(named) {
			us[i].header, us[i].borrowed = named, true
			us[i].text = rowText(us[i].group, named, us[i].cells)
		}
	}
	return us
}
