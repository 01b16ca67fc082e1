package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	gopdf "github.com/ledongthuc/pdf"
)

// The pure-Go reader (github.com/ledongthuc/pdf) gives glyphs with their
// positions and widths in content-stream order. This file walks the page
// tree itself, bounded (the library follows /Count and /Parent without
// checking for cycles), and rebuilds words, lines and blocks from glyph
// geometry: a gap wider than a fifth of the font size between glyphs is a
// space, a jump in the baseline is a new line, and blocks are put in
// reading order column by column (recursive XY-cut that prefers
// vertical gutters).

const pdfMaxDepth = 64 // page tree depth and /Parent chain length

// goPages reads up to lim.pages pages of the file at path.
func goPages(ctx context.Context, path string, size int64, lim pdfLimits, info *pdfInfo) (pages []pdfPage, err error) {
	defer func() {
		if r := recover(); r != nil {
			pages, err = nil, fmt.Errorf("%w: go pdf reader: %v", ErrFormat, r)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer f.Close()
	r, err := gopdf.NewReader(f, size)
	if err != nil {
		return nil, fmt.Errorf("%w: go pdf reader: %v", ErrFormat, err)
	}
	leaves, err := pageTree(r.Trailer().Key("Root").Key("Pages"), lim.pages, info)
	if err != nil {
		return nil, err
	}
	// Content streams are decompressed once to check their size before
	// the library interprets them: a few bytes of Flate can inflate to
	// gigabytes.
	streamBudget := int64(16*lim.text) + 1<<20
	used := 0
	for i, v := range leaves {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("ingest: %w", context.Cause(ctx))
		}
		if !parentChainOK(v) {
			info.pageLose(i, "not read: its /Parent chain loops or is deeper than %d", pdfMaxDepth)
			info.Refused++
			pages = append(pages, pdfPage{})
			continue
		}
		n, err := streamSize(v.Key("Contents"), streamBudget)
		if err != nil {
			info.pageLose(i, "not read: content stream: %v", err)
			info.Refused++
			pages = append(pages, pdfPage{})
			continue
		}
		if n > streamBudget {
			info.pageLose(i, "not read: content inflates past %d bytes (%d per byte of file, and 1 MiB, for all pages)", streamBudget, 16*pdfTextGrowth)
			info.Refused++
			pages = append(pages, pdfPage{})
			continue
		}
		streamBudget -= n
		pg, err := goPage(gopdf.Page{V: v})
		if err != nil {
			info.pageLose(i, "not read: %v", err)
		}
		for _, b := range pg.blocks {
			for _, l := range b.lines {
				for _, w := range l.words {
					used += len(w.s) + 1
				}
			}
		}
		pages = append(pages, pg)
		if used > lim.text {
			capText(pages, lim.text)
			info.lose("text cut at %d bytes (at most %d bytes of text per byte of file)", lim.text, pdfTextGrowth)
			break
		}
	}
	return pages, nil
}

// errInflate: the content streams inflate beyond their bound.
var errInflate = errors.New("content streams inflate past their bound")

// inflateCheck sums the decompressed sizes of the content streams of the
// first lim.pages pages, with the pure-Go parser, before Poppler reads the
// file: Poppler would interpret a few kilobytes of Flate that inflate to
// gigabytes for minutes. Files the parser cannot open pass (Poppler may
// read them); too much content is errInflate.
func inflateCheck(ctx context.Context, path string, size int64, lim pdfLimits) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = nil
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r, err := gopdf.NewReader(f, size)
	if err != nil {
		return nil
	}
	var quiet pdfInfo
	leaves, err := pageTree(r.Trailer().Key("Root").Key("Pages"), lim.pages, &quiet)
	if err != nil {
		return nil
	}
	budget := int64(16*lim.text) + 1<<20
	for _, v := range leaves {
		if ctx.Err() != nil {
			return nil
		}
		if !parentChainOK(v) {
			continue
		}
		n, _ := streamSize(v.Key("Contents"), budget)
		if budget -= n; budget < 0 {
			return fmt.Errorf("%w: more than %d bytes (%d per byte of file, and 1 MiB)", errInflate, int64(16*lim.text)+1<<20, 16*pdfTextGrowth)
		}
	}
	return nil
}

