package reliability

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// pngBytes is a small valid PNG whose pixels encode seed, so that every
// image of a test has distinct bytes.
func pngBytes(t testing.TB, seed byte) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i := range img.Pix {
		img.Pix[i] = seed + byte(i)
	}
	img.Set(0, 0, color.RGBA{seed, 0xEE, 0x5E, 0xC7})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// recorder is a fake vision model that keeps every image it was sent.
type recorder struct {
	mu     sync.Mutex
	images [][]byte
	texts  []string
}

func (r *recorder) AcceptsImages() bool { return true }
func (r *recorder) Name() string        { return "recorder" }
func (r *recorder) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r.mu.Lock()
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.Image != nil {
				r.images = append(r.images, p.Image.Data)
			}
		}
	}
	r.texts = append(r.texts, fake.Prompt(req))
	r.mu.Unlock()
	return pureModel().Generate(ctx, req)
}

func (r *recorder) sent(data []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.images {
		if bytes.Equal(b, data) {
			return true
		}
	}
	return false
}

func (r *recorder) prompted(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// escapeFixture lays out a collection root next to an outside folder that
// holds a secret image and a secret text, with every kind of escape inside
// the root: a symlinked file, a symlinked folder, and the files the
// relative and absolute paths name.
type escapeFixture struct {
	root, outside string
	secret, ok    []byte
	secretText    string
}

func newEscapeFixture(t *testing.T) *escapeFixture {
	t.Helper()
	base := t.TempDir()
	f := &escapeFixture{
		root:       filepath.Join(base, "collection"),
		outside:    filepath.Join(base, "outside"),
		secret:     pngBytes(t, 0x51),
		ok:         pngBytes(t, 0x0c),
		secretText: "TOP-SECRET-7f3a outside the collection",
	}
	for _, d := range []string{filepath.Join(f.root, "doc", "images"), f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(f.outside, "secret.png"), f.secret, 0o644))
	must(os.WriteFile(filepath.Join(f.outside, "secret.md"), []byte("# Secret\n\n"+f.secretText+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(f.root, "doc", "images", "ok.png"), f.ok, 0o644))
	must(os.Symlink(filepath.Join(f.outside, "secret.png"), filepath.Join(f.root, "doc", "images", "link.png")))
	must(os.Symlink(f.outside, filepath.Join(f.root, "doc", "images", "dirlink")))
	return f
}

// escapes are image paths, relative to the document folder, that leave it.
func (f *escapeFixture) escapes() []string {
	return []string{
		"../../outside/secret.png",
		"images/../../../outside/secret.png",
		filepath.Join(f.outside, "secret.png"),
		"/" + filepath.ToSlash(filepath.Join(f.outside, "secret.png")),
		`..\..\outside\secret.png`,
		"images/link.png",
		"images/dirlink/secret.png",
	}
}

// MinerU img_path values and Markdown image links that leave the document
// folder, lexically or through a symbolic link, are never followed: the
// figure keeps its caption without the image and the report says why; a
// path inside the folder is accepted.
func TestSecurityIngestPathEscapes(t *testing.T) {
	f := newEscapeFixture(t)
	doc := filepath.Join(f.root, "doc")
	for _, esc := range f.escapes() {
		list := `[{"type":"text","text":"Intro","page_idx":0},{"type":"image","img_path":` + quote(esc) + `,"image_caption":["Figure 1"],"page_idx":0}]`
		if err := os.WriteFile(filepath.Join(doc, "content_list.json"), []byte(list), 0o644); err != nil {
			t.Fatal(err)
		}
		docs, rep, err := ingest.Config{}.Read(context.Background(), doc)
		if err != nil || len(docs) != 1 || len(rep.Files) != 1 || len(docs[0].Items) != 2 || docs[0].Items[1].Image != nil ||
			!strings.Contains(strings.Join(rep.Files[0].Warnings, " "), "leaves the document's folder") {
			t.Errorf("MinerU img_path %q: error %v, documents %+v, report %+v; want the figure kept without its image and a warning", esc, err, docs, rep)
		}
		md := filepath.Join(doc, "notes.md")
		if err := os.WriteFile(md, []byte("# Notes\n\nText.\n\n![Figure 1]("+esc+")\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		docs, err = ingest.Path(md)
		escaped := false
		for _, d := range docs {
			for _, it := range d.Items {
				if it.Image != nil && !filepath.IsLocal(filepath.FromSlash(it.Image.Path)) {
					escaped = true
				}
			}
		}
		// Markdown may also keep the figure without its image; it must
		// never point outside.
		if escaped || err != nil && !errors.Is(err, ingest.ErrPathEscape) {
			t.Errorf("Markdown image %q: error %v, documents %+v", esc, err, docs)
		}
	}
	list := `[{"type":"image","img_path":"images/ok.png","image_caption":["Figure 1"],"page_idx":0}]`
	os.WriteFile(filepath.Join(doc, "content_list.json"), []byte(list), 0o644)
	docs, err := ingest.Path(doc)
	if err != nil || len(docs) != 1 || len(docs[0].Items) != 1 || docs[0].Items[0].Image == nil || docs[0].Items[0].Image.Path != "images/ok.png" {
		t.Fatalf("a local image: %v, %+v", err, docs)
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Documents built by hand (not through ingest) get the same protection
// from the graph Builder: an image path that leaves the document root,
// lexically or through a symbolic link, is ErrDocument, and no image
// outside the root ever reaches the model during analysis.
func TestSecurityBuilderImageEscapes(t *testing.T) {
	f := newEscapeFixture(t)
	ctx := ctxTimeout(t, time.Minute)
	for _, esc := range f.escapes() {
		m := &recorder{}
		p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}, Model: m, ImageRoot: f.root})
		if err != nil {
			t.Fatal(err)
		}
		docs := []graph.Document{{ID: "doc", Root: filepath.Join(f.root, "doc"), Items: []graph.Item{
			{Text: "Intro text."},
			{Modality: graph.ModalityFigure, Caption: "Figure 1", Image: &graph.ImageRef{Path: esc, MIME: "image/png"}},
		}}}
		_, err = p.Build(ctx, docs)
		if m.sent(f.secret) {
			t.Errorf("image path %q: the outside image was sent to the model (build error %v)", esc, err)
		}
		// On Unix a backslash is part of a file name, so that path is a
		// local (missing) file, not an escape.
		if !strings.Contains(esc, `\`) && !errors.Is(err, graph.ErrDocument) {
			t.Errorf("image path %q: build error %v, want graph.ErrDocument", esc, err)
		}
	}
	// A local image is read and sent.
	m := &recorder{}
	p, _ := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}, Model: m, ImageRoot: f.root})
	_, err := p.Build(ctx, []graph.Document{{ID: "doc", Root: filepath.Join(f.root, "doc"), Items: []graph.Item{
		{Modality: graph.ModalityFigure, Caption: "Figure 1", Image: &graph.ImageRef{Path: "images/ok.png", MIME: "image/png"}},
	}}})
	if err != nil || !m.sent(f.ok) {
		t.Fatalf("local image: error %v, sent %v", err, m.sent(f.ok))
	}
}

// A graph whose nodes name images outside the image root (a tampered
// graph file, or one built elsewhere) never makes the reader send those
// images: the worker gets the text rendering instead.
func TestSecurityReaderImageEscapes(t *testing.T) {
	f := newEscapeFixture(t)
	ctx := ctxTimeout(t, time.Minute)
	paths := []string{
		"../outside/secret.png",
		"doc/images/../../../outside/secret.png",
		filepath.ToSlash(filepath.Join(f.outside, "secret.png")),
		"doc/images/link.png",
		"doc/images/dirlink/secret.png",
		"doc/images/ok.png", // the control: this one must be sent
	}
	var nodes []graph.Node
	for i, p := range paths {
		nodes = append(nodes, graph.Node{
			ID: "doc#" + string(rune('a'+i)), Doc: "doc", Order: i, Modality: graph.ModalityFigure,
			Caption: "Figure: kestrels counted at the north ridge " + p, Summary: "kestrels at the north ridge",
			Image: &graph.ImageRef{Path: p, MIME: "image/png"},
		})
	}
	emb := &fake.Embedder{Dim: 32}
	vecs, err := emb.Embed(ctx, texts(nodes), llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	var flat []float32
	for _, v := range vecs {
		flat = append(flat, v...)
	}
	var edges []graph.Edge
	for i := 0; i+1 < len(nodes); i++ {
		edges = append(edges, graph.Edge{U: int32(i), V: int32(i + 1), Kind: graph.EdgeOrder})
	}
	g, err := graph.New(nodes, 32, flat, edges)
	if err != nil {
		t.Fatal(err)
	}
	m := &recorder{}
	cfg := flowreader.Classic()
	cfg.Embedder, cfg.Model, cfg.ImageRoot = emb, m, f.root
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := askOn(ctx, p, g, question)
	if err != nil {
		t.Fatal(err)
	}
	if m.sent(f.secret) {
		t.Fatal("an image outside the image root was sent to a worker")
	}
	read := map[int]bool{}
	for _, c := range res.Evidence.Chains {
		for _, n := range c.Nodes {
			read[n.Node] = true
		}
	}
	if read[len(paths)-1] && !m.sent(f.ok) {
		t.Fatal("the local image was not sent either: the test does not bite")
	}
	t.Logf("%d chains read; local image sent: %v", len(res.Evidence.Chains), m.sent(f.ok))
}

func texts(nodes []graph.Node) []string {
	out := make([]string, len(nodes))
	for i := range nodes {
		// The Builder's embedding text (paper v1 Eq. 12).
		out[i] = nodes[i].Summary
		if len(nodes[i].Keywords) > 0 {
			out[i] += " keywords: " + strings.Join(nodes[i].Keywords, ", ")
		}
	}
	return out
}
