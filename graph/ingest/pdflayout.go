package ingest

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
)

// Page layout shared by both PDF readers. A reader turns each page into
// blocks of lines of words with boxes in points, y growing downwards from
// the top of the page (Poppler's convention), with blocks in reading order;
// this file removes running headers and footers, finds figure and table
// captions and the page regions they label, and joins lines into
// paragraphs (hyphenation joined, ligatures expanded).

type pdfBox struct{ x0, y0, x1, y1 float64 }

func (b pdfBox) w() float64 { return b.x1 - b.x0 }
func (b pdfBox) h() float64 { return b.y1 - b.y0 }

func (b *pdfBox) grow(o pdfBox) {
	if b.x1 <= b.x0 && b.y1 <= b.y0 {
		*b = o
		return
	}
	b.x0, b.y0 = math.Min(b.x0, o.x0), math.Min(b.y0, o.y0)
	b.x1, b.y1 = math.Max(b.x1, o.x1), math.Max(b.y1, o.y1)
}

type pdfWord struct {
	pdfBox
	s string
}

type pdfLine struct {
	pdfBox
	words []pdfWord
}

func (l pdfLine) text() string {
	parts := make([]string, len(l.words))
	for i, w := range l.words {
		parts[i] = w.s
	}
	return strings.Join(parts, " ")
}

type pdfBlock struct {
	pdfBox
	lines []pdfLine
	// table is set for a table without rules found by the layout: its
	// lines are its rows.
	table *pdfTable
}

// pdfPage is one page: its size, its text blocks in reading order, and
// whether it draws an image (a page with images and no text is scanned).
type pdfPage struct {
	w, h   float64
	blocks []pdfBlock
	images bool
	ocr    bool // the blocks come from OCR, not from a text layer
}

func (p *pdfPage) words() int {
	n := 0
	for _, b := range p.blocks {
		for _, l := range b.lines {
			n += len(l.words)
		}
	}
	return n
}

// pdfRegion is a figure or table found on a page: its caption block, the
// region it labels (to be rendered as its image) and, for a table, the
// text recovered from the region.
type pdfRegion struct {
	page     int
	modality graph.Modality
	caption  string
	box      pdfBox // empty when no region could be placed
	text     string
	at       int // index of the caption block on its page
}

var (
	ligatures = strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl",
		"\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "ft", "\ufb06", "st", "\u00ad", "")
	captionLine = regexp.MustCompile(`^(?i:(fig(?:ure)?\.?|table|tab\.))\s*([0-9]+|[IVXLC]+)(?:\s*[:.|]|$)`)
	digitRun    = regexp.MustCompile(`[0-9]+`)
)

// normaliseWord expands ligatures, drops control characters and replaces
// invalid UTF-8.
func normaliseWord(s string) string {
	s = ligatures.Replace(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u200b' || r == '\ufeff' {
			return -1
		}
		return r
	}, s)
}

// removeFurniture drops running headers and footers: lines in the top or
// bottom eighth of a page whose text (digits ignored, so "Page 3" matches
// "Page 4") recurs at about the same height on at least two pages and 30% of
// the pages, and bare page numbers there. It returns how many lines went.
func removeFurniture(pages []pdfPage) int {
	type key struct {
		text string
		y    int
	}
	edge := func(p *pdfPage, l pdfLine) bool {
		return p.h > 0 && (l.y1 <= p.h*0.12 || l.y0 >= p.h*0.88)
	}
	norm := func(l pdfLine) string {
		return strings.ToLower(digitRun.ReplaceAllString(l.text(), "#"))
	}
	count := map[key]int{}
	for i := range pages {
		p := &pages[i]
		if p.ocr {
			continue // OCR lines have no boxes
		}
		seen := map[key]bool{}
		for _, b := range p.blocks {
			if b.table != nil {
				continue
			}
			for _, l := range b.lines {
				if !edge(p, l) {
					continue
				}
				// Two buckets of 6pt, so that a small jitter across pages
				// still matches.
				for _, y := range []int{int(l.y0 / 6), int(l.y0/6 + 0.5)} {
					k := key{norm(l), y}
					if !seen[k] {
						seen[k] = true
						count[k]++
					}
				}
			}
		}
	}
	need := max(2, int(math.Ceil(0.3*float64(len(pages)))))
	removed := 0
	for i := range pages {
		p := &pages[i]
		blocks := p.blocks[:0]
		for _, b := range p.blocks {
			if b.table != nil {
				// Table rows are content, even a header row repeated
				// at the top of every page.
				blocks = append(blocks, b)
				continue
			}
			lines := b.lines[:0]
			for _, l := range b.lines {
				drop := false
				if edge(p, l) && !p.ocr {
					n := norm(l)
					drop = count[key{n, int(l.y0 / 6)}] >= need || count[key{n, int(l.y0/6 + 0.5)}] >= need ||
						pageNumberLine.MatchString(strings.TrimSpace(l.text()))
				}
				if drop {
					removed++
					continue
				}
				lines = append(lines, l)
			}
			if len(lines) == 0 {
				continue
			}
			b.lines = lines
			b.pdfBox = pdfBox{}
			for _, l := range lines {
				b.grow(l.pdfBox)
			}
			blocks = append(blocks, b)
		}
		p.blocks = blocks
	}
	return removed
}