// pageTree lists the page objects under root in order, depth first,
// visiting each node once (a /Kids holding its own node, or one page object
// listed many times, is read once and reported), at most maxPages pages
// and pdfMaxDepth levels. /Count is not trusted.
func pageTree(root gopdf.Value, maxPages int, info *pdfInfo) ([]gopdf.Value, error) {
	if root.Kind() != gopdf.Dict {
		return nil, fmt.Errorf("%w: no page tree", ErrFormat)
	}
	type frame struct {
		v     gopdf.Value
		depth int
	}
	seen := map[string]bool{}
	var out []gopdf.Value
	stack := []frame{{root, 0}}
	repeats, visits := 0, 0
	for len(stack) > 0 {
		fr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visits++; visits > 4*maxPages+1024 {
			info.lose("page tree has more than %d nodes: the rest not read", 4*maxPages+1024)
			break
		}
		key := fr.v.String()
		if seen[key] {
			repeats++
			continue
		}
		seen[key] = true
		kids := fr.v.Key("Kids")
		isTree := fr.v.Key("Type").Name() == "Pages" || fr.v.Key("Type").Name() != "Page" && kids.Kind() == gopdf.Array
		if !isTree {
			if fr.v.Kind() != gopdf.Dict {
				continue
			}
			if len(out) >= maxPages {
				info.lose("only the first %d pages read (at most %d pages, and one per %d bytes of file)", maxPages, pdfMaxPages, pdfBytesPerPage)
				break
			}
			out = append(out, fr.v)
			continue
		}
		if fr.depth >= pdfMaxDepth {
			info.lose("page tree deeper than %d levels: the rest not read", pdfMaxDepth)
			continue
		}
		n := kids.Len()
		if n > 4*maxPages+1024 {
			n = 4*maxPages + 1024
		}
		for k := n - 1; k >= 0; k-- {
			stack = append(stack, frame{kids.Index(k), fr.depth + 1})
		}
	}
	if repeats > 0 {
		info.warn("page tree lists %d nodes more than once (a cycle or a repeated page): each read once", repeats)
	}
	return out, nil
}

