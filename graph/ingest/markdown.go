package ingest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/flowreader/flowreader/graph"
)

// tableCaption matches a paragraph that is a table's caption ("Table 3:",
// "Table 2. ...") rather than prose that mentions a table.
var tableCaption = regexp.MustCompile(`^(?i:table)\s+[A-Za-z]?[0-9][0-9.\-]*\s*[:.—–-]`)

// maxMarkdownNesting bounds the containers (list items, block quotes) one
// line may open. goldmark's work grows with the square of the nesting, so
// "- - - … x" of 40 KB would take seconds and gigabytes; a deeper file is
// read as plain text instead, with a warning.
const maxMarkdownNesting = 64

// maxListIndent caps the indentation of a rendered nested list, so that the
// rendering stays linear in the input.
const maxListIndent = 16

// markdown reads the Markdown (or MDX) file path (CommonMark with GFM
// tables): headings set the section, paragraphs, lists, code and quotes are
// text, tables become table items (a neighbouring "Table N:" paragraph is
// their caption) and images (![alt](src) and <img src alt>) become figure
// items whose caption is the alt text. Image paths are relative to the
// file's folder. The document's ID is the file's base name. MDX is read as
// Markdown without its import and export lines; its JSX elements are read
// as HTML.
func (c Config) markdown(r *reading, path string, mdx bool) (graph.Document, error) {
	data, err := r.box.read(path)
	if err != nil {
		return graph.Document{}, err
	}
	s, note, err := decodeText(data)
	if err != nil {
		return graph.Document{}, err
	}
	r.decoded(note)
	meta, body, fmNote, _ := frontMatter(s)
	if fmNote != "" {
		r.warn("%s", fmNote)
	}
	s = body
	if mdx {
		s = stripESM(s)
	}
	// The front matter's title is the page's heading (sites render it
	// so): the text before the first heading lies under it.
	title := meta["title"]
	if title != "" {
		s = "# " + strings.ReplaceAll(collapse(title), "#", "\\#") + "\n\n" + s
	}
	var doc graph.Document
	if d := markdownNesting(s); d > maxMarkdownNesting {
		r.warn("Markdown nesting of %d levels (more than %d): read as plain text", d, maxMarkdownNesting)
		doc, err = c.parseText(r.ctx, s)
	} else {
		doc, err = c.parseMarkdown(r, []byte(s))
	}
	if err != nil {
		return graph.Document{}, fmt.Errorf("%s: %w", path, err)
	}
	doc.ID = filepath.Base(path)
	doc.Metadata = meta
	if title != "" {
		doc.Title = collapse(title)
	}
	if doc.Title == "" {
		doc.Title = strings.TrimSuffix(doc.ID, filepath.Ext(doc.ID))
	}
	return doc, nil
}

type mdParser struct {
	r      *reading
	src    []byte
	blocks []block
	title  string
	n      int // blocks seen, for context checks
	err    error
}

func (c Config) parseMarkdown(r *reading, src []byte) (graph.Document, error) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	tree := md.Parser().Parse(text.NewReader(src))
	if err := r.ctx.Err(); err != nil {
		return graph.Document{}, err
	}
	p := &mdParser{r: r, src: src}
	p.container(tree)
	if p.err != nil {
		return graph.Document{}, p.err
	}
	return graph.Document{Title: p.title, Root: r.root, Items: c.assemble(p.blocks)}, nil
}

// markdownNesting returns the most containers (list markers, quote
// markers) any line of s opens at its start.
func markdownNesting(s string) int {
	deepest := 0
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		deepest = max(deepest, lineNesting(line))
	}
	return deepest
}

func lineNesting(l string) int {
	d, i := 0, 0
	space := func(j int) bool { return j >= len(l) || l[j] == ' ' || l[j] == '\t' }
	for {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		if i >= len(l) {
			return d
		}
		switch c := l[i]; {
		case c == '>':
			d, i = d+1, i+1
			continue
		case (c == '-' || c == '*' || c == '+') && space(i+1):
			d, i = d+1, i+1
			continue
		case c >= '0' && c <= '9':
			j := i
			for j < len(l) && j-i < 9 && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j < len(l) && (l[j] == '.' || l[j] == ')') && space(j+1) {
				d, i = d+1, j+1
				continue
			}
		}
		return d
	}
}

// stripESM drops MDX's import and export statements (lines starting with
// "import " or "export " outside fenced code): they are code, not prose.
func stripESM(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	fence := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"):
			fence = "```"
		case strings.HasPrefix(t, "~~~"):
			fence = "~~~"
		case strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "export "):
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// container converts the block children of n.
func (p *mdParser) container(n ast.Node) {
	var kids []ast.Node
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		kids = append(kids, c)
	}
	// Pair each table with a caption paragraph just before or after it.
	captionOf := map[ast.Node]string{}
	used := map[ast.Node]bool{}
	for i, k := range kids {
		if k.Kind() != east.KindTable && !(k.Kind() == ast.KindHTMLBlock && strings.Contains(strings.ToLower(p.lines(k)), "<table")) {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(kids) || used[kids[j]] || kids[j].Kind() != ast.KindParagraph {
				continue
			}
			if t := collapse(p.inline(kids[j])); tableCaption.MatchString(t) {
				captionOf[k] = t
				used[kids[j]] = true
				break
			}
		}
	}
	for _, k := range kids {
		if p.err != nil {
			return
		}
		if p.n++; p.n%checkEvery == 0 {
			if p.err = p.r.ctx.Err(); p.err != nil {
				return
			}
		}
		if used[k] {
			continue
		}
		p.block(k, captionOf[k])
	}
}

