package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// poppler holds the paths of the Poppler tools (Debian poppler-utils) and
// tesseract (Debian tesseract-ocr) found on PATH; "" when absent.
type poppler struct {
	pdftotext, pdfinfo, pdfimages, pdftoppm, tesseract string
	// lang is tesseract's -l argument; progress reports OCR pages done.
	lang     string
	progress func(done, total int)
}

func findPoppler() poppler {
	look := func(name string) string {
		p, err := exec.LookPath(name)
		if err != nil {
			return ""
		}
		return p
	}
	return poppler{pdftotext: look("pdftotext"), pdfinfo: look("pdfinfo"), pdfimages: look("pdfimages"), pdftoppm: look("pdftoppm"), tesseract: look("tesseract")}
}

// errToolOutput: a tool wrote more than its bound.
var errToolOutput = errors.New("output exceeds its bound")

// runTool runs bin with args under ctx and pdfTimeout, keeping at most
// limit bytes of its standard output (more is an error: the process is
// killed).
func runTool(ctx context.Context, limit int, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1") // tesseract: one thread, the same result every run
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	data, rerr := io.ReadAll(io.LimitReader(out, int64(limit)+1))
	if len(data) > limit {
		cancel()
		cmd.Wait()
		return nil, fmt.Errorf("%s: %w (%d bytes)", filepath.Base(bin), errToolOutput, limit)
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(bin), context.Cause(ctx))
		}
		msg := strings.Join(strings.Fields(stderr.String()), " ")
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		if msg == "" {
			return nil, fmt.Errorf("%s: %w", filepath.Base(bin), err)
		}
		return nil, fmt.Errorf("%s: %w: %s", filepath.Base(bin), err, strings.ToValidUTF8(msg, "?"))
	}
	return data, rerr
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// popplerPages reads the word boxes of the first lim.pages pages with
// pdftotext -bbox-layout, whose blocks come in Poppler's reading order
// (columns one after the other); then it reads pages that have images but
// no text through OCR when it can.
func (pp poppler) popplerPages(ctx context.Context, path string, size int64, lim pdfLimits, info *pdfInfo) ([]pdfPage, error) {
	if pp.pdfinfo != "" {
		if out, err := runTool(ctx, 1<<20, pp.pdfinfo, path); err == nil {
			if n := pdfinfoPages(out); n > lim.pages {
				info.lose("only the first %d of %d pages read (at most %d pages, and one per %d bytes of file)", lim.pages, n, pdfMaxPages, pdfBytesPerPage)
			}
		}
	}
	if err := inflateCheck(ctx, path, size, lim); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	last := strconv.Itoa(lim.pages)
	// The XML is about twenty times the text it carries.
	out, err := runTool(ctx, 24*lim.text+1<<20, pp.pdftotext, "-bbox-layout", "-enc", "UTF-8", "-f", "1", "-l", last, path, "-")
	if err != nil {
		return nil, err
	}
	pages, cut, err := parseBBox(bytes.NewReader(bytes.ToValidUTF8(out, []byte("\uFFFD"))), lim)
	if err != nil {
		return nil, err
	}
	if cut {
		info.lose("text cut at %d bytes (at most %d bytes of text per byte of file)", lim.text, pdfTextGrowth)
	}
	// Poppler joins the lines of two columns whose gutter is narrow into
	// one line, and its block order reads a page band by band when
	// paragraph gaps of two columns line up; so its lines are split at
	// gaps wider than a line's height, regrouped into blocks and put in
	// XY-cut order, as the pure-Go reader's are.
	for i := range pages {
		var lines []pdfLine
		for _, b := range pages[i].blocks {
			for _, l := range b.lines {
				lines = append(lines, splitLine(l)...)
			}
		}
		pages[i].blocks = orderBlocks(groupLines(lines))
	}
	pp.scanned(ctx, path, pages, lim, info)
	return pages, nil
}

