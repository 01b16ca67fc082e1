package flowreadertest

import (
	"context"
	"fmt"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
)

// TB is what the helpers need of a test: testify's require.TestingT. A
// *testing.T, *testing.B or testing.TB satisfies it, and so do testify's
// suite T() and *assert.CollectT.
type TB interface {
	Errorf(format string, args ...any)
	FailNow()
}

// helperT is the Helper method of testing.TB: each helper calls it
// directly (it marks its caller), so failures point at the test's line.
type helperT interface{ Helper() }

// contextT is the Context method of testing.TB (since Go 1.24): a context
// cancelled just before the test's cleanups run.
type contextT interface{ Context() context.Context }

// testContext is t's context when it has one, else Background.
func testContext(t TB) context.Context {
	if c, ok := t.(contextT); ok {
		return c.Context()
	}
	return context.Background()
}

// fatalf reports and stops the test.
func fatalf(t TB, format string, args ...any) {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	t.Errorf(format, args...)
	t.FailNow()
}

// Passages makes one document per (id, text) pair of its arguments, in
// order: the document's ID and Title are id, and each paragraph of text
// (paragraphs are separated by a blank line) is one text item, so one node
// of the graph. A trailing id without text gives a document with no items,
// which [Open] rejects with a message saying so.
func Passages(idText ...string) []graph.Document {
	var docs []graph.Document
	for i := 0; i < len(idText); i += 2 {
		d := graph.Document{ID: idText[i], Title: idText[i]}
		if i+1 < len(idText) {
			for _, p := range strings.Split(strings.ReplaceAll(idText[i+1], "\r\n", "\n"), "\n\n") {
				if p = strings.TrimSpace(p); p != "" {
					d.Items = append(d.Items, graph.Item{Modality: graph.ModalityText, Text: p, Page: -1})
				}
			}
		}
		docs = append(docs, d)
	}
	return docs
}

// Folder ingests a fixture folder (or a single file) with ingest.Path: a
// MinerU output folder, Markdown, text or PDF files, in lexical path order.
// It stops the test when the folder cannot be read or yields no document.
func Folder(t TB, dir string) []graph.Document {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	docs, err := ingest.Path(dir)
	if err != nil {
		fatalf(t, "flowreadertest: Folder: %v", err)
		return nil
	}
	if len(docs) == 0 {
		fatalf(t, "flowreadertest: Folder: %s holds no document ingest reads", dir)
	}
	return docs
}

// Open builds a graph from docs with the pipeline cfg configures and opens
// it: the zero Config for the offline default (see the package doc), or a
// scripted model (llm/fake), another router or reader, or a budget. It stops the test when the configuration is invalid,
// a document has no items or the build fails.
func Open(t TB, cfg flowreader.Config, docs []graph.Document) *flowreader.Index {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	ix, err := open(testContext(t), cfg, docs)
	if err != nil {
		fatalf(t, "flowreadertest: %v", err)
		return nil
	}
	return ix
}

func open(ctx context.Context, cfg flowreader.Config, docs []graph.Document) (*flowreader.Index, error) {
	if len(docs) == 0 {
		return nil, fmt.Errorf("no documents")
	}
	for _, d := range docs {
		if len(d.Items) == 0 {
			return nil, fmt.Errorf("document %q has no text (Passages takes id, text pairs)", d.ID)
		}
	}
	p, err := flowreader.New(cfg)
	if err != nil {
		return nil, err
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return p.Open(ctx, g)
}