// blockText joins a block's lines into one paragraph: a word broken by a
// hyphen at a line end ("repre-" + "sentation") is joined without the
// hyphen when the next line starts in lower case; a compound whose first
// part already holds a hyphen ("state-of-the-" + "art") is joined keeping
// it; other lines are joined by a space.
func blockText(b pdfBlock) string {
	var sb strings.Builder
	for _, l := range b.lines {
		t := strings.TrimSpace(l.text())
		if t == "" {
			continue
		}
		if sb.Len() > 0 {
			mode := hyphenNone
			if r, _ := utf8.DecodeRuneInString(t); unicode.IsLower(r) {
				mode = joinHyphen(sb.String())
			}
			switch mode {
			case hyphenDrop:
				s := strings.TrimSuffix(sb.String(), "-")
				sb.Reset()
				sb.WriteString(s)
			case hyphenNone:
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(t)
	}
	return sb.String()
}

const (
	hyphenNone = iota
	hyphenDrop
	hyphenKeep
)

// joinHyphen says how a line ending prev joins a next line that starts in
// lower case.
func joinHyphen(prev string) int {
	if !strings.HasSuffix(prev, "-") || strings.HasSuffix(prev, "--") {
		return hyphenNone
	}
	word := prev[strings.LastIndexAny(prev, " \t")+1 : len(prev)-1]
	if word == "" {
		return hyphenNone
	}
	last, _ := utf8.DecodeLastRuneInString(word)
	if !unicode.IsLetter(last) {
		return hyphenNone
	}
	if strings.Contains(word, "-") {
		return hyphenKeep
	}
	return hyphenDrop
}

// findRegions finds the captions of page p (blocks starting "Figure 3:",
// "Fig. 3.", "Table 2:") and the region each labels, and marks the blocks
// inside those regions (figure labels, table cells) so that they do not
// become body text. A figure's region is the space above its caption up to
// the nearest body-text block of the same column (or the top of the text
// area); a table's is the space above its caption when non-body blocks lie
// there, else the space below it (captions go below figures and, in most
// styles, above or below tables). A table's text is recovered from the
// words inside its region: a row per line, cells split at wide gaps.
func findRegions(pi int, p *pdfPage) (regions []pdfRegion, inside map[int]bool) {
	inside = map[int]bool{}
	if len(p.blocks) == 0 {
		return nil, inside
	}
	var text pdfBox
	for _, b := range p.blocks {
		text.grow(b.pdfBox)
	}
	// Figures may reach past the text into the margins: the text area is
	// widened to symmetric margins, and its middle is the page's.
	mid := (text.x0 + text.x1) / 2
	if p.w > 0 && text.x1 <= p.w {
		mid = p.w / 2
		text.x0 = math.Max(0, math.Min(text.x0, p.w-text.x1))
		text.x1 = p.w - text.x0
	}
	isCaption := func(b pdfBlock) (graph.Modality, bool) {
		if len(b.lines) == 0 || b.table != nil {
			return 0, false
		}
		m := captionLine.FindStringSubmatch(b.lines[0].text())
		if m == nil {
			return 0, false
		}
		if strings.HasPrefix(strings.ToLower(m[1]), "tab") {
			return graph.ModalityTable, true
		}
		return graph.ModalityFigure, true
	}
	// A page is two-column when a gutter near the middle (within the
	// middle 30% of the text width) has multi-line blocks on both sides
	// and no paragraph of the whole width crosses it (a centred author
	// block may); mid is then that gutter.
	twoColumn := false
	for d := 0.0; d <= 0.15*text.w() && !twoColumn; d++ {
		for _, x := range []float64{mid - d, mid + d} {
			left, right, across := 0, 0, 0
			for _, b := range p.blocks {
				switch {
				case len(b.lines) < 2:
				case b.x1 <= x:
					left++
				case b.x0 >= x:
					right++
				case b.w() > 0.6*text.w() && b.table == nil:
					across++ // a paragraph over the whole width (a table may span both columns)
				}
			}
			if left > 0 && right > 0 && across == 0 {
				twoColumn, mid = true, x
				break
			}
		}
	}
	bodyHeight := bodyLineHeight(p)
	for ci, c := range p.blocks {
		mod, ok := isCaption(c)
		if !ok {
			continue
		}
		// The caption's column: on a two-column page the half it lies in
		// (unless it spans the middle), else the whole text width.
		span := pdfBox{x0: text.x0, x1: text.x1}
		switch {
		case !twoColumn:
		case c.x1 <= mid:
			span.x1 = mid
		case c.x0 >= mid:
			span.x0 = mid
		}
		body := func(b pdfBlock) bool {
			if b.table != nil {
				return false // a table's rows are long, but not prose
			}
			if _, cap := isCaption(b); cap {
				return true
			}
			if len(b.lines) < 2 {
				return false
			}
			wide, sized := 0, 0
			for _, l := range b.lines {
				if l.w() >= 0.6*span.w() && len(l.words) >= 4 {
					wide++
				}
				if math.Abs(l.h()-bodyHeight) <= 0.08*bodyHeight {
					sized++
				}
			}
			// Text inside figures is mostly set smaller than the body;
			// prose has long lines, or many words a line.
			words := 0
			for _, l := range b.lines {
				words += len(l.words)
			}
			prose := wide*2 >= len(b.lines) || words >= 6*len(b.lines)
			return prose && (bodyHeight == 0 || sized*2 >= len(b.lines))
		}
		// Blocks matter when they lie over or under the caption itself,
		// widened to a third of the column at least: a short caption
		// centred under a figure in one half of the page does not see
		// the table beside it.
		near := pdfBox{x0: c.x0, x1: c.x1}
		if w := span.w() / 3; near.w() < w {
			m := (c.x0 + c.x1) / 2
			near.x0, near.x1 = math.Max(span.x0, m-w/2), math.Min(span.x1, m+w/2)
		}
		overlaps := func(b pdfBlock) bool {
			return b.x1 > near.x0+1 && b.x0 < near.x1-1
		}
		// A block that reaches out of the caption's column (a title over
		// both columns) bounds the region as body text does.
		barrier := func(b pdfBlock) bool {
			return body(b) || b.x0 < span.x0-2 || b.x1 > span.x1+2
		}
		// Walk up (or down) from the caption over non-body blocks.
		walk := func(up bool) (edge float64, got []int, ok bool) {
			// Without text beyond, the region runs to the page's
			// margin (7% of its height) or the text's edge if further.
			edge = math.Min(text.y0, 0.07*p.h)
			if !up {
				edge = math.Max(text.y1, 0.93*p.h)
			}
			for bi, b := range p.blocks {
				if bi == ci || !overlaps(b) {
					continue
				}
				if up && b.y1 > c.y0+1 || !up && b.y0 < c.y1-1 {
					continue
				}
				if barrier(b) {
					if up {
						edge = math.Max(edge, b.y1)
					} else {
						edge = math.Min(edge, b.y0)
					}
				}
			}
			for bi, b := range p.blocks {
				if bi == ci || !(b.x1 > span.x0+1 && b.x0 < span.x1-1) || barrier(b) {
					continue
				}
				if up && b.y0 >= edge-1 && b.y1 <= c.y0+1 || !up && b.y0 >= c.y1-1 && b.y1 <= edge+1 {
					got = append(got, bi)
				}
			}
			if up {
				return edge, got, c.y0-edge >= 24
			}
			return edge, got, edge-c.y1 >= 24
		}
		r := pdfRegion{page: pi, modality: mod, caption: blockText(c), at: ci}
		up := true
		edge, got, ok := walk(true)
		if mod == graph.ModalityTable {
			// Table captions go above or below: the side holding a
			// table the layout found wins, else the side with more
			// words in it.
			words := func(which []int) (tables, n int) {
				for _, bi := range which {
					if p.blocks[bi].table != nil {
						tables++
					}
					for _, l := range p.blocks[bi].lines {
						n += len(l.words)
					}
				}
				return tables, n
			}
			if e2, g2, ok2 := walk(false); ok2 {
				t1, n1 := words(got)
				t2, n2 := words(g2)
				if !ok || t2 > 0 && t1 == 0 || (t1 > 0) == (t2 > 0) && n2 > n1 {
					edge, got, ok, up = e2, g2, ok2, false
				}
			}
		}
		if ok {
			if up {
				// Glyphs rise above their reported boxes: keep a
				// quarter line clear of the caption.
				r.box = pdfBox{span.x0, edge + 1, span.x1, c.y0 - 0.25*c.lines[0].h()}
			} else {
				r.box = pdfBox{span.x0, c.y1 + 0.25*c.lines[len(c.lines)-1].h(), span.x1, edge - 1}
			}
			// Confine the region to the caption's column: prose beside
			// it (a column the page layout did not see, when a table or
			// figure spans the page above) bounds it, and what lies beyond
			// that prose is not part of it.
			for bi, b := range p.blocks {
				if bi == ci || !body(b) || b.y1 <= r.box.y0 || b.y0 >= r.box.y1 {
					continue
				}
				switch {
				case b.x0 >= near.x1:
					r.box.x1 = math.Min(r.box.x1, b.x0-2)
				case b.x1 <= near.x0:
					r.box.x0 = math.Max(r.box.x0, b.x1+2)
				}
			}
			kept := got[:0]
			for _, bi := range got {
				if b := p.blocks[bi]; b.x0 >= r.box.x0-2 && b.x1 <= r.box.x1+2 {
					kept = append(kept, bi)
				}
			}
			got = kept
			for _, bi := range got {
				inside[bi] = true
			}
			if mod == graph.ModalityTable {
				r.text = tableFromBlocks(p.blocks, got)
			}
		}
		inside[ci] = true
		regions = append(regions, r)
	}
	return regions, inside
}

// bodyLineHeight is the page's most common line height (by words, in
// steps of a quarter point): the body text's; 0 for a page without boxes.
func bodyLineHeight(p *pdfPage) float64 {
	count := map[int]int{}
	best, bestN := 0, 0
	for _, b := range p.blocks {
		for _, l := range b.lines {
			k := int(math.Round(l.h() * 4))
			if k <= 0 {
				continue
			}
			count[k] += len(l.words)
			if n := count[k]; n > bestN || n == bestN && k < best {
				best, bestN = k, n
			}
		}
	}
	return float64(best) / 4
}

// tableFromBlocks renders the words of the given blocks as table rows (one
// row per line of words at about the same height, ordered top to bottom),
// cells separated by " | " where the gap between words is wider than 60%
// of the line height (and at least 6pt); the same rendering as HTML tables.
// When the blocks are one table the layout recovered (columns from the
// rivers between them, see findTable), its cells are used, so that a
// row's empty cells keep the others under their headers.
func tableFromBlocks(blocks []pdfBlock, which []int) string {
	tables := false
	for _, bi := range which {
		tables = tables || blocks[bi].table != nil
	}
	if !tables {
		var words []pdfWord
		for _, bi := range which {
			for _, l := range blocks[bi].lines {
				words = append(words, l.words...)
			}
		}
		return wordRows(words)
	}
	// Tables with the words around them (a header spanning columns, a
	// note), top to bottom.
	type piece struct {
		y    float64
		text string
	}
	var pieces []piece
	var words []pdfWord
	flush := func() {
		if len(words) > 0 {
			pieces = append(pieces, piece{words[0].y0, wordRows(words)})
			words = nil
		}
	}
	sorted := append([]int(nil), which...)
	sort.SliceStable(sorted, func(a, b int) bool { return blocks[sorted[a]].y0 < blocks[sorted[b]].y0 })
	for _, bi := range sorted {
		b := blocks[bi]
		if b.table == nil {
			for _, l := range b.lines {
				words = append(words, l.words...)
			}
			continue
		}
		flush()
		pieces = append(pieces, piece{b.y0, b.table.text()})
	}
	flush()
	out := make([]string, len(pieces))
	for i, p := range pieces {
		out[i] = p.text
	}
	return strings.Join(out, "\n")
}

// wordRows renders words as rows of cells split at wide gaps.
func wordRows(words []pdfWord) string {
	if len(words) == 0 {
		return ""
	}
	sort.SliceStable(words, func(i, j int) bool {
		ci, cj := (words[i].y0+words[i].y1)/2, (words[j].y0+words[j].y1)/2
		if math.Abs(ci-cj) > 0.4*math.Min(words[i].h(), words[j].h()) {
			return ci < cj
		}
		return words[i].x0 < words[j].x0
	})
	var rows [][]pdfWord
	for _, w := range words {
		if n := len(rows); n > 0 {
			last := rows[n-1][0]
			if math.Abs((w.y0+w.y1)/2-(last.y0+last.y1)/2) <= 0.4*math.Min(w.h(), last.h()) {
				rows[n-1] = append(rows[n-1], w)
				continue
			}
		}
		rows = append(rows, []pdfWord{w})
	}
	var out []string
	for _, row := range rows {
		sort.SliceStable(row, func(i, j int) bool { return row[i].x0 < row[j].x0 })
		var cells []string
		cell := row[0].s
		for k := 1; k < len(row); k++ {
			gap := row[k].x0 - row[k-1].x1
			if gap > math.Max(6, 0.6*row[k].h()) {
				cells = append(cells, cell)
				cell = row[k].s
				continue
			}
			cell += " " + row[k].s
		}
		cells = append(cells, cell)
		out = append(out, strings.Join(cells, " | "))
	}
	return strings.Join(out, "\n")
}

// pdfLimits bounds the work and output of reading one PDF of n bytes: a
// crafted file of a few hundred bytes can announce two billion pages or
// repeat one page object thousands of times, so pages and text grow at most
// linearly with the file's size.
type pdfLimits struct {
	pages int // pages read (at most)
	text  int // bytes of text kept (at most)
}

const (
	// pdfMaxPages caps the pages read from one PDF.
	pdfMaxPages = 10000
	// pdfBytesPerPage: every page costs a file at least this many bytes
	// (a page object and its content stream), so a file of n bytes has at
	// most 1 + n/pdfBytesPerPage real pages.
	pdfBytesPerPage = 16
	// A file of n bytes yields at most max(pdfMinText, pdfTextGrowth·n)
	// bytes of text: compressed text streams rarely expand more than a few
	// times, so 32 leaves room for every real document.
	pdfMinText    = 64 << 10
	pdfTextGrowth = 32
)

func limitsFor(size int64) pdfLimits {
	pages := int64(pdfMaxPages)
	if p := 1 + size/pdfBytesPerPage; p < pages {
		pages = p
	}
	text := int64(pdfMinText)
	if t := pdfTextGrowth * size; t > text {
		text = t
	}
	if text > 1<<30 {
		text = 1 << 30
	}
	return pdfLimits{pages: int(pages), text: int(text)}
}

// pageBlocks turns the laid-out pages into blocks for assemble: body text a
// paragraph per PDF block, figures and tables as visual blocks at their
// caption's position. image renders region r and returns its reference, or
// nil when it cannot (then the item keeps its caption and text).
//
// In a slide deck (deck) the first block of each page starts a slide
// (block.slide), titled by the slide's title (slideTitle).
func pageBlocks(pages []pdfPage, image func(r pdfRegion) *graph.ImageRef, deck bool) []block {
	var blocks []block
	// The table just before, whose header a table continuing it takes:
	// only the first page of a long table usually prints it, and a table
	// is cut where its rows leave a gap.
	var open *pdfTable
	for pi := range pages {
		p := &pages[pi]
		regions, inside := findRegions(pi, p)
		next := 0
		start := len(blocks) // the page's first block
		if deck {
			open = nil
		}
		for bi, b := range p.blocks {
			for next < len(regions) && regions[next].at == bi {
				r := regions[next]
				next++
				it := &graph.Item{Modality: r.modality, Caption: r.caption, Text: r.text, Page: pi}
				if r.box.w() > 0 && r.box.h() > 0 && image != nil {
					it.Image = image(r)
				}
				blocks = append(blocks, block{visual: it, page: pi})
				open = nil
			}
			if inside[bi] {
				open = nil
				continue
			}
			if b.table != nil {
				t := b.table
				if open != nil && open.header && !t.header && sameColumns(open, t) {
					t.header, t.rows = true, append([][]string{open.rows[0]}, t.rows...)
				}
				text := t.text()
				it := &graph.Item{Modality: graph.ModalityTable, Text: text, Page: pi}
				if image != nil {
					// The table's own box, a little wider: glyphs rise
					// above their boxes.
					pad := 0.25 * b.lines[0].h()
					r := pdfRegion{page: pi, modality: graph.ModalityTable, at: bi,
						box: pdfBox{b.x0 - pad, b.y0 - pad, b.x1 + pad, b.y1 + pad}}
					it.Image = image(r)
				}
				blocks = append(blocks, block{visual: it, page: pi})
				open = t
				continue
			}
			t := strings.TrimSpace(blockText(b))
			if t == "" {
				continue
			}
			open = nil
			// A word broken at the end of a column or page goes on at
			// the top of the next one (not on the next slide).
			if n := len(blocks); n > 0 && blocks[n-1].visual == nil && (!deck || n > start) {
				if r, _ := utf8.DecodeRuneInString(t); unicode.IsLower(r) {
					switch joinHyphen(blocks[n-1].text) {
					case hyphenDrop:
						blocks[n-1].text = strings.TrimSuffix(blocks[n-1].text, "-") + t
						continue
					case hyphenKeep:
						blocks[n-1].text += t
						continue
					}
				}
			}
			blocks = append(blocks, block{text: t, page: pi})
		}
		if deck && len(blocks) > start {
			blocks[start].slide = true
			blocks[start].title = slideTitle(p)
		}
	}
	return blocks
}

// slideDeck reports whether pages are a slide deck: at least two pages
// with text, and at least 60% of them slide-like, their body text at
// least 3% of the page's shorter side high (a document's is 1.5–2%: 10pt
// on a letter page, 14pt large print under 2%; slides are read from afar:
// Beamer's 11pt on a 272pt page is 4%, an Impress export 4–6%) and at
// most 300 words.
func slideDeck(pages []pdfPage) bool {
	text, slides := 0, 0
	for i := range pages {
		p := &pages[i]
		n := p.words()
		if n == 0 {
			continue
		}
		text++
		if short := math.Min(p.w, p.h); short > 0 && n <= 300 && bodyLineHeight(p) >= 0.03*short {
			slides++
		}
	}
	return text >= 2 && 10*slides >= 6*text
}

// slideTitle is the title of a slide: its first text block in reading
// order when it is short (at most two lines and 15 words) and set at
// least as large as the slide's body text; "" otherwise.
func slideTitle(p *pdfPage) string {
	body := bodyLineHeight(p)
	for _, b := range p.blocks {
		if b.table != nil || len(b.lines) == 0 {
			continue
		}
		words := 0
		for _, l := range b.lines {
			words += len(l.words)
		}
		if len(b.lines) > 2 || words > 15 || b.lines[0].h() < 0.95*body {
			return ""
		}
		return strings.TrimSpace(blockText(b))
	}
	return ""
}

// capText keeps at most limit bytes of text over all pages' words, cutting
// at a word; it reports whether it cut.
func capText(pages []pdfPage, limit int) bool {
	used := 0
	for pi := range pages {
		p := &pages[pi]
		for bi := range p.blocks {
			b := &p.blocks[bi]
			for li := range b.lines {
				l := &b.lines[li]
				for wi, w := range l.words {
					used += len(w.s) + 1
					if used > limit {
						l.words = l.words[:wi]
						b.lines = b.lines[:li+1]
						p.blocks = p.blocks[:bi+1]
						for pj := pi + 1; pj < len(pages); pj++ {
							pages[pj].blocks = nil
						}
						return true
					}
				}
			}
		}
	}
	return false
}

func pageWarn(page int, format string, args ...any) string {
	return fmt.Sprintf("page %d: ", page+1) + fmt.Sprintf(format, args...)
}
