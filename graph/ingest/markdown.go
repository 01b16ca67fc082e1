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

	"github.com/flowreader/flowreader/graph"
)

// tableCaption matches a paragraph that is a table's caption ("Table 3:",
// "Table 2. ...") rather than prose that mentions a table.
var tableCaption = regexp.MustCompile(`^(?i:table)\s+[A-Za-z]?[0-9][0-9.\-]*\s*[:.—–-]`)

// markdown reads the Markdown file path of box (CommonMark with GFM
// tables): headings set the section, paragraphs, lists, code and quotes are
// text, tables become table items (a neighbouring "Table N:" paragraph is
// their caption) and images become figure items whose caption is the alt
// text. Image paths are relative to the file's folder. The document's ID is
// the file's base name.
func (c Config) markdown(box folder, path string) (graph.Document, error) {
	src, err := box.read(path)
	if err != nil {
		return graph.Document{}, err
	}
	doc, err := c.parseMarkdown(src, filepath.Dir(path))
	if err != nil {
		return graph.Document{}, fmt.Errorf("%s: %w", path, err)
	}
	doc.ID = filepath.Base(path)
	if doc.Title == "" {
		doc.Title = strings.TrimSuffix(doc.ID, filepath.Ext(doc.ID))
	}
	return doc, nil
}

type mdParser struct {
	src    []byte
	root   string
	blocks []block
	title  string
	err    error
}

func (c Config) parseMarkdown(src []byte, root string) (graph.Document, error) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	tree := md.Parser().Parse(text.NewReader(src))
	p := &mdParser{src: src, root: root}
	p.container(tree)
	if p.err != nil {
		return graph.Document{}, p.err
	}
	return graph.Document{Title: p.title, Root: root, Items: c.assemble(p.blocks)}, nil
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
		if k.Kind() != east.KindTable {
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
		p.text(collapse(nodeText(mustParseHTML(p.lines(n)))))
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

// images emits a figure for each image under n, in document order.
func (p *mdParser) images(n ast.Node) {
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		img, ok := c.(*ast.Image)
		if !ok || !entering || p.err != nil {
			return ast.WalkContinue, nil
		}
		ref, err := resolveImage(p.root, string(img.Destination))
		if err != nil {
			p.err = err
			return ast.WalkStop, nil
		}
		caption := collapse(p.inline(img))
		if caption == "" {
			caption = collapse(string(img.Title))
		}
		if caption == "" && ref == nil {
			return ast.WalkSkipChildren, nil
		}
		it := &graph.Item{Modality: graph.ModalityFigure, Caption: caption, Page: -1, Image: ref}
		p.blocks = append(p.blocks, block{visual: it, page: -1})
		return ast.WalkSkipChildren, nil
	})
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
// indented by two spaces per level.
func (p *mdParser) list(l *ast.List, depth int, b *strings.Builder) {
	num := l.Start
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		b.WriteString(strings.Repeat("  ", depth))
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
