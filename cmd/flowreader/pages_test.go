//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/realdocs"
	"github.com/flowreader/flowreader/reader"
)

// inspected is one line of inspect --nodes.
type inspected struct {
	ID, Section, Modality string
	Page                  *int
	LastPage              *int `json:"last_page"`
}

// inspectNodes runs inspect --nodes on g and decodes its lines.
func inspectNodes(t *testing.T, g string) []inspected {
	t.Helper()
	var so, se bytes.Buffer
	if code := run(t.Context(), []string{"inspect", "-g", g, "--nodes"}, []command{inspectCommand()}, &so, &se); code != 0 {
		t.Fatalf("inspect --nodes: %s", se.String())
	}
	var out []inspected
	for _, l := range strings.Split(strings.TrimSpace(so.String()), "\n") {
		var n inspected
		if err := json.Unmarshal([]byte(l), &n); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, n)
	}
	return out
}

// The 25-page Beamer deck builds to nodes slide by slide: every slide has
// a node on its page, none runs over two, and inspect reports pages 1-25.
// Its figure and table images go beside the graph file (deck.assets), not
// into the collection, and the graph finds them there.
func TestBuildSlideDeck(t *testing.T) {
	coll := t.TempDir()
	data := realdocs.Read(t, "pdf/beamer-metropolis-demo.pdf")
	deck := filepath.Join(coll, "deck.pdf")
	os.WriteFile(deck, data, 0o444)
	out := filepath.Join(t.TempDir(), "deck.frg")
	if _, se, code := cli(t, nil, "build", "-o", out, coll); code != 0 {
		t.Fatalf("build: %s", se)
	}
	if ents, _ := os.ReadDir(coll); len(ents) != 1 {
		t.Errorf("the collection holds %v", ents)
	}
	assets := strings.TrimSuffix(out, ".frg") + ".assets"
	pngs, _ := filepath.Glob(filepath.Join(assets, "deck.pdf", "*.png"))
	if hasPoppler() && len(pngs) != 3 {
		t.Errorf("assets %v", pngs)
	}
	nodes := inspectNodes(t, out)
	seen := map[int]bool{}
	for _, n := range nodes {
		if n.Page == nil || n.LastPage != nil {
			t.Errorf("node %s: page %v last %v", n.ID, n.Page, n.LastPage)
			continue
		}
		seen[*n.Page] = true
	}
	for p := 1; p <= 25; p++ {
		if !seen[p] {
			t.Errorf("slide %d has no node", p)
		}
	}
	var so, se bytes.Buffer
	run(t.Context(), []string{"inspect", "-g", out}, []command{inspectCommand()}, &so, &se)
	if !strings.Contains(so.String(), "pages 1-25") {
		t.Errorf("inspect:\n%s", so.String())
	}
	if hasPoppler() && !strings.Contains(so.String(), "(3 found)") {
		t.Errorf("inspect:\n%s", so.String())
	}
	// --assets inside the collection is refused before any work.
	if _, se, code := cli(t, nil, "build", "--assets", filepath.Join(coll, "img"), "-o", out, coll); code != 2 || !strings.Contains(se, "never written into the collection") {
		t.Errorf("--assets inside a PATH: exit %d: %s", code, se)
	}
}

func hasPoppler() bool {
	_, err1 := exec.LookPath("pdftotext")
	_, err2 := exec.LookPath("pdftoppm")
	return err1 == nil && err2 == nil
}

// A node over two pages keeps both: inspect --nodes gives last_page, the
// summary counts it, and a citation names the range.
func TestPageRanges(t *testing.T) {
	g, err := graph.New([]graph.Node{
		{ID: "a.pdf#0", Doc: "a.pdf", Page: 2, LastPage: 3, Content: "runs over"},
		{ID: "a.pdf#1", Doc: "a.pdf", Page: 3, Order: 1, Content: "one page"},
	}, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "g.frg")
	if err := graph.Save(out, g); err != nil {
		t.Fatal(err)
	}
	nodes := inspectNodes(t, out)
	if len(nodes) != 2 || *nodes[0].Page != 3 || nodes[0].LastPage == nil || *nodes[0].LastPage != 4 || nodes[1].LastPage != nil {
		t.Errorf("nodes %+v", nodes)
	}
	var so, se bytes.Buffer
	run(t.Context(), []string{"inspect", "-g", out}, []command{inspectCommand()}, &so, &se)
	if !strings.Contains(so.String(), "a.pdf: 2 nodes, pages 3-4") {
		t.Errorf("inspect:\n%s", so.String())
	}
	if got := citationPlace(g, reader.Citation{Doc: "a.pdf", Page: 2, Node: 0}); got != "a.pdf pp.3-4" {
		t.Errorf("citation %q", got)
	}
	if got := citationPlace(g, reader.Citation{Doc: "a.pdf", Page: 3, Node: 1}); got != "a.pdf p.4" {
		t.Errorf("citation %q", got)
	}
}

// A scanned page: OCR says how far it is on stderr, a page read by OCR is
// no lost content (--strict passes); a missing language pack names its
// Debian package and loses the page; without Poppler and tesseract the
// file is skipped naming both.
func TestBuildScannedPDF(t *testing.T) {
	coll := t.TempDir()
	data := realdocs.Read(t, "pdf/scanned-page.pdf")
	os.WriteFile(filepath.Join(coll, "scan.pdf"), data, 0o644)
	out := filepath.Join(t.TempDir(), "g.frg")
	_, tess := exec.LookPath("tesseract")
	if hasPoppler() && tess == nil {
		_, se, code := cli(t, nil, "build", "--strict", "--ocr-lang", "eng", "-o", out, coll)
		if code != 0 || !strings.Contains(se, "scan.pdf: page 1 of 1 scanned pages") || !strings.Contains(se, "1 scanned pages read") ||
			!strings.Contains(se, "warning: "+filepath.Join(coll, "scan.pdf")+": page 1: scanned, read by OCR (tesseract, eng)") {
			t.Errorf("OCR: exit %d:\n%s", code, se)
		}
		_, se, code = cli(t, nil, "build", "--ocr-lang", "xx_yy", "-o", out, coll)
		if code != 1 || !strings.Contains(se, "lost: ") || !strings.Contains(se, "tesseract-ocr-xx-yy") {
			t.Errorf("missing pack: exit %d:\n%s", code, se)
		}
	} else {
		t.Log("Poppler or tesseract not installed: the OCR part skipped (apt-get install poppler-utils tesseract-ocr)")
	}
	t.Setenv("PATH", t.TempDir())
	_, se, code := cli(t, nil, "build", "-o", out, coll)
	if code != 1 || !strings.Contains(se, "poppler-utils") || !strings.Contains(se, "tesseract-ocr") || !strings.Contains(se, "(pdf: go)") {
		t.Errorf("no tools: exit %d:\n%s", code, se)
	}
}
