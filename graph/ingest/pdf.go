package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/flowreader/flowreader/graph"
)

// The values of Config.PDFReader, which are also the names FileReport.Format
// gives the reader that read a PDF ("pdf: pdftotext").
const (
	pdfAuto    = ""
	pdfPoppler = "pdftotext"
	pdfGo      = "go"
)

// pdfTimeout bounds one run of a Poppler tool or tesseract.
const pdfTimeout = 2 * time.Minute

// pdfInfo says how a PDF was read, for the build report.
type pdfInfo struct {
	// Reader is the reader that produced the text: "pdftotext" (Poppler)
	// or "go" (github.com/ledongthuc/pdf).
	Reader string
	// Pages is the number of pages read.
	Pages int
	// Warnings are what was lost or guessed, pages 1-based ("page 3:
	// scanned, not read: no OCR (tesseract not installed)"); kinds are
	// their formats and lost says which lost content (see warnings).
	Warnings []string
	kinds    []string
	lost     []bool
	// Scanned are the 0-based pages with images and no text that were not
	// read; OCR the ones read by tesseract.
	Scanned, OCR []int
	// Figures and Tables count the visual items found; Images how many of
	// them got an image file.
	Figures, Tables, Images int
	// Refused counts the pages not read for a limit or a malformed page.
	Refused int
}

// warn notes what was repaired or guessed, or decoration left out; lose
// notes content left out; pageWarn and pageLose say which page (0-based
// page, reported 1-based).
func (i *pdfInfo) warn(format string, args ...any) {
	i.note(format, false, fmt.Sprintf(format, args...))
}
func (i *pdfInfo) lose(format string, args ...any) {
	i.note(format, true, fmt.Sprintf(format, args...))
}
func (i *pdfInfo) pageWarn(page int, format string, args ...any) {
	i.note(format, false, pageWarn(page, format, args...))
}
func (i *pdfInfo) pageLose(page int, format string, args ...any) {
	i.note(format, true, pageWarn(page, format, args...))
}

// truncate drops the warnings past the first n.
func (i *pdfInfo) truncate(n int) {
	i.Warnings, i.kinds, i.lost = i.Warnings[:n], i.kinds[:n], i.lost[:n]
}

func (i *pdfInfo) note(kind string, lost bool, text string) {
	if len(i.Warnings) >= 1000 {
		return // reading stops long before: the file's limits bound it
	}
	i.Warnings = append(i.Warnings, text)
	i.kinds = append(i.kinds, kind)
	i.lost = append(i.lost, lost)
}

// pdf reads the PDF file path of box, the document id: its text in
// reading order, a paragraph per text block with running headers and
// footers removed, and its figures and tables (found from their captions,
// and tables from their columns) as visual items; items carry their
// 0-based page. With Config.Assets set, Poppler renders each figure or
// table region to a PNG file in the folder Assets/<id>/, which becomes the
// document's Root; without it, or when that folder cannot be written, the
// items keep their caption and text and a warning says so.
//
// The readers get the checked real path: Poppler opens it in another
// process, so the check cannot follow the open into it as folder.read does.
func (c Config) pdf(ctx context.Context, box folder, path, id string) (graph.Document, pdfInfo, error) {
	var info pdfInfo
	real, st, err := box.check(path)
	if err != nil {
		return graph.Document{}, info, err
	}
	lim := limitsFor(st.Size())
	pages, pp, err := c.pdfPages(ctx, real, path, st.Size(), lim, &info)
	if err != nil {
		return graph.Document{}, info, err
	}
	info.Pages = len(pages)
	removeFurniture(pages)
	name := path
	if box.fsys == nil {
		name = filepath.Base(path)
	} else {
		name = pathpkg.Base(path)
	}
	sink := &figureSink{ctx: ctx, pp: pp, pdf: real, info: &info}
	var image func(pdfRegion) *graph.ImageRef
	switch {
	case info.Reader != "pdftotext" || pp.pdftoppm == "":
	case c.Assets == "":
		sink.skipped = true
	default:
		sink.dir = filepath.Join(c.Assets, filepath.FromSlash(pathpkg.Dir(id)))
		sink.name = pathpkg.Base(id)
		image = sink.add
	}
	blocks := pageBlocks(pages, image, slideDeck(pages))
	if err := ctx.Err(); err != nil {
		sink.abort()
		return graph.Document{}, info, fmt.Errorf("ingest: %s: %w", path, context.Cause(ctx))
	}
	refs := sink.commit()
	for i := range blocks {
		it := blocks[i].visual
		if it == nil {
			continue
		}
		if it.Modality == graph.ModalityTable {
			info.Tables++
		} else {
			info.Figures++
		}
		if it.Image != nil {
			if ref, ok := refs[it.Image.Path]; ok {
				it.Image = ref
				info.Images++
			} else {
				it.Image = nil
			}
		}
	}
	if n := info.Figures + info.Tables - info.Images; n > 0 {
		switch {
		case info.Reader != "pdftotext" || pp.pdftoppm == "":
			info.warn("%d figures or tables without an image: rendering needs Poppler (pdftoppm)", n)
		case sink.skipped:
			info.warn("%d figures or tables without an image: no folder for rendered images (Config.Assets; flowreader build writes them beside the graph file)", n)
		case !sink.failed:
			info.warn("%d figures or tables without an image: no region found above or below the caption", n)
		}
	}
	if len(info.Scanned) > 0 && len(info.Scanned) == len(pages) {
		info.lose("no text read: every page is scanned and none was read by OCR")
	}
	doc := graph.Document{
		ID:    name,
		Title: strings.TrimSuffix(name, filepath.Ext(name)),
		Items: c.assemble(blocks),
	}
	if info.Images > 0 {
		doc.Root = sink.final()
	}
	if len(doc.Items) == 0 {
		return graph.Document{}, info, fmt.Errorf("%w: %s", ErrEmpty, c.emptyPDF(info, pp))
	}
	return doc, info, nil
}

