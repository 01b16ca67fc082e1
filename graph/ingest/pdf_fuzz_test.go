package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
)

// bboxSample is the shape of pdftotext -bbox-layout output.
const bboxSample = `<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head></head><body><doc>
<page width="612" height="792"><flow>
<block xMin="72" yMin="20" xMax="200" yMax="30"><line xMin="72" yMin="20" xMax="200" yMax="30"><word xMin="72" yMin="20" xMax="110" yMax="30">Header</word></line></block>
<block xMin="72" yMin="100" xMax="280" yMax="124"><line xMin="72" yMin="100" xMax="280" yMax="110"><word xMin="72" yMin="100" xMax="100" yMax="110">Left</word><word xMin="104" yMin="100" xMax="150" yMax="110">repre-</word><word xMin="330" yMin="100" xMax="380" yMax="110">Right</word></line>
<line xMin="72" yMin="112" xMax="280" yMax="124"><word xMin="72" yMin="112" xMax="130" yMax="124">sentation &amp; ﬁne</word></line></block>
<block xMin="72" yMin="300" xMax="280" yMax="310"><line xMin="72" yMin="300" xMax="280" yMax="310"><word xMin="72" yMin="300" xMax="120" yMax="310">Figure</word><word xMin="124" yMin="300" xMax="140" yMax="310">1:</word><word xMin="144" yMin="300" xMax="200" yMax="310">Chart.</word></line></block>
</flow></page>
<page width="612" height="792"><flow><block xMin="72" yMin="20" xMax="200" yMax="30"><line xMin="72" yMin="20" xMax="200" yMax="30"><word xMin="72" yMin="20" xMax="110" yMax="30">Header</word></line></block></flow></page>
</doc></body></html>`

// FuzzPDFLayout feeds arbitrary pdftotext -bbox-layout output through the
// parser and the whole layout (line splitting, blocks, XY-cut, headers,
// captions and regions, tables): no panic, valid UTF-8, page and text
// bounds kept, every region inside its page's numbers.
func FuzzPDFLayout(f *testing.F) {
	f.Add([]byte(bboxSample))
	f.Add([]byte(`<page width="NaN" height="-1e308"><block xMin="1e400"><line><word>Table 1:</word></line></block></page>`))
	f.Add([]byte(`<page><page><page><word>x</word></page>` + strings.Repeat("<block>", 100)))
	f.Add([]byte("<page width=\"10\" height=\"10\"><block><line><word>\x13\xff</word></line></block></page>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := pdfLimits{pages: 8, text: 4096}
		pages, _, err := parseBBox(bytes.NewReader(bytes.ToValidUTF8(data, []byte("\uFFFD"))), lim)
		if err != nil {
			return
		}
		if len(pages) > lim.pages {
			t.Fatalf("%d pages, limit %d", len(pages), lim.pages)
		}
		for i := range pages {
			var lines []pdfLine
			for _, b := range pages[i].blocks {
				for _, l := range b.lines {
					lines = append(lines, splitLine(l)...)
				}
			}
			pages[i].blocks = orderBlocks(groupLines(lines))
		}
		removeFurniture(pages)
		text := 0
		blocks := pageBlocks(pages, func(r pdfRegion) *graph.ImageRef {
			if r.page < 0 || r.page >= len(pages) || r.box.w() <= 0 || r.box.h() <= 0 {
				t.Fatalf("region %+v", r)
			}
			return &graph.ImageRef{Path: "x.png", MIME: "image/png"}
		}, slideDeck(pages))
		for _, b := range blocks {
			s := b.text
			if b.visual != nil {
				s = b.visual.Text + b.visual.Caption
			}
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
			text += len(s)
		}
		if text > 2*lim.text {
			t.Fatalf("%d bytes of text, limit %d", text, lim.text)
		}
	})
}

// FuzzPDFGo feeds arbitrary files to the pure-Go reader, bounded by a
// context: an error or pages within the limits, never a panic or a hang.
func FuzzPDFGo(f *testing.F) {
	f.Add(twoColumns().bytes())
	f.Add(figures().bytes())
	for _, name := range []string{"count2e9", "kids-self", "parent-cycle", "repeat60x60"} {
		f.Add(bombs()[name])
	}
	f.Add([]byte("%PDF-1.4 garbage"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "f.pdf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// A hang detector, not a timing bound: generous enough for a
		// loaded machine under -race (the limits are checked below).
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		lim := limitsFor(int64(len(data)))
		var info pdfInfo
		pages, err := goPagesCtx(ctx, p, int64(len(data)), lim, &info)
		if ctx.Err() != nil {
			t.Fatalf("not done within 2 minutes")
		}
		if err == nil && len(pages) > lim.pages {
			t.Fatalf("%d pages, limit %d", len(pages), lim.pages)
		}
	})
}

// FuzzPopplerLists feeds arbitrary text to the readers of pdfinfo and
// pdfimages -list output.
func FuzzPopplerLists(f *testing.F) {
	f.Add([]byte("Title: x\nPages:           12\nEncrypted: no\n"))
	f.Add([]byte("page   num  type   width height\n--------\n   1     0 image     200   120  gray\n   3     1 smask 1 1\n"))
	f.Add([]byte("Pages: -5\n99999999999999999999 0 image\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		if n := pdfinfoPages(out); n < 0 {
			t.Fatalf("pages %d", n)
		}
		for p := range imagePages(out) {
			if p < 0 || p >= pdfMaxPages {
				t.Fatalf("page %d", p)
			}
		}
	})
}
