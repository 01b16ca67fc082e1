package ingest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// A tiny PDF writer for test fixtures: pages of text runs in Courier (every
// glyph 600/1000 em wide, declared in /Widths so that both readers place
// glyphs alike) and gray raster images. The fixtures are generated at test
// time; their expected text is golden in testdata/pdf.

type fxRun struct {
	x, y, size float64 // y from the bottom, PDF's convention
	text       string  // "\x01" stands for the fi ligature glyph
}

type fxImage struct {
	x, y, w, h float64
	img        *image.Gray
}

type fxPage struct {
	runs   []fxRun
	images []fxImage
}

type fxDoc struct{ pages []fxPage }

// column lays lines out from (x, y) downwards, 12pt apart, at 10pt.
func (p *fxPage) column(x, y float64, lines ...string) {
	for i, l := range lines {
		p.runs = append(p.runs, fxRun{x: x, y: y - 12*float64(i), size: 10, text: l})
	}
}

func pdfString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`, "\x01", `\001`)
	return "(" + r.Replace(s) + ")"
}

func (d fxDoc) bytes() []byte {
	var b bytes.Buffer
	var offs []int
	obj := func(n int, s string) {
		for len(offs) < n {
			offs = append(offs, 0)
		}
		offs[n-1] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, s)
	}
	stream := func(n int, dict string, data []byte) {
		for len(offs) < n {
			offs = append(offs, 0)
		}
		offs[n-1] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n<< %s /Length %d >>\nstream\n", n, dict, len(data))
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
	}
	b.WriteString("%PDF-1.4\n")
	widths := strings.TrimSpace(strings.Repeat("600 ", 256))
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /FirstChar 0 /LastChar 255 /Widths ["+widths+
		"] /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi] >> >>")
	next := 4
	var kids []string
	for _, pg := range d.pages {
		pageObj, contentObj := next, next+1
		next += 2
		var xobjs []string
		var content strings.Builder
		for i, im := range pg.images {
			n := next
			next++
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(im.img.Pix)
			zw.Close()
			bd := im.img.Bounds()
			stream(n, fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode",
				bd.Dx(), bd.Dy()), z.Bytes())
			xobjs = append(xobjs, fmt.Sprintf("/Im%d %d 0 R", i, n))
			fmt.Fprintf(&content, "q %g 0 0 %g %g %g cm /Im%d Do Q\n", im.w, im.h, im.x, im.y, i)
		}
		for _, r := range pg.runs {
			fmt.Fprintf(&content, "BT /F1 %g Tf %g %g Td %s Tj ET\n", r.size, r.x, r.y, pdfString(r.text))
		}
		res := "/Font << /F1 3 0 R >>"
		if len(xobjs) > 0 {
			res += " /XObject << " + strings.Join(xobjs, " ") + " >>"
		}
		obj(pageObj, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << %s >> /Contents %d 0 R >>", res, contentObj))
		stream(contentObj, "", []byte(content.String()))
		kids = append(kids, fmt.Sprintf("%d 0 R", pageObj))
	}
	obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	return finishPDF(&b, offs, 1)
}

// finishPDF writes the cross-reference table and trailer.
func finishPDF(b *bytes.Buffer, offs []int, root int) []byte {
	xref := b.Len()
	fmt.Fprintf(b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, root, xref)
	return b.Bytes()
}

// rawPDF assembles numbered objects (1-based, given in order) into a file.
func rawPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	return finishPDF(&b, offs, 1)
}

// textImage renders lines of text black on white at 48px (about 12pt at
// 300 dpi), the picture of a scanned page.
func textImage(lines ...string) *image.Gray {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 36, DPI: 96, Hinting: font.HintingFull})
	if err != nil {
		panic(err)
	}
	img := image.NewGray(image.Rect(0, 0, 1400, 120+70*len(lines)))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(60, 100+70*i)
		d.DrawString(l)
	}
	return img
}

// boxImage is a gray picture: a dark frame with a diagonal, a stand-in
// for a chart.
func boxImage(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := uint8(230)
			if x < 3 || y < 3 || x >= w-3 || y >= h-3 || abs(x*h-y*w) < 2*w {
				c = 20
			}
			img.SetGray(x, y, color.Gray{c})
		}
	}
	return img
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