// emptyPDF says why a PDF gave no items and which tool would read it.
func (c Config) emptyPDF(info pdfInfo, pp poppler) string {
	const (
		poppler   = "Poppler (Debian package poppler-utils: apt-get install poppler-utils)"
		tesseract = "tesseract (Debian package tesseract-ocr: apt-get install tesseract-ocr)"
	)
	switch {
	case info.Pages == 0:
		return "the PDF has no pages"
	case info.Refused > 0:
		return "pages not read (see the warnings)"
	case len(info.OCR) > 0:
		return "its pages are scanned and OCR read no text from them (is the OCR language right? Config.OCRLanguage, build --ocr-lang)"
	case len(info.Scanned) > 0 && info.Reader == "go":
		return "its pages are scanned (images, no text): OCR reads them with " + poppler + " and " + tesseract
	case len(info.Scanned) > 0 && pp.tesseract == "":
		return "its pages are scanned (images, no text): OCR reads them with " + tesseract
	case len(info.Scanned) > 0:
		return "its pages are scanned (images, no text) and OCR failed (see the warnings)"
	case info.Reader == "go" && pp.pdftotext == "":
		return "the pure-Go PDF reader found no text (text drawn rotated, or fonts it cannot decode); " + poppler + " reads more"
	case info.Reader == "go":
		return "the pure-Go PDF reader found no text (text drawn rotated, or fonts it cannot decode); the Poppler reader reads more"
	}
	return "no text layer and no scanned page: its pages are empty or drawn as shapes"
}

// pdfPages picks the reader (Config.PDFReader) and lays out the pages.
func (c Config) pdfPages(ctx context.Context, path, shown string, size int64, lim pdfLimits, info *pdfInfo) ([]pdfPage, poppler, error) {
	var errs []error
	var pp poppler
	if err := c.checkPDFReader(); err != nil {
		return nil, pp, err
	}
	if c.PDFReader != pdfGo {
		pp = findPoppler()
		pp.lang, _ = c.ocrLanguage()
		if c.Progress != nil {
			pp.progress = func(done, total int) { c.Progress(done, total, "ocr "+shown) }
		}
		switch {
		case pp.pdftotext != "":
			w := len(info.Warnings)
			pages, err := pp.popplerPages(ctx, path, size, lim, info)
			if err == nil {
				info.Reader = pdfPoppler
				return pages, pp, nil
			}
			if ctx.Err() != nil {
				return nil, pp, fmt.Errorf("ingest: %s: %w", path, context.Cause(ctx))
			}
			info.truncate(w)
			errs = append(errs, err)
		case c.PDFReader == pdfPoppler:
			return nil, pp, fmt.Errorf("%w: %s: pdftotext not installed (Debian package poppler-utils)", ErrUnsupported, path)
		}
	}
	if c.PDFReader != pdfPoppler {
		w := len(info.Warnings)
		pages, err := goPagesCtx(ctx, path, size, lim, info)
		if err == nil {
			info.Reader = pdfGo
			if len(errs) > 0 {
				info.warn("read by the pure-Go reader: %v", errs[0])
			}
			for i := range pages {
				if pages[i].words() == 0 && pages[i].images {
					info.Scanned = append(info.Scanned, i)
					info.pageLose(i, "scanned (images, no text), not read: OCR needs Poppler (pdftoppm) and tesseract")
				}
			}
			return pages, pp, nil
		}
		info.truncate(w)
		errs = append(errs, err)
	}
	return nil, pp, fmt.Errorf("%w: %s: no reader could read the PDF: %w", ErrFormat, path, errors.Join(errs...))
}

// goPagesCtx runs the pure-Go reader in its own goroutine so that a
// cancelled ctx returns at once even while the library is inside one page
// (it takes no context; the goroutine ends when that page does, its work
// bounded by the limits).
func goPagesCtx(ctx context.Context, path string, size int64, lim pdfLimits, info *pdfInfo) ([]pdfPage, error) {
	type result struct {
		pages []pdfPage
		info  pdfInfo
		err   error
	}
	done := make(chan result, 1)
	go func() {
		var mine pdfInfo
		pages, err := goPages(ctx, path, size, lim, &mine)
		done <- result{pages, mine, err}
	}()
	select {
	case r := <-done:
		for k, s := range r.info.Warnings {
			info.note(r.info.kinds[k], r.info.lost[k], s)
		}
		info.Refused += r.info.Refused
		return r.pages, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("ingest: %s: %w", path, context.Cause(ctx))
	}
}