// parentChainOK reports whether the /Parent chain of a page ends within
// pdfMaxDepth steps without a loop: the library follows it to find
// inherited resources and would loop for ever.
func parentChainOK(v gopdf.Value) bool {
	seen := map[string]bool{}
	for d := 0; d <= pdfMaxDepth; d++ {
		v = v.Key("Parent")
		if v.Kind() != gopdf.Dict {
			return true
		}
		k := v.String()
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return false
}

// inherited finds key in v or its ancestors (after parentChainOK).
func inherited(v gopdf.Value, key string) gopdf.Value {
	for d := 0; d <= pdfMaxDepth && v.Kind() == gopdf.Dict; d++ {
		if r := v.Key(key); !r.IsNull() {
			return r
		}
		v = v.Key("Parent")
	}
	return gopdf.Value{}
}

// streamSize decompresses a content stream (or array of streams) and
// counts its bytes, stopping past limit.
func streamSize(v gopdf.Value, limit int64) (int64, error) {
	var total int64
	one := func(s gopdf.Value) error {
		if s.Kind() != gopdf.Stream {
			return nil
		}
		rc := s.Reader()
		defer rc.Close()
		n, err := io.Copy(io.Discard, io.LimitReader(rc, limit-total+1))
		total += n
		return err
	}
	if v.Kind() == gopdf.Array {
		for i := 0; i < v.Len() && total <= limit; i++ {
			if err := one(v.Index(i)); err != nil {
				return total, err
			}
		}
		return total, nil
	}
	return total, one(v)
}

// goPage lays out one page's glyphs; a panic in the library (malformed
// content) becomes an error.
func goPage(p gopdf.Page) (pg pdfPage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	pg.w, pg.h = 612, 792
	if mb := inherited(p.V, "MediaBox"); mb.Len() == 4 {
		w := mb.Index(2).Float64() - mb.Index(0).Float64()
		h := mb.Index(3).Float64() - mb.Index(1).Float64()
		if w > 0 && h > 0 && w < 1e5 && h < 1e5 {
			pg.w, pg.h = w, h
		}
	}
	budget := 64
	pg.images = drawsImage(inherited(p.V, "Resources"), 0, &budget)
	if p.V.Key("Contents").IsNull() {
		return pg, nil
	}
	glyphs := p.Content().Text
	pg.blocks = orderBlocks(groupLines(glyphLines(glyphs, pg.h)))
	return pg, nil
}

// drawsImage reports whether resources res name an image XObject, also
// inside form XObjects (cairo draws a scanned page as a form holding the
// image), at most 4 forms deep and budget XObjects in all.
func drawsImage(res gopdf.Value, depth int, budget *int) bool {
	xobj := res.Key("XObject")
	for _, k := range xobj.Keys() {
		if *budget--; *budget < 0 {
			return false
		}
		x := xobj.Key(k)
		switch x.Key("Subtype").Name() {
		case "Image":
			return true
		case "Form":
			if depth < 4 && drawsImage(x.Key("Resources"), depth+1, budget) {
				return true
			}
		}
	}
	return false
}

// glyphLines turns glyphs (PDF coordinates, y up) into line segments of
// words (y down from the top of a page of height h). A gap wider than a
// fifth of the font size between two glyphs is a space; a jump in the
// baseline (more than half the larger size when the text goes on, as a
// superscript does; half the smaller one otherwise) or backwards is a new
// line.
//
// Two artefacts of the library are undone. It appends a "\n" glyph after
// every TJ array and line operator: that is no space (a word set in two
// TJ arrays, "fille" + "d", stays one), the geometry decides. And it does
// not read the widths of composite (CID) fonts, as XeTeX and LuaTeX
// write them: their glyphs come with width 0 and the text position does
// not advance within a string, only by the TJ adjustments between
// strings (and the "\n" glyph decodes to U+FFFD). For those glyphs the
// positions are rebuilt: a string's glyphs are laid out from its start
// with a typical glyph width (glyphWidth), an adjustment of at least
// 0.15 of the font size between two strings is a space (TeX's word space
// is a quarter to a third of it, kerns a few hundredths), and a string
// placed further on the same line by a text move starts a new word.
func glyphLines(glyphs []gopdf.Text, h float64) []pdfLine {
	var lines []pdfLine
	var line pdfLine
	var word pdfWord
	var sb strings.Builder
	lastX1, lastY, lastSize := math.Inf(-1), math.NaN(), 0.0
	// Composite-font strings: the library's x of the current string,
	// and whether the last glyph was one of them.
	runX, inRun := math.NaN(), false
	flushWord := func() {
		if sb.Len() > 0 {
			word.s = normaliseWord(sb.String())
			if word.s != "" {
				line.words = append(line.words, word)
				line.grow(word.pdfBox)
			}
		}
		sb.Reset()
		word = pdfWord{}
	}
	flushLine := func() {
		flushWord()
		if len(line.words) > 0 {
			lines = append(lines, line)
		}
		line = pdfLine{}
	}
	for _, g := range glyphs {
		size := math.Abs(g.FontSize)
		if size <= 0 || size > 1e4 || math.IsNaN(g.X) || math.IsNaN(g.Y) || math.IsInf(g.X, 0) || math.IsInf(g.Y, 0) {
			continue
		}
		zero := g.W <= 0
		if g.S == "\n" || zero && g.S == "\uFFFD" {
			continue // the library's marker after TJ and line operators
		}
		sameY := !math.IsNaN(lastY) && math.Abs(g.Y-lastY) <= 0.5*math.Min(size, lastSize)
		x, w, space := g.X, g.W, false
		switch {
		case !zero:
			if w > 4*size {
				w = 0.5 * size
			}
		case inRun && sameY && g.X == runX:
			x, w = lastX1, glyphWidth(g.S, size) // the string goes on
		case inRun && sameY && math.Abs(g.X-runX) < 0.6*size:
			// An adjustment between two strings of one TJ array.
			x, w, space = lastX1+(g.X-runX), glyphWidth(g.S, size), g.X-runX >= 0.15*size
			runX = g.X
		case inRun && sameY && g.X > runX:
			// A string placed further on by a text move: a new word,
			// clear of the estimated end of the last one.
			x, w, space = math.Max(g.X, lastX1+0.25*size), glyphWidth(g.S, size), true
			runX = g.X
		default:
			w = glyphWidth(g.S, size)
			runX = g.X
		}
		inRun = zero
		if strings.TrimFunc(g.S, unicode.IsSpace) == "" {
			flushWord()
			lastX1 = math.Max(lastX1, x+w)
			continue
		}
		goesOn := x >= lastX1-0.5*size && x-lastX1 <= 0.5*size
		newLine := math.IsNaN(lastY) || x < lastX1-size || x-lastX1 > 1.5*size ||
			math.Abs(g.Y-lastY) > 0.5*math.Min(size, lastSize) && !(goesOn && math.Abs(g.Y-lastY) <= 0.5*math.Max(size, lastSize))
		if newLine {
			flushLine()
		} else if space || x-lastX1 > 0.2*size {
			flushWord()
		}
		box := pdfBox{x, h - g.Y - 0.8*size, x + w, h - g.Y + 0.2*size}
		word.grow(box)
		sb.WriteString(g.S)
		lastX1, lastY, lastSize = x+w, g.Y, size
	}
	flushLine()
	return lines
}

// glyphWidth is a typical width of glyph s at font size size, for fonts
// whose widths the library does not read: narrow letters and punctuation
// 0.3 em, wide letters 0.8, capitals 0.65, others 0.5.
func glyphWidth(s string, size float64) float64 {
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case strings.ContainsRune("ijlftr.,;:'!|()[]{}", r):
		return 0.3 * size
	case strings.ContainsRune("mwMW", r):
		return 0.8 * size
	case unicode.IsUpper(r):
		return 0.65 * size
	}
	return 0.5 * size
}

