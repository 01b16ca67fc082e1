package ingest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// defaultContextWords is how many words before and after a visual item it
// carries as context (G2-Reader).
const defaultContextWords = 1000

// Config configures [Config.Read] and [Config.FS]; [Path] uses the zero
// value, which is G2-Reader's setup.
type Config struct {
	// ChunkSize is the largest text chunk in characters (runes); 0 means
	// 3,000.
	ChunkSize int
	// ChunkOverlap is how many characters consecutive chunks may share; 0
	// means 300, negative none. It is capped at ChunkSize/2.
	ChunkOverlap int
	// ContextWords is how many words of surrounding text a visual item gets
	// on each side; 0 means 1,000, negative none.
	ContextWords int
	// PDFReader picks the reader of PDF text: "pdftotext" (Poppler only,
	// Debian package poppler-utils), "go" (the pure-Go reader
	// github.com/ledongthuc/pdf only), or "" for Poppler when pdftotext is
	// on PATH and the pure-Go reader when it is not or when Poppler fails
	// on the file. Both give words with their boxes to one layout (see the
	// package doc), but they decode fonts differently and only Poppler
	// renders figure images and feeds OCR, so the choice changes the items.
	// FileReport.Format names the reader that read each PDF the same way.
	PDFReader string
	// MaxFileSize is the largest file read, in bytes; 0 means 256 MiB.
	// A larger file is skipped as ErrTooLarge (it would be held in memory
	// whole).
	MaxFileSize int64
	// Assets is the folder where the images rendered from PDF pages (the
	// regions of figures and tables, with Poppler) are written: one
	// folder per document, its ID as path (Assets/papers/a.pdf/
	// p003-figure1.png), which becomes the document's Root. "" means no
	// image is rendered (the items keep their captions and text, and a
	// warning says so). Ingestion never writes into the collection it
	// reads.
	Assets string
	// OCRLanguage are the languages tesseract reads scanned pages in, by
	// tesseract's codes joined by "+" ("eng", "deu+eng", "chi_sim"); ""
	// means "eng". Each needs its language pack (Debian package
	// tesseract-ocr-<code>, "_" written "-": tesseract-ocr-chi-sim); a
	// missing one is reported and its pages are not read.
	OCRLanguage string
	// Progress, when set, is called as long steps advance (OCR of a
	// file's scanned pages: stage "ocr <file>"), done of total; never
	// concurrently.
	Progress func(done, total int, stage string)
}

// ocrLanguage checks c.OCRLanguage and returns it ("eng" for "").
// check validates the settings that are not numbers with a default.
func (c Config) check() error {
	if err := c.checkPDFReader(); err != nil {
		return err
	}
	_, err := c.ocrLanguage()
	return err
}

func (c Config) checkPDFReader() error {
	switch c.PDFReader {
	case pdfAuto, pdfPoppler, pdfGo:
		return nil
	}
	return fmt.Errorf("ingest: PDFReader %q: want \"pdftotext\", \"go\" or \"\" (either)", c.PDFReader)
}

func (c Config) ocrLanguage() (string, error) {
	if c.OCRLanguage == "" {
		return "eng", nil
	}
	if !ocrLangs.MatchString(c.OCRLanguage) {
		return "", fmt.Errorf("ingest: OCRLanguage %q: tesseract language codes joined by +, such as eng, deu+eng or chi_sim", c.OCRLanguage)
	}
	return c.OCRLanguage, nil
}

var ocrLangs = regexp.MustCompile(`^[A-Za-z0-9_]{1,32}(\+[A-Za-z0-9_]{1,32}){0,15}$`)

func (c Config) maxFileSize() int64 {
	if c.MaxFileSize <= 0 {
		return defaultMaxFileSize
	}
	return c.MaxFileSize
}

func (c Config) chunking() chunking {
	return chunking{size: c.ChunkSize, overlap: c.ChunkOverlap}
}

func (c Config) contextWords() int {
	switch {
	case c.ContextWords == 0:
		return defaultContextWords
	case c.ContextWords < 0:
		return 0
	}
	return c.ContextWords
}

// block is one parsed unit before chunking: a heading, a text block or a
// visual item.
type block struct {
	heading bool
	text    string
	page    int
	visual  *graph.Item // set for tables and figures
	// slide marks the first block of a slide: the text of a slide is a
	// unit of its own, never joined with the slide before, and title is
	// its section ("" when the slide has none).
	slide bool
	title string
}

// assemble turns blocks into items: consecutive text blocks (and headings)
// are joined into runs that end at a visual item or at a heading following
// body text, and each run is chunked. Visual items get their section and
// context.
func (c Config) assemble(blocks []block) []graph.Item {
	var items []graph.Item
	section := ""
	// The current run: its blocks, with the byte offset each starts at.
	var run []block
	var runSec []string
	hasBody := false
	flush := func() {
		if !hasBody {
			// A run of headings alone is not content: the headings live
			// on as the Section of the items that follow.
			run, runSec = run[:0], runSec[:0]
			return
		}
		hasBody = false
		var b strings.Builder
		starts := make([]int, len(run))
		for i, bl := range run {
			if i > 0 {
				b.WriteString("\n\n")
			}
			starts[i] = b.Len()
			b.WriteString(bl.text)
		}
		text := b.String()
		for _, sp := range chunkSpans(text, c.chunking()) {
			k := sort.SearchInts(starts, sp[0]+1) - 1 // block holding the chunk's start
			k = max(k, 0)
			e := max(sort.SearchInts(starts, sp[1])-1, k) // and its end
			it := graph.Item{
				Modality: graph.ModalityText,
				Text:     text[sp[0]:sp[1]],
				Section:  runSec[k],
				Page:     run[k].page,
			}
			if p := run[e].page; it.Page >= 0 && p > it.Page {
				it.LastPage = p
			}
			items = append(items, it)
		}
		run, runSec = run[:0], runSec[:0]
	}
	for _, bl := range blocks {
		if bl.slide {
			flush()
			section = bl.title
		}
		switch {
		case bl.visual != nil:
			flush()
			it := *bl.visual
			it.Section = section
			items = append(items, it)
		case bl.heading:
			if hasBody {
				flush()
			}
			section = bl.text
			run = append(run, bl)
			runSec = append(runSec, section)
		default:
			run = append(run, bl)
			runSec = append(runSec, section)
			hasBody = true
		}
	}
	flush()
	c.addContext(blocks, items)
	return items
}

// addContext gives each visual item the words of the text blocks around it.
func (c Config) addContext(blocks []block, items []graph.Item) {
	n := c.contextWords()
	if n == 0 {
		return
	}
	var words []string
	var at []int // word position of each visual block, in order
	for _, bl := range blocks {
		if bl.visual != nil {
			at = append(at, len(words))
			continue
		}
		words = append(words, strings.Fields(bl.text)...)
	}
	k := 0
	for i := range items {
		if items[i].Modality == graph.ModalityText {
			continue
		}
		p := at[k]
		k++
		before := strings.Join(words[max(0, p-n):p], " ")
		after := strings.Join(words[p:min(len(words), p+n)], " ")
		switch {
		case before != "" && after != "":
			items[i].Context = before + "\n\n" + after
		default:
			items[i].Context = before + after
		}
	}
}