// figureSink renders figure and table regions into a temporary folder in
// dir and, on commit, moves it to dir/name in one rename, so that a failed
// or interrupted read leaves the previous images whole.
type figureSink struct {
	ctx     context.Context
	pp      poppler
	pdf     string
	dir     string // the assets folder of the document's parent
	name    string // the document's base name: its images' folder
	info    *pdfInfo
	tmp     string
	n       int
	files   []string
	failed  bool
	skipped bool // no assets folder: nothing rendered
}

// final is the folder the images are moved to: the document's Root.
func (s *figureSink) final() string { return filepath.Join(s.dir, s.name) }

func (s *figureSink) add(r pdfRegion) *graph.ImageRef {
	if s.failed {
		return nil
	}
	if s.tmp == "" {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			s.fail(err)
			return nil
		}
		tmp, err := os.MkdirTemp(s.dir, "."+s.name+".tmp-")
		if err != nil {
			s.fail(err)
			return nil
		}
		s.tmp = tmp
	}
	s.n++
	kind := "figure"
	if r.modality == graph.ModalityTable {
		kind = "table"
	}
	file := fmt.Sprintf("p%03d-%s%d", r.page+1, kind, s.n)
	if err := s.pp.renderRegion(s.ctx, s.pdf, r, filepath.Join(s.tmp, file)); err != nil {
		s.info.pageWarn(r.page, "%s image not rendered: %v", kind, err)
		return nil
	}
	s.files = append(s.files, file+".png")
	return &graph.ImageRef{Path: file + ".png"}
}

func (s *figureSink) fail(err error) {
	s.failed = true
	s.info.warn("figure images not written (%v): figures keep their captions only", err)
}

// abort removes the rendered images, leaving the previous ones.
func (s *figureSink) abort() {
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// commit moves the rendered images into place and returns their
// references (relative to the document's Root) by file name.
func (s *figureSink) commit() map[string]*graph.ImageRef {
	refs := map[string]*graph.ImageRef{}
	if s.tmp == "" {
		return refs
	}
	final := s.final()
	old := final + ".old"
	os.RemoveAll(old)
	if err := os.Rename(final, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.fail(err)
		os.RemoveAll(s.tmp)
		return refs
	}
	if err := os.Rename(s.tmp, final); err != nil {
		os.Rename(old, final)
		s.fail(err)
		os.RemoveAll(s.tmp)
		return refs
	}
	os.RemoveAll(old)
	for _, f := range s.files {
		refs[f] = &graph.ImageRef{Path: f, MIME: "image/png"}
	}
	return refs
}

var (
	pageNumberLine = regexp.MustCompile(`^(?i:page\s+)?[-–—(\[]?\s*\d{1,5}\s*[-–—)\]]?(?:\s*(?i:of|/)\s*\d{1,5})?$`)
	wideGap        = regexp.MustCompile(`[ \t]{2,}`)
)

// splitPDFText splits pdftotext output into pages at form feeds and cleans
// each page: line ends normalised, control characters removed, runs of
// spaces (column gaps of -layout mode) shortened to two, a bare page number
// on the first or last line dropped, and at most one blank line kept
// between paragraphs. A trailing form feed does not start a new page.
func splitPDFText(out string) []string {
	out = strings.ToValidUTF8(out, "\uFFFD")
	out = strings.ReplaceAll(out, "\r\n", "\n")
	out = strings.ReplaceAll(out, "\r", "\n")
	raw := strings.Split(out, "\f")
	if len(raw) > 1 && strings.TrimSpace(raw[len(raw)-1]) == "" {
		raw = raw[:len(raw)-1]
	}
	pages := make([]string, len(raw))
	for i, p := range raw {
		pages[i] = cleanPage(p)
	}
	return pages
}

func cleanPage(p string) string {
	lines := strings.Split(p, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.Map(func(r rune) rune {
			if r == '\t' || !unicode.IsControl(r) {
				return r
			}
			return -1
		}, l)
		l = strings.TrimSpace(wideGap.ReplaceAllString(l, "  "))
		out = append(out, l)
	}
	// Trim blank lines at both ends, then a page number at either end.
	trim := func(ls []string) []string {
		for len(ls) > 0 && ls[0] == "" {
			ls = ls[1:]
		}
		for len(ls) > 0 && ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		return ls
	}
	out = trim(out)
	if len(out) > 0 && pageNumberLine.MatchString(out[len(out)-1]) {
		out = trim(out[:len(out)-1])
	}
	if len(out) > 0 && pageNumberLine.MatchString(out[0]) {
		out = trim(out[1:])
	}
	var b strings.Builder
	blank := false
	for _, l := range out {
		if l == "" {
			blank = true
			continue
		}
		if b.Len() > 0 {
			if blank {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(l)
	}
	return b.String()
}

// paragraphs splits a cleaned page at blank lines.
func paragraphs(page string) []string {
	var out []string
	for _, p := range strings.Split(page, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