// groupLines puts line segments into blocks: a line joins the block
// whose last line lies just above it (at most 0.6 line heights of gap),
// overlaps it horizontally and has about the same height; the most recent
// such block wins, so that lines written row by row across two columns
// still form one block per column paragraph.
func groupLines(lines []pdfLine) []pdfBlock {
	var blocks []pdfBlock
	for _, l := range lines {
		joined := false
		// A caption starts a block of its own, so that it is found.
		for k := len(blocks) - 1; k >= 0 && k >= len(blocks)-64 && !captionLine.MatchString(l.text()); k-- {
			b := &blocks[k]
			last := b.lines[len(b.lines)-1]
			gap := l.y0 - last.y1
			overlap := l.x0 < last.x1 && l.x1 > last.x0
			if gap > -0.5*l.h() && gap < 0.6*l.h() && overlap && math.Abs(l.h()-last.h()) < 0.3*l.h() {
				b.lines = append(b.lines, l)
				b.grow(l.pdfBox)
				joined = true
				break
			}
		}
		if !joined {
			blocks = append(blocks, pdfBlock{pdfBox: l.pdfBox, lines: []pdfLine{l}})
		}
	}
	return blocks
}

// orderBlocks puts blocks in reading order by recursive XY-cut: a region
// with a vertical gutter (a strip no block crosses) is read column by
// column; otherwise it is cut at horizontal gaps into bands read top to
// bottom, adjacent bands that are both multi-column being merged first so
// that two columns with aligned paragraph gaps still read column by column.
func orderBlocks(blocks []pdfBlock) []pdfBlock {
	// Columns of text are read first when the gutter between them has
	// prose on both sides; otherwise the region's rows may be a table,
	// whose columns the gutter test would separate.
	if len(blocks) == 0 {
		return blocks
	}
	cols := cut(blocks, true)
	if len(cols) > 1 && proseParts(cols) >= 2 {
		var out []pdfBlock
		for _, c := range cols {
			out = append(out, orderBlocks(c)...)
		}
		return out
	}
	if parts, ok := splitTables(blocks); ok {
		var out []pdfBlock
		for _, p := range parts {
			if p.table != nil {
				out = append(out, *p.table)
			} else {
				out = append(out, orderBlocks(p.blocks)...)
			}
		}
		return out
	}
	if len(blocks) <= 1 {
		return blocks
	}
	if len(cols) > 1 {
		var out []pdfBlock
		for _, c := range cols {
			out = append(out, orderBlocks(c)...)
		}
		return out
	}
	bands := cut(blocks, false)
	if len(bands) <= 1 {
		sort.SliceStable(blocks, func(i, j int) bool {
			if math.Abs(blocks[i].y0-blocks[j].y0) > 2 {
				return blocks[i].y0 < blocks[j].y0
			}
			return blocks[i].x0 < blocks[j].x0
		})
		return blocks
	}
	var merged [][]pdfBlock
	for _, b := range bands {
		if n := len(merged); n > 0 && len(cut(merged[n-1], true)) > 1 && len(cut(b, true)) > 1 {
			both := append(append([]pdfBlock(nil), merged[n-1]...), b...)
			if len(cut(both, true)) > 1 {
				merged[n-1] = both
				continue
			}
		}
		merged = append(merged, b)
	}
	var out []pdfBlock
	for _, b := range merged {
		out = append(out, orderBlocks(b)...)
	}
	return out
}

// proseParts counts the parts that hold a paragraph of prose: a block of
// at least three lines of six words or more on average (a table's column
// has short cells; a text column has paragraphs).
func proseParts(parts [][]pdfBlock) int {
	n := 0
	for _, p := range parts {
		for _, b := range p {
			words := 0
			for _, l := range b.lines {
				words += len(l.words)
			}
			if b.table == nil && len(b.lines) >= 3 && words >= 6*len(b.lines) {
				n++
				break
			}
		}
	}
	return n
}

// cut splits blocks at gaps along x (vertical gutters of at least 6pt) or
// along y (horizontal gaps of at least 1pt), in order.
func cut(blocks []pdfBlock, vertical bool) [][]pdfBlock {
	lo := func(b pdfBlock) float64 {
		if vertical {
			return b.x0
		}
		return b.y0
	}
	hi := func(b pdfBlock) float64 {
		if vertical {
			return b.x1
		}
		return b.y1
	}
	minGap := 1.0
	if vertical {
		minGap = 6
	}
	s := append([]pdfBlock(nil), blocks...)
	sort.SliceStable(s, func(i, j int) bool { return lo(s[i]) < lo(s[j]) })
	var out [][]pdfBlock
	start, reach := 0, hi(s[0])
	for i := 1; i < len(s); i++ {
		if lo(s[i]) >= reach+minGap {
			out = append(out, s[start:i])
			start = i
		}
		reach = math.Max(reach, hi(s[i]))
	}
	return append(out, s[start:])
}