func (p *mdParser) block(n ast.Node, caption string) {
	switch n := n.(type) {
	case *ast.Heading:
		t := collapse(p.inline(n))
		if t == "" {
			return
		}
		if p.title == "" {
			p.title = t
		}
		p.blocks = append(p.blocks, block{heading: true, text: t, page: -1})
	case *ast.Paragraph, *ast.TextBlock:
		p.text(p.inline(n))
		p.images(n)
	case *ast.List:
		var b strings.Builder
		p.list(n, 0, &b)
		p.text(b.String())
		p.images(n)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		p.text(p.lines(n))
	case *ast.HTMLBlock:
		h := mustParseHTML(p.lines(n))
		// HTML tables (MinerU's Markdown, MDX pages) are tables, their
		// row and column spans expanded; the text around them is text.
		for _, part := range htmlParts(h) {
			if !part.table {
				p.text(part.text)
				continue
			}
			it := &graph.Item{Modality: graph.ModalityTable, Text: part.text, Caption: caption, Page: -1}
			caption = ""
			p.blocks = append(p.blocks, block{visual: it, page: -1})
		}
		p.htmlImages(h)
	case *ast.Blockquote:
		p.container(n)
	case *east.Table:
		p.table(n, caption)
	case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
	default:
		if n.HasChildren() {
			p.container(n)
		}
	}
}

func (p *mdParser) text(s string) {
	if s = strings.TrimSpace(s); s != "" {
		p.blocks = append(p.blocks, block{text: s, page: -1})
	}
}

// images emits a figure for each image under n, in document order:
// Markdown images and <img> tags in inline HTML.
func (p *mdParser) images(n ast.Node) {
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Image:
			caption := collapse(p.inline(c))
			if caption == "" {
				caption = collapse(string(c.Title))
			}
			p.figure(string(c.Destination), caption)
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(p.src))
			}
			if s := b.String(); strings.Contains(strings.ToLower(s), "<img") {
				p.htmlImages(mustParseHTML(s))
			}
		}
		return ast.WalkContinue, nil
	})
}

// htmlImages emits a figure for each <img> under h; alt (else title) is
// the caption.
func (p *mdParser) htmlImages(h *html.Node) {
	var rec func(n *html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Img {
			var src, alt, title string
			for _, a := range n.Attr {
				switch strings.ToLower(a.Key) {
				case "src":
					src = a.Val
				case "alt":
					alt = a.Val
				case "title":
					title = a.Val
				}
			}
			caption := collapse(alt)
			if caption == "" {
				caption = collapse(title)
			}
			p.figure(src, caption)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(h)
}

// figure emits a figure item for the image src (relative to the file's
// folder); one with neither a usable image nor a caption is dropped.
func (p *mdParser) figure(src, caption string) {
	what := "figure"
	if caption != "" {
		what = fmt.Sprintf("figure %q", shorten(caption, 60))
	}
	ref := p.r.image(src, what)
	if caption == "" && ref == nil {
		return
	}
	it := &graph.Item{Modality: graph.ModalityFigure, Caption: caption, Page: -1, Image: ref}
	p.blocks = append(p.blocks, block{visual: it, page: -1})
}

func (p *mdParser) table(t *east.Table, caption string) {
	var lines []string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, collapse(p.inline(c)))
		}
		if line := joinRow(cells); line != "" {
			lines = append(lines, line)
		}
	}
	it := &graph.Item{Modality: graph.ModalityTable, Text: strings.Join(lines, "\n"), Caption: caption, Page: -1}
	if it.Text == "" && caption == "" {
		return
	}
	p.blocks = append(p.blocks, block{visual: it, page: -1})
	p.images(t)
}

// list renders a list as "- item" lines (or "1. item"), nested lists
// indented by two spaces per level (up to maxListIndent levels).
func (p *mdParser) list(l *ast.List, depth int, b *strings.Builder) {
	num := l.Start
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		b.WriteString(strings.Repeat("  ", min(depth, maxListIndent)))
		if l.IsOrdered() {
			fmt.Fprintf(b, "%d. ", num)
			num++
		} else {
			b.WriteString("- ")
		}
		first := true
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			if sub, ok := c.(*ast.List); ok {
				b.WriteByte('\n')
				p.list(sub, depth+1, b)
				first = true
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			switch c.(type) {
			case *ast.FencedCodeBlock, *ast.CodeBlock:
				b.WriteString(collapse(p.lines(c)))
			default:
				b.WriteString(collapse(p.inline(c)))
			}
			first = false
		}
		if !first {
			b.WriteByte('\n')
		}
	}
}

// inline returns the text of n's inline content; nested images contribute
// nothing (they become figures), soft line breaks become spaces.
func (p *mdParser) inline(n ast.Node) string {
	var b strings.Builder
	var rec func(n ast.Node)
	rec = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Value(p.src))
				if c.HardLineBreak() {
					b.WriteByte('\n')
				} else if c.SoftLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.AutoLink:
				b.Write(c.Label(p.src))
			case *ast.RawHTML, *ast.Image:
				// Raw HTML is markup; images become figures of their own.
			default:
				if c.Type() == ast.TypeBlock {
					b.WriteByte(' ')
				}
				rec(c)
			}
		}
	}
	rec(n) // for an image, its children are the alt text
	return b.String()
}

// lines returns the raw lines of a code or HTML block.
func (p *mdParser) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(p.src))
	}
	return b.String()
}
