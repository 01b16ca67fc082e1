package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	gopdf "github.com/ledongthuc/pdf"

	"github.com/flowreader/flowreader/graph"
)

// PDFReader names the reader of PDF text. The readers differ in the text
// they give (line breaks, column gaps), so the choice changes the chunks.
type PDFReader uint8

const (
	// PDFReaderAuto uses pdftotext when it is on PATH, else the pure-Go
	// reader.
	PDFReaderAuto PDFReader = iota
	// PDFReaderPoppler uses Poppler's pdftotext only (Debian package
	// poppler-utils).
	PDFReaderPoppler
	// PDFReaderGo uses the pure-Go reader github.com/ledongthuc/pdf only.
	PDFReaderGo
)

// pdfTimeout bounds one pdftotext run.
const pdfTimeout = 2 * time.Minute

// pdf reads the text of the PDF file path of box page by page (see the
// package doc for which reader is used); each page's paragraphs are
// chunked, with items carrying their 0-based page. Figures and tables
// inside a PDF are not extracted: parse the PDF with MinerU for those.
//
// The readers get the checked real path: pdftotext opens it in another
// process, so the check cannot follow the open into it as folder.read does.
func (c Config) pdf(box folder, path string) (graph.Document, error) {
	real, _, err := box.check(path)
	if err != nil {
		return graph.Document{}, err
	}
	pages, err := c.pdfPages(real)
	if err != nil {
		return graph.Document{}, err
	}
	var blocks []block
	for i, pg := range pages {
		for _, para := range paragraphs(pg) {
			blocks = append(blocks, block{text: para, page: i})
		}
	}
	id := filepath.Base(path)
	return graph.Document{
		ID:    id,
		Title: strings.TrimSuffix(id, filepath.Ext(id)),
		Items: c.assemble(blocks),
	}, nil
}

func (c Config) pdfPages(path string) ([]string, error) {
	var errs []error
	switch c.PDFReader {
	case PDFReaderAuto, PDFReaderPoppler, PDFReaderGo:
	default:
		return nil, fmt.Errorf("ingest: unknown PDFReader %d", c.PDFReader)
	}
	if c.PDFReader != PDFReaderGo {
		bin, err := exec.LookPath("pdftotext")
		switch {
		case err == nil:
			pages, err := pdftotext(bin, path)
			if err == nil {
				return pages, nil
			}
			errs = append(errs, err)
		case c.PDFReader == PDFReaderPoppler:
			return nil, fmt.Errorf("%w: %s: pdftotext: %w", ErrUnsupported, path, err)
		default:
			errs = append(errs, fmt.Errorf("pdftotext: %w", err))
		}
	}
	if c.PDFReader != PDFReaderPoppler {
		pages, err := goPDFPages(path)
		if err == nil {
			return pages, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("%w: %s: no reader could read the PDF: %w", ErrFormat, path, errors.Join(errs...))
}

// pdftotext runs Poppler's pdftotext in -layout mode over the whole file;
// it separates pages with form feeds.
func pdftotext(bin, path string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), pdfTimeout)
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-layout", "-enc", "UTF-8", "-q", path, "-")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pdftotext: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return splitPDFText(out.String()), nil
}

// goPDFPages reads page texts with the pure-Go reader, which panics on some
// malformed files: the panic becomes an error.
func goPDFPages(path string) (pages []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			pages, err = nil, fmt.Errorf("go pdf reader: %v", r)
		}
	}()
	f, r, err := gopdf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("go pdf reader: %w", err)
	}
	defer f.Close()
	var b strings.Builder
	n := r.NumPage()
	for i := 1; i <= n; i++ {
		p := r.Page(i)
		if i > 1 {
			b.WriteByte('\f')
		}
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			return nil, fmt.Errorf("go pdf reader: page %d: %w", i, err)
		}
		b.WriteString(t)
	}
	return splitPDFText(b.String()), nil
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