// scanned finds pages with images and no text (scanned pages) and reads
// them with tesseract, or reports them.
func (pp poppler) scanned(ctx context.Context, path string, pages []pdfPage, lim pdfLimits, info *pdfInfo) {
	var empty []int
	for i := range pages {
		if pages[i].words() == 0 {
			empty = append(empty, i)
		}
	}
	if len(empty) == 0 || pp.pdfimages == "" {
		for _, i := range empty {
			if pp.pdfimages == "" {
				info.pageLose(i, "no text (pdfimages not installed: cannot tell whether it is scanned; Debian package poppler-utils)")
			}
		}
		return
	}
	out, err := runTool(ctx, 4<<20, pp.pdfimages, "-list", "-f", "1", "-l", strconv.Itoa(lim.pages), path)
	if err != nil {
		info.warn("pdfimages: %v", err)
		return
	}
	withImages := imagePages(out)
	var scanned []int
	for _, i := range empty {
		if withImages[i] {
			scanned = append(scanned, i) // the others are blank pages
		}
	}
	missing := ""
	if len(scanned) > 0 && pp.tesseract != "" && pp.pdftoppm != "" {
		missing = pp.missingLanguages(ctx)
	}
	var tmp string
	for k, i := range scanned {
		if ctx.Err() != nil {
			return
		}
		pages[i].images = true
		if pp.tesseract == "" || pp.pdftoppm == "" {
			info.pageLose(i, "scanned (images, no text), not read: no OCR (tesseract not installed: Debian package tesseract-ocr)")
			info.Scanned = append(info.Scanned, i)
			continue
		}
		if missing != "" {
			info.pageLose(i, "scanned, not read: %s", missing)
			info.Scanned = append(info.Scanned, i)
			continue
		}
		if pp.progress != nil {
			pp.progress(k, len(scanned))
		}
		if tmp == "" {
			if tmp, err = os.MkdirTemp("", "flowreader-ocr-"); err != nil {
				info.pageLose(i, "scanned, not read: %v", err)
				continue
			}
			defer os.RemoveAll(tmp)
		}
		text, err := pp.ocr(ctx, path, i, tmp, lim)
		if err != nil {
			info.pageLose(i, "scanned, OCR failed: %v", err)
			info.Scanned = append(info.Scanned, i)
			continue
		}
		pages[i].blocks = textBlocks(text)
		pages[i].ocr = true
		info.OCR = append(info.OCR, i)
		info.pageWarn(i, "scanned, read by OCR (tesseract, %s)", pp.lang)
	}
	if pp.progress != nil && missing == "" && pp.tesseract != "" && pp.pdftoppm != "" && len(scanned) > 0 {
		pp.progress(len(scanned), len(scanned))
	}
}

