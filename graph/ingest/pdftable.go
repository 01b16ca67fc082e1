package ingest

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Tables without rules. A table drawn without lines is, on the page, words
// in rows and columns: the rows are lines of words at one height, and the
// columns are the strips of white that run down through every row (the
// "rivers" of the table). The column layout would read such a table column
// by column, so before it cuts a region into columns or bands, the rows of
// the region are searched for runs that form a table, and each run becomes
// one block carrying its cells. The same test runs on the words of both
// readers.

// pdfTable is a table recovered from word positions: its rows of cells
// (every row as many cells as there are columns, "" for an empty cell) and
// the x positions that separate its columns.
type pdfTable struct {
	rows [][]string
	// cuts are the column boundaries (the middle of each river), left to
	// right: len(cuts)+1 columns.
	cuts []float64
	// header reports that the first row names the columns: no digit in a
	// column whose body cells mostly hold one.
	header bool
}

// text renders the table as ingest renders every table: a row per line,
// cells joined by " | ", trailing empty cells dropped.
//
// A table found without a header row gets one naming its columns by
// position ("column 1 | column 2 | …"): a reader takes a table's first
// line for its header, and would otherwise lose the first row of data to
// it. Up to positionalMaxCols columns: the names are longer than the
// cells they stand over may be, and a table's text stays within a small
// multiple of the page's.
func (t *pdfTable) text() string {
	lines := make([]string, 0, len(t.rows)+1)
	if !t.header && len(t.rows) > 0 && len(t.rows[0]) <= positionalMaxCols {
		names := make([]string, len(t.rows[0]))
		for k := range names {
			names[k] = "column " + strconv.Itoa(k+1)
		}
		lines = append(lines, joinRow(names))
	}
	for _, r := range t.rows {
		if l := joinRow(r); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

const (
	// A table has at least tableMinRows rows and tableMinCols columns,
	// every column holding words in at least two rows.
	tableMinRows = 3
	tableMinCols = 3
	// tableManyRows rows make a table even without a column of numbers
	// (an author block or an address grid has three or four).
	tableManyRows = 6
	// tableMaxRows bounds a table's rows (a longer run is several tables,
	// each taking the header of the one before): the column test runs on
	// all of a table's rows, so this bounds its work.
	tableMaxRows = 1000
	// tableProseWords: a column whose cells average this many words
	// or more, in most rows, is running text beside the rows (a column of
	// the page), not a column of the table.
	tableProseWords = 8
)

// cellGap is the gap between two words of a row, at row height h, wider
// than any word space: the same bound the captioned tables split cells at.
func cellGap(h float64) float64 { return math.Max(6, 0.6*h) }

// tableRow is one visual row of a region: its words left to right, and
// the line segments they came in.
type tableRow struct {
	pdfBox
	words []pdfWord
	segs  []pdfLine
	// core is the box of the row's first segment, which later segments
	// must overlap: against the grown box, a cell wrapped over lines set
	// half a line off the row's would chain the rows above and below it
	// into one.
	core pdfBox
}

// cells reports whether the row has a gap wider than a word space.
func (r tableRow) cells() bool {
	for k := 1; k < len(r.words); k++ {
		if r.words[k].x0-r.words[k-1].x1 > cellGap(r.h()) {
			return true
		}
	}
	return false
}

// regionRows groups the line segments of blocks into visual rows, top to
// bottom: segments that overlap the row's first segment vertically by at
// least half the lower of their heights are one row (a superscript stays
// in its row).
func regionRows(blocks []pdfBlock) []tableRow {
	var segs []pdfLine
	for _, b := range blocks {
		for _, l := range b.lines {
			if len(l.words) > 0 {
				segs = append(segs, l)
			}
		}
	}
	sort.SliceStable(segs, func(i, j int) bool {
		return segs[i].y0+segs[i].y1 < segs[j].y0+segs[j].y1
	})
	var rows []tableRow
	for _, s := range segs {
		if n := len(rows); n > 0 {
			r := &rows[n-1]
			over := math.Min(r.core.y1, s.y1) - math.Max(r.core.y0, s.y0)
			if over >= 0.5*math.Min(r.core.h(), s.h()) {
				r.words = append(r.words, s.words...)
				r.segs = append(r.segs, s)
				r.grow(s.pdfBox)
				continue
			}
		}
		rows = append(rows, tableRow{pdfBox: s.pdfBox, words: append([]pdfWord(nil), s.words...), segs: []pdfLine{s}, core: s.pdfBox})
	}
	for i := range rows {
		w := rows[i].words
		sort.SliceStable(w, func(a, b int) bool { return w[a].x0 < w[b].x0 })
	}
	return rows
}

// tablePart is one part of a region split by splitTables: a table's block,
// or the blocks of the lines between tables.
type tablePart struct {
	table  *pdfBlock
	blocks []pdfBlock
}

// splitTables finds the tables among the rows of a region (a page, or a
// part the XY-cut made of it) and splits the region at them, top to
// bottom: the rows of each table become one block, the rows between them
// are grouped into blocks again from their lines. ok is false when the
// region holds no table.
//
// A table is a run of consecutive rows that starts at a row of cells (a
// gap wider than a word space) and grows one row at a time while the
// columns stay the same (tableColumns), each new row's wide gaps lie on
// the columns' boundaries, a new row without such a gap stays inside one
// column, and the row follows the one above without a gap wider than the
// rows'. A title, a note, a caption or prose around the
// table is left out even when the layout grouped one of its lines with the
// table's first column.
func splitTables(blocks []pdfBlock) (parts []tablePart, ok bool) {
	nlines := 0
	for _, b := range blocks {
		if b.table != nil {
			return nil, false
		}
		nlines += len(b.lines)
	}
	if nlines < tableMinRows {
		return nil, false
	}
	rows := regionRows(blocks)
	text := 0 // the first row not yet in a part
	flush := func(to int) {
		var lines []pdfLine
		for _, r := range rows[text:to] {
			lines = append(lines, r.segs...)
		}
		if len(lines) > 0 {
			parts = append(parts, tablePart{blocks: groupLines(lines)})
		}
	}
	// band is the header a page prints once, above the first of its
	// tables, when that table did not take it: the later tables of the
	// region without a header of their own take it where it fits their
	// columns (headerBand, bandFits).
	var band []tableRow
	first := true
	for i := 0; i < len(rows); {
		from, to, t := growTable(rows, text, i)
		if t == nil {
			i++
			continue
		}
		if !t.header {
			if first {
				band = headerBand(rows, text, from)
			} else if c := (&columns{cuts: t.cuts}); len(band) > 0 && c.bandFits(band) {
				if ht := c.table(append(append([]tableRow(nil), band...), rows[from:to]...)); ht != nil && ht.header {
					t = ht
				}
			}
		}
		first = false
		flush(from)
		tb := pdfBlock{table: t}
		for _, r := range rows[from:to] {
			tb.lines = append(tb.lines, pdfLine{pdfBox: r.pdfBox, words: r.words})
			tb.grow(r.pdfBox)
		}
		parts = append(parts, tablePart{table: &tb})
		ok = true
		i, text = to, to
	}
	if ok {
		flush(len(rows))
	}
	return parts, ok
}

// growTable returns the longest table whose body starts at rows[i], as
// the bounds of its rows and the table; nil when none does. The table
// grows down one row at a time, then up over header rows (headerRow),
// never above rows[floor].
func growTable(rows []tableRow, floor, i int) (from, to int, t *pdfTable) {
	if !rows[i].cells() || i+tableMinRows > len(rows) {
		return i, i, nil
	}
	j := i + tableMinRows
	cols := tableColumns(rows[i:j])
	if cols == nil {
		return i, i, nil
	}
	for j < len(rows) && j-i < tableMaxRows {
		if gap := rows[j].y0 - rows[j-1].y1; gap > rowGapLimit(rows[i:j]) {
			break
		}
		if !rows[j].cells() && cols.crosses(rows[j]) {
			// A caption or a line of prose after the table; or a cell
			// that wraps onto a line of its own and runs further
			// right than the cells above it, so that the columns found
			// again with it move their boundary clear of it.
			next := tableColumns(rows[i : j+1])
			if next == nil || len(next.cuts) != len(cols.cuts) || next.crosses(rows[j]) {
				break
			}
			cols = next
		}
		if cols.broken(rows[j]) && cols.dense(rows[j]) {
			// A totals row with a value where the body has none: taken
			// as it is, the columns stay the body's.
			j++
			continue
		}
		// The columns are found again from all the rows while the table
		// is short, then every 32 rows, when a row does not fit them (a
		// long name across a boundary moves it) and at the end (below):
		// the cost stays near linear in a long table.
		if n := j + 1 - i; n <= 32 || n%32 == 0 || cols.broken(rows[j]) {
			next := tableColumns(rows[i : j+1])
			if next == nil || len(next.cuts) != len(cols.cuts) || next.broken(rows[j]) {
				break
			}
			cols = next
		}
		j++
	}
	if final := tableColumns(rows[i:j]); final != nil && len(final.cuts) == len(cols.cuts) {
		cols = final
	}
	// At most maxHeaderRows header rows. A label inside one column
	// between the header and the body (a section's name, "Ethanol
	// ($/gal)" under "W/E 02/24/17 | Last Week") is taken with the header
	// row above it, as a row of the table.
	body := rows[i:j]
	lim := rowGapLimit(body)
	for head := 0; head < maxHeaderRows && i > floor && rows[i].y0-rows[i-1].y1 <= lim; head++ {
		if cols.headerRow(rows[i-1], body) {
			i--
			continue
		}
		if i-1 > floor && cols.label(rows[i-1]) && rows[i-1].y0-rows[i-2].y1 <= lim && cols.headerRow(rows[i-2], body) {
			i -= 2
			continue
		}
		break
	}
	return i, j, cols.table(rows[i:j])
}

// crosses reports whether a word of r lies across a column boundary.
func (c *columns) crosses(r tableRow) bool {
	for _, w := range r.words {
		k := sort.SearchFloat64s(c.cuts, w.x0)
		if k < len(c.cuts) && c.cuts[k] < w.x1 {
			return true
		}
	}
	return false
}

// dense reports whether r fills at least four in five of the columns
// without crossing a boundary: a row of the table, though it has a value
// where the body has none ("Totals" under columns no state fills), or
// two in one column.
func (c *columns) dense(r tableRow) bool {
	if c.crosses(r) {
		return false
	}
	n, last := 0, -1
	for _, w := range r.words {
		if k := sort.SearchFloat64s(c.cuts, (w.x0+w.x1)/2); k != last {
			n++
			last = k
		}
	}
	return 5*n >= 4*(len(c.cuts)+1)
}

// headerBand returns the rows directly above rows[from] (not above
// rows[lo]) that may be a header: at most maxHeaderRows rows of cells, no
// cell a plain number.
func headerBand(rows []tableRow, lo, from int) []tableRow {
	k := from
	for k > lo && from-k < maxHeaderRows && rows[k-1].cells() {
		plain := false
		for _, w := range rows[k-1].words {
			plain = plain || hasDigit(w.s) && !hasLetter(w.s)
		}
		if plain {
			break
		}
		k--
	}
	return rows[k:from]
}

// bandFits reports whether the header rows band name the columns: in each
// row the names (runs of words apart by word spaces, cut at boundaries)
// fall in columns left to right, one name a column, and the rows together
// name four columns in five.
func (c *columns) bandFits(band []tableRow) bool {
	named := make([]bool, len(c.cuts)+1)
	for _, r := range band {
		last := -1
		put := func(run xspan) bool {
			k := sort.SearchFloat64s(c.cuts, (run.lo+run.hi)/2)
			if k <= last {
				return false
			}
			last, named[k] = k, true
			return true
		}
		run := xspan{r.words[0].x0, r.words[0].x1}
		for _, w := range r.words[1:] {
			k := sort.SearchFloat64s(c.cuts, run.hi)
			if w.x0-run.hi <= cellGap(r.h()) && !(k < len(c.cuts) && c.cuts[k] <= w.x0) {
				run.hi = math.Max(run.hi, w.x1)
				continue
			}
			if !put(run) {
				return false
			}
			run = xspan{w.x0, w.x1}
		}
		if !put(run) {
			return false
		}
	}
	n := 0
	for _, ok := range named {
		if ok {
			n++
		}
	}
	return 5*n >= 4*len(named)
}

// label reports whether r is one run of words inside one column.
func (c *columns) label(r tableRow) bool {
	return !r.cells() && len(r.words) > 0 && !c.crosses(r)
}

// headerRow reports whether r fits above the columns of body as a header
// row: a row of cells (runs of words apart by word spaces), each centred
// over a column of its own and clear of the body's words in the columns
// beside it. Header words are centred over their columns and often wider
// than them, so they may cross a boundary the body's white drew.
func (c *columns) headerRow(r tableRow, body []tableRow) bool {
	if !r.cells() {
		return false
	}
	ext := make([]xspan, len(c.cuts)+1)
	for k := range ext {
		ext[k] = xspan{math.Inf(1), math.Inf(-1)}
	}
	for _, b := range body {
		for _, w := range b.words {
			k := sort.SearchFloat64s(c.cuts, (w.x0+w.x1)/2)
			ext[k] = xspan{math.Min(ext[k].lo, w.x0), math.Max(ext[k].hi, w.x1)}
		}
	}
	last := -1
	check := func(run xspan) bool {
		k := sort.SearchFloat64s(c.cuts, (run.lo+run.hi)/2)
		if k < last {
			return false
		}
		last = k
		return (k == 0 || run.lo > ext[k-1].hi) && (k == len(ext)-1 || run.hi < ext[k+1].lo)
	}
	// A run ends at a wide gap, and at a boundary of the body's columns
	// that falls between two words: in a table of narrow columns the
	// header's names stand a word space apart ("Handgun Long Gun").
	run := xspan{r.words[0].x0, r.words[0].x1}
	for _, w := range r.words[1:] {
		k := sort.SearchFloat64s(c.cuts, run.hi)
		atCut := k < len(c.cuts) && c.cuts[k] <= w.x0
		if w.x0-run.hi <= cellGap(r.h()) && !atCut {
			run.hi = math.Max(run.hi, w.x1)
			continue
		}
		if !check(run) {
			return false
		}
		run = xspan{w.x0, w.x1}
	}
	return check(run)
}

// rowGapLimit is the widest vertical gap a next row of rows may follow the
// last at: twice their widest gap, and at least 0.8 of a row's height.
func rowGapLimit(rows []tableRow) float64 {
	widest, h := 0.0, 0.0
	for k := range rows {
		h = math.Max(h, rows[k].h())
		if k > 0 {
			widest = math.Max(widest, rows[k].y0-rows[k-1].y1)
		}
	}
	return math.Max(2*widest, 0.8*h)
}

// columns are the column boundaries of a run of rows.
type columns struct {
	cuts   []float64
	widths []float64 // the width of each boundary's river
}

// broken reports whether row r has a gap wider than a word space that no
// column boundary lies in.
func (c *columns) broken(r tableRow) bool {
	for k := 1; k < len(r.words); k++ {
		a, b := r.words[k-1].x1, r.words[k].x0
		if b-a <= cellGap(r.h()) {
			continue
		}
		i := sort.SearchFloat64s(c.cuts, a)
		if i == len(c.cuts) || c.cuts[i] > b {
			return true
		}
	}
	return false
}

// tableColumns finds the columns of rows, or nil when they are no table's.
// Two counts along x make them: how many rows have a word over x, and how
// many have a gap wider than a word space (cellGap) there.
//
//   - A boundary zone is a stretch, between the rows' first and last word,
//     that the cells of at most one row in ten cover (a cell is a run of
//     words apart by word spaces; a long name may run into the next
//     column's white).
//   - The boundary is the middle of the widest stretch of the zone that
//     the most rows' wide gaps cover (the crossing row's gap included),
//     and it separates columns when at least half the rows with words on
//     both sides of it have a wide gap there: narrower ones are chance
//     gaps between words.
//   - A column with words in one row only is a header's words spread over
//     the white of the body ("No." and "Of" above a column of numbers): it
//     joins the neighbour across the narrower zone.
//   - Every wide gap inside a row holds a boundary (one row in ten may
//     break the rule): prose, or rows of another layout, do not.
//   - At least tableMinCols columns, none of them running text.
//
// Prose fails (its word spaces are narrow and do not line up), and two
// text columns give two columns, not three.
func tableColumns(rows []tableRow) *columns {
	type event struct {
		x      float64
		dw, dg int
	}
	var ev []event
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		// The row's cells (words apart by no more than a word space)
		// as runs, so that a row counts once.
		var run xspan
		for k, w := range r.words {
			if w.x1 <= w.x0 {
				return nil // OCR text has no boxes
			}
			lo, hi = math.Min(lo, w.x0), math.Max(hi, w.x1)
			switch {
			case k == 0:
				run = xspan{w.x0, w.x1}
				continue
			case w.x0-run.hi <= cellGap(r.h()):
				run.hi = math.Max(run.hi, w.x1)
				continue
			}
			ev = append(ev, event{run.lo, 1, 0}, event{run.hi, -1, 0})
			ev = append(ev, event{run.hi, 0, 1}, event{w.x0, 0, -1})
			run = xspan{w.x0, w.x1}
		}
		if len(r.words) > 0 {
			ev = append(ev, event{run.lo, 1, 0}, event{run.hi, -1, 0})
		}
	}
	if len(ev) == 0 {
		return nil
	}
	sort.Slice(ev, func(i, j int) bool { return ev[i].x < ev[j].x })
	// Elementary stretches between event positions, with their counts.
	type stretch struct {
		xspan
		w, g int
	}
	var st []stretch
	w, g := 0, 0
	for k := 0; k < len(ev); {
		x := ev[k].x
		for k < len(ev) && ev[k].x == x {
			w += ev[k].dw
			g += ev[k].dg
			k++
		}
		if k < len(ev) && x >= lo && ev[k].x <= hi {
			st = append(st, stretch{xspan{x, ev[k].x}, w, g})
		}
	}
	allowed := len(rows) / 10
	c := &columns{}
	for k := 0; k < len(st); {
		if st[k].w > allowed {
			k++
			continue
		}
		z := k
		for k < len(st) && st[k].w <= allowed {
			k++
		}
		zone := st[z:k]
		if zone[0].lo <= lo || zone[len(zone)-1].hi >= hi {
			continue // white before the first word or after the last
		}
		best := 0
		for q := range zone {
			if zone[q].g > zone[best].g || zone[q].g == zone[best].g && zone[q].hi-zone[q].lo > zone[best].hi-zone[best].lo {
				best = q
			}
		}
		x := (zone[best].lo + zone[best].hi) / 2
		both := 0
		for _, r := range rows {
			left, right, crossed := false, false, false
			for _, w := range r.words {
				switch {
				case w.x1 <= x:
					left = true
				case w.x0 >= x:
					right = true
				default:
					crossed = true
				}
			}
			if left && right && !crossed {
				both++
			}
		}
		if both >= 2 && 2*zone[best].g >= both {
			c.cuts = append(c.cuts, x)
			c.widths = append(c.widths, zone[len(zone)-1].hi-zone[0].lo)
		}
	}
	for len(c.cuts) >= tableMinCols-1 {
		filled := c.filled(rows)
		sparse := -1
		for k, n := range filled {
			if n < 2 {
				sparse = k
				break
			}
		}
		if sparse < 0 {
			break
		}
		k := sparse // the boundary on its right
		if k == len(c.cuts) || k > 0 && c.widths[k-1] < c.widths[k] {
			k--
		}
		c.cuts = append(c.cuts[:k], c.cuts[k+1:]...)
		c.widths = append(c.widths[:k], c.widths[k+1:]...)
	}
	if len(c.cuts) < tableMinCols-1 {
		return nil
	}
	broken := 0
	for _, r := range rows {
		if c.broken(r) {
			broken++
		}
	}
	if broken > len(rows)/10 {
		return nil
	}
	if c.prose(rows) {
		return nil
	}
	return c
}

// prose reports whether a column of rows is running text beside them (a
// column of the page): its cells average tableProseWords words or more
// in most rows, or most of them (two at least) are different lines of
// four words or more set flush on both sides (within 2.5pt: a hyphen
// hangs out), as justified text is; a table's cells are ragged on one
// side at least, or repeat one value.
func (c *columns) prose(rows []tableRow) bool {
	type line struct {
		xspan
		text string
	}
	n := len(c.cuts) + 1
	words := make([]int, n)
	spans := make([][]line, n)
	for _, r := range rows {
		cell := make([]line, n)
		count := make([]int, n)
		for _, w := range r.words {
			k := sort.SearchFloat64s(c.cuts, (w.x0+w.x1)/2)
			words[k]++
			if count[k] == 0 {
				cell[k] = line{xspan{w.x0, w.x1}, w.s}
			} else {
				cell[k].hi = math.Max(cell[k].hi, w.x1)
				cell[k].text += " " + w.s
			}
			count[k]++
		}
		for k := range cell {
			if count[k] >= 4 {
				spans[k] = append(spans[k], cell[k])
			}
		}
	}
	filled := c.filled(rows)
	for k := 0; k < n; k++ {
		if 10*filled[k] >= 6*len(rows) && words[k] >= tableProseWords*filled[k] {
			return true
		}
		// The most cells flush with one another on both sides.
		best := 0
		for _, a := range spans[k] {
			texts := map[string]bool{}
			for _, b := range spans[k] {
				if math.Abs(a.lo-b.lo) <= 2.5 && math.Abs(a.hi-b.hi) <= 2.5 {
					texts[b.text] = true
				}
			}
			best = max(best, len(texts))
		}
		if best >= 2 && 10*best >= 6*filled[k] {
			return true
		}
	}
	return false
}

type xspan struct{ lo, hi float64 }

// filled counts, for each column, the rows with words in it.
func (c *columns) filled(rows []tableRow) []int {
	n := make([]int, len(c.cuts)+1)
	for _, r := range rows {
		last := -1
		for _, w := range r.words {
			if k := sort.SearchFloat64s(c.cuts, (w.x0+w.x1)/2); k != last {
				n[k]++
				last = k
			}
		}
	}
	return n
}

// table puts the words of rows into cells, or returns nil when the rows
// are too few for a table: fewer than tableManyRows rows need a column of
// numbers. Words go to the column their cell lies in: a row's words are
// cut into cells at a boundary that falls between two of them, at gaps
// wider than a word space and at gaps where a column's cells start, and a
// cell goes to the column of its middle (a header wider than its column
// stays whole). Header rows above the body (no digit in a column of
// numbers, at most maxHeaderRows of them) are merged into one row, each
// column's words top to bottom, so that every body row reads under one
// name per column.
func (c *columns) table(rows []tableRow) *pdfTable {
	if len(rows) < tableMinRows {
		return nil
	}
	t := &pdfTable{cuts: c.cuts}
	// cells splits a row into cells at the gaps split says to, each cell
	// to the column of its middle.
	cells := func(r tableRow, split func(a, b float64) bool, each func(k int, cell []pdfWord)) {
		var run []pdfWord
		put := func() {
			if len(run) > 0 {
				each(sort.SearchFloat64s(c.cuts, (run[0].x0+run[len(run)-1].x1)/2), run)
				run = nil
			}
		}
		for i, w := range r.words {
			if i > 0 {
				if a, b := r.words[i-1].x1, w.x0; split(a, b) || b-a > cellGap(r.h()) {
					put()
				}
			}
			run = append(run, w)
		}
		put()
	}
	atCut := func(a, b float64) bool {
		k := sort.SearchFloat64s(c.cuts, a)
		return k < len(c.cuts) && c.cuts[k] <= b
	}
	// Where each column's cells start (the median start): a cell that
	// runs into the next column ends at a narrow gap where that column's
	// cells start ("…LLC Mountain View"), which cuts it too.
	starts := make([][]float64, len(c.cuts)+1)
	for _, r := range rows {
		cells(r, atCut, func(k int, cell []pdfWord) { starts[k] = append(starts[k], cell[0].x0) })
	}
	var edges []float64
	for k, xs := range starts {
		if k > 0 && len(xs) > 0 {
			sort.Float64s(xs)
			edges = append(edges, xs[len(xs)/2])
		}
	}
	sort.Float64s(edges)
	atEdge := func(a, b float64) bool {
		k := sort.SearchFloat64s(edges, a-1)
		return k < len(edges) && edges[k] <= b+1
	}
	var grid [][]string
	for _, r := range rows {
		row := make([]string, len(c.cuts)+1)
		cells(r, func(a, b float64) bool { return atCut(a, b) || atEdge(a, b) }, func(k int, cell []pdfWord) {
			for _, w := range cell {
				if row[k] != "" {
					row[k] += " "
				}
				row[k] += w.s
			}
		})
		grid = append(grid, row)
	}
	numeric := numericColumns(grid[1:])
	some := false
	for _, ok := range numeric {
		some = some || ok
	}
	if !some && len(grid) < tableManyRows {
		return nil
	}
	// A header row has no number in a column of numbers; a cell with
	// letters too ("W/E 02/24/17", "Fri, Feb 24, 2017") names a column
	// whose body cells are plain numbers ("1.35 - 1.42").
	plain := plainColumns(grid[1:])
	head := 0
	for head < len(grid)-1 && head < maxHeaderRows {
		digits := false
		for k, cell := range grid[head] {
			digits = digits || numeric[k] && hasDigit(cell) && !(plain[k] && hasLetter(cell))
		}
		if digits {
			break
		}
		head++
	}
	if head == 0 || !some {
		t.header = head > 0
		t.rows = grid
		return t
	}
	merged := make([]string, len(grid[0]))
	for k := range merged {
		var parts []string
		for _, r := range grid[:head] {
			if r[k] != "" {
				parts = append(parts, r[k])
			}
		}
		merged[k] = strings.Join(parts, " ")
	}
	t.header = true
	t.rows = append([][]string{merged}, grid[head:]...)
	return t
}

// positionalMaxCols bounds the columns a headerless table names by
// position (pdfTable.text).
const positionalMaxCols = 32

// maxHeaderRows bounds the rows merged into a table's header.
const maxHeaderRows = 3

// numericColumns marks the columns whose non-empty cells mostly (at least
// half) hold a digit.
func numericColumns(rows [][]string) []bool { return columnsMostly(rows, hasDigit) }

// plainColumns marks the columns whose non-empty cells mostly (at least
// half) hold a digit and no letter.
func plainColumns(rows [][]string) []bool {
	return columnsMostly(rows, func(s string) bool { return hasDigit(s) && !hasLetter(s) })
}

// columnsMostly marks the columns of rows in which at least half of the
// non-empty cells satisfy is.
func columnsMostly(rows [][]string, is func(string) bool) []bool {
	if len(rows) == 0 {
		return nil
	}
	out := make([]bool, len(rows[0]))
	for c := range out {
		n, d := 0, 0
		for _, r := range rows {
			if r[c] == "" {
				continue
			}
			n++
			if is(r[c]) {
				d++
			}
		}
		out[c] = n > 0 && 2*d >= n
	}
	return out
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// sameColumns reports whether table t continues table prev (further down,
// or on the next page, without its header): as many columns, each
// boundary within half a column's width (and 12pt) of the other's.
func sameColumns(prev, t *pdfTable) bool {
	if len(prev.cuts) != len(t.cuts) || len(t.cuts) == 0 {
		return false
	}
	for i := range t.cuts {
		lo := 0.0
		if i > 0 {
			lo = prev.cuts[i-1]
		}
		tol := math.Max(12, 0.5*(prev.cuts[i]-lo))
		if math.Abs(prev.cuts[i]-t.cuts[i]) > tol {
			return false
		}
	}
	return true
}
