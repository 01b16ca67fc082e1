package flowreader_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
)

// readmeAPI is the README's "The API" snippet, so that the
// compiler checks it; TestREADMESnippet checks that the README shows this
// body as it is here.
func readmeAPI(ctx context.Context) error {
	docs, report, err := ingest.Config{}.Read(ctx, "my-collection") // MinerU folders, Markdown, MDX, text, PDF
	if err != nil {
		return err
	}
	for _, f := range report.Files { // every file read or skipped, with its reason
		if f.Err != nil {
			log.Printf("skipped %s: %v", f.Path, f.Err)
		}
	}
	p, err := flowreader.New(flowreader.Config{}) // or Classic(), PaperAspects(); set Model, Embedder
	if err != nil {
		return err
	}
	g, err := p.Build(ctx, docs) // content graph: analyse, embed, link
	if err != nil {
		return err
	}
	if err := graph.Save("collection.graph", g); err != nil { // versioned file, atomic write
		return err
	}
	ix, err := p.Open(ctx, g) // per-graph state, built once; p.Load(ctx, path) opens a saved file
	if err != nil {
		return err
	}
	q := "Which storm flooded the East Arm?"
	res, err := ix.Ask(ctx, q, flowreader.Options{}) // Retrieve, then Answer
	if err != nil {
		return err
	}
	fmt.Println(res.Text) // the answer; res.Citations, res.Evidence, res.Stages explain it

	// Ask is these two: retrieve the evidence (per-call budget), look at
	// it, keep what you trust, and the reader reads what is left.
	ev, err := ix.Retrieve(ctx, q, flowreader.Options{Budget: 8})
	if err != nil {
		return err
	}
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			fmt.Println(n.Doc, n.Page, n.Modality, n.Score, n.Text) // page 0-based
		}
	}
	ev.Chains = ev.Chains[:min(len(ev.Chains), 4)] // or log it, send it as JSON, read it with your own model
	res, err = ix.Answer(ctx, ev)
	if err != nil {
		return err
	}

	// Or step by step:
	s, err := ix.Score(ctx, q)
	if err != nil {
		return err
	}
	r, err := ix.Route(ctx, s)
	if err != nil {
		return err
	}
	chains, err := ix.Select(ctx, r)
	if err != nil {
		return err
	}
	res, err = ix.Answer(ctx, ix.Evidence(q, s, r, chains))
	if err != nil {
		return err
	}
	fmt.Println(res.Text)
	return nil
}

// TestREADMESnippet: the README's Go block under "The API"
// is readmeAPI's body, so the README's code compiles and handles errors as
// written.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "\n## The API\n")
	if !ok {
		t.Fatal(`README.md has no "## The API" section`)
	}
	_, code, ok := strings.Cut(sec, "```go\n")
	if !ok {
		t.Fatal("the section has no ```go block")
	}
	code, _, _ = strings.Cut(code, "```")

	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "readme_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "readmeAPI" {
			b := fset.Position(fn.Body.Lbrace).Offset + 2 // after "{\n"
			e := fset.Position(fn.Body.Rbrace).Offset
			body = string(src[b:e])
		}
	}
	var want bytes.Buffer
	for _, l := range strings.SplitAfter(body, "\n") {
		want.WriteString(strings.TrimPrefix(l, "\t"))
	}
	if got := strings.ReplaceAll(code, "    ", "\t"); got != want.String() {
		t.Errorf("README's API snippet differs from readmeAPI's body; paste this into README.md:\n%s", want.String())
	}
}