// ocr renders page i at 300 dpi and reads it with tesseract.
func (pp poppler) ocr(ctx context.Context, path string, i int, tmp string, lim pdfLimits) (string, error) {
	n := strconv.Itoa(i + 1)
	prefix := filepath.Join(tmp, "page"+n)
	if _, err := runTool(ctx, 1<<10, pp.pdftoppm, "-r", "300", "-gray", "-png", "-singlefile", "-f", n, "-l", n, path, prefix); err != nil {
		return "", err
	}
	defer os.Remove(prefix + ".png")
	lang := pp.lang
	if lang == "" {
		lang = "eng"
	}
	out, err := runTool(ctx, lim.text, pp.tesseract, prefix+".png", "stdout", "-l", lang)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// missingLanguages names the languages of pp.lang that tesseract has no
// pack for, with their Debian packages; "" when all are there (or the
// list cannot be read: tesseract then reports a missing pack itself).
func (pp poppler) missingLanguages(ctx context.Context) string {
	lang := pp.lang
	if lang == "" {
		lang = "eng"
	}
	out, err := runTool(ctx, 1<<20, pp.tesseract, "--list-langs")
	if err != nil {
		return ""
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var miss, pkgs []string
	for _, l := range strings.Split(lang, "+") {
		if !have[l] {
			miss = append(miss, l)
			pkgs = append(pkgs, "tesseract-ocr-"+strings.ReplaceAll(strings.ToLower(l), "_", "-"))
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return fmt.Sprintf("no tesseract language pack for %s (Debian package %s)", strings.Join(miss, ", "), strings.Join(pkgs, ", "))
}

// textBlocks makes blocks (without boxes) of plain text: a block per
// paragraph, a line per line.
func textBlocks(text string) []pdfBlock {
	var blocks []pdfBlock
	for _, para := range paragraphs(cleanPage(text)) {
		var b pdfBlock
		for _, l := range strings.Split(para, "\n") {
			var line pdfLine
			for _, w := range strings.Fields(l) {
				line.words = append(line.words, pdfWord{s: normaliseWord(w)})
			}
			if len(line.words) > 0 {
				b.lines = append(b.lines, line)
			}
		}
		if len(b.lines) > 0 {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// splitLine splits a line at gaps between words wider than its height
// (and 8pt): a column gutter, not a space.
func splitLine(l pdfLine) []pdfLine {
	var out []pdfLine
	cur := pdfLine{}
	for _, w := range l.words {
		if n := len(cur.words); n > 0 && w.x0-cur.words[n-1].x1 > math.Max(8, l.h()) {
			out = append(out, cur)
			cur = pdfLine{}
		}
		cur.words = append(cur.words, w)
		cur.grow(w.pdfBox)
	}
	if len(cur.words) > 0 {
		out = append(out, cur)
	}
	return out
}

// pdfinfoPages reads "Pages: N" from pdfinfo's output; 0 when absent.
func pdfinfoPages(out []byte) int {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pages:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return max(n, 0)
		}
	}
	return 0
}

// imagePages reads pdfimages -list output: the 0-based pages that draw an
// image. Its first column is the 1-based page.
func imagePages(out []byte) map[int]bool {
	pages := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		if n, err := strconv.Atoi(f[0]); err == nil && n >= 1 && n <= pdfMaxPages {
			pages[n-1] = true
		}
	}
	return pages
}

// parseBBox parses pdftotext -bbox-layout output (XHTML: page > flow >
// block > line > word, boxes in points from the top left). At most
// lim.pages pages and lim.text bytes of words are kept; cut reports that
// the text bound cut the input.
func parseBBox(r io.Reader, lim pdfLimits) (pages []pdfPage, cut bool, err error) {
	d := xml.NewDecoder(xmlSafe{r})
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	used := 0
	var cur *pdfPage
	var blk *pdfBlock
	var line *pdfLine
	var word *pdfWord
	var wordText strings.Builder
	tokens := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("%w: pdftotext output: %v", ErrFormat, err)
		}
		if tokens++; tokens > 16*lim.text+1024 {
			return pages, true, nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "page":
				if len(pages) >= lim.pages {
					return pages, true, nil
				}
				pages = append(pages, pdfPage{w: attrF(t, "width"), h: attrF(t, "height")})
				cur, blk, line, word = &pages[len(pages)-1], nil, nil, nil
			case "block":
				if cur != nil {
					cur.blocks = append(cur.blocks, pdfBlock{pdfBox: attrBox(t)})
					blk, line, word = &cur.blocks[len(cur.blocks)-1], nil, nil
				}
			case "line":
				if blk != nil {
					blk.lines = append(blk.lines, pdfLine{pdfBox: attrBox(t)})
					line, word = &blk.lines[len(blk.lines)-1], nil
				}
			case "word":
				if line != nil {
					word = &pdfWord{pdfBox: attrBox(t)}
					wordText.Reset()
				}
			}
		case xml.CharData:
			if word != nil && wordText.Len() < 4096 {
				wordText.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "word":
				if word != nil && line != nil {
					word.s = normaliseWord(strings.TrimSpace(wordText.String()))
					if word.s != "" {
						if used += len(word.s) + 1; used > lim.text {
							return pages, true, nil
						}
						line.words = append(line.words, *word)
					}
				}
				word = nil
			case "line":
				line, word = nil, nil
			case "block":
				blk, line, word = nil, nil, nil
			case "page":
				cur, blk, line, word = nil, nil, nil, nil
			}
		}
	}
	return pages, false, nil
}

// xmlSafe replaces the bytes XML forbids (C0 controls other than tab and
// line ends, which pdftotext copies from broken fonts) by spaces, so that
// one odd glyph does not lose the document. (Invalid UTF-8 is replaced
// before parsing.)
type xmlSafe struct{ r io.Reader }

func (x xmlSafe) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	for i := 0; i < n; i++ {
		if c := p[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			p[i] = ' '
		}
	}
	return n, err
}

func attrF(t xml.StartElement, name string) float64 {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			f, err := strconv.ParseFloat(a.Value, 64)
			if err != nil || f != f || f > 1e6 || f < -1e6 {
				return 0
			}
			return f
		}
	}
	return 0
}

func attrBox(t xml.StartElement) pdfBox {
	return pdfBox{attrF(t, "xMin"), attrF(t, "yMin"), attrF(t, "xMax"), attrF(t, "yMax")}
}

// renderRegion renders region r of page r.page at 150 dpi to the PNG file
// prefix+".png".
func (pp poppler) renderRegion(ctx context.Context, path string, r pdfRegion, prefix string) error {
	if pp.pdftoppm == "" {
		return errors.New("pdftoppm not installed")
	}
	const dpi = 150
	px := func(v float64) string { return strconv.Itoa(int(v * dpi / 72)) }
	n := strconv.Itoa(r.page + 1)
	_, err := runTool(ctx, 1<<10, pp.pdftoppm, "-r", strconv.Itoa(dpi), "-png", "-singlefile", "-f", n, "-l", n,
		"-x", px(r.box.x0), "-y", px(r.box.y0), "-W", px(r.box.w()), "-H", px(r.box.h()), path, prefix)
	return err
}
