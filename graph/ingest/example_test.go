package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"testing/fstest"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
)

// A folder holding a content_list.json is one MinerU document.
func ExamplePath_mineru() {
	docs, err := ingest.Path("testdata/collection/report")
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range docs[0].Items {
		if it.Modality != graph.ModalityText {
			fmt.Println(it.Modality, it.Caption)
		}
	}
	// Output:
	// table Table 3: Mean meltwater flow per station (litres per second).
	// figure Figure 2: Daily flow at Camp North, June to August 2024.
	// figure Figure 3: Battery voltage over the trial.
}

func ExamplePath() {
	docs, err := ingest.Path("testdata/collection")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range docs {
		fmt.Printf("%s: %d items\n", d.ID, len(d.Items))
	}
	// Output:
	// notes/field-notes.md: 5 items
	// report: 8 items
	// summary.txt: 1 items
}

// A Markdown file is one document; its image paths are relative to its
// folder.
func ExamplePath_markdown() {
	docs, err := ingest.Path("testdata/collection/notes/field-notes.md")
	if err != nil {
		log.Fatal(err)
	}
	doc := docs[0]
	fmt.Println(doc.Title, "-", doc.Items[3].Modality, doc.Items[3].Image.Path)
	// Output:
	// Field Notes: Camp Ridge - figure ridge-map.png
}

// Read returns the report with the documents: every file read, and every
// file skipped with its reason. One bad file never sinks the folder.
func ExampleConfig_Read() {
	docs, rep, err := ingest.Config{}.Read(context.Background(), "testdata/mixed")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(docs), "documents")
	for _, f := range rep.Files {
		rel, _ := filepath.Rel("testdata/mixed", f.Path)
		switch {
		case errors.Is(f.Err, ingest.ErrUnsupported):
			fmt.Printf("%s: not read (%v)\n", rel, f.Err)
		case errors.Is(f.Err, ingest.ErrEmpty):
			fmt.Printf("%s: empty\n", rel)
		case len(f.Warnings) > 0:
			fmt.Printf("%s: %s, %d items; %s\n", rel, f.Format, f.Items, f.Warnings[0])
		}
	}
	// Output:
	// 8 documents
	// binary.txt: not read (ingest: unsupported file type: binary content, not text)
	// broken.md: markdown, 1 items; invalid UTF-8: 2 bytes replaced by U+FFFD
	// empty.md: empty
	// guide.md: markdown, 4 items; figure "Nest photo": image "site/missing.png" is missing: kept without it
	// latin1.txt: text, 1 items; not UTF-8: decoded as Windows-1252 (Latin-1)
	// paper/paper_content_list.json: mineru, 2 items; item 2 (image): image "images/storm.jpg" is missing: kept without it
	// paper-v2/paper-v2_content_list_v2.json: mineru-v2, 4 items; item 4 (table): image "images/none.png" is missing: kept without it
	// report.docx: not read (ingest: unsupported file type: .docx)
}

// FS reads any fs.FS: here an in-memory one. Paths are slash paths in it.
func ExampleConfig_FS() {
	fsys := fstest.MapFS{
		"notes/a.md":  {Data: []byte("# Kestrels\n\nThey hover over the ridge.\n")},
		"notes/b.txt": {Data: []byte("Terns nest on the mole.\n")},
		"logo.svg":    {Data: []byte("<svg/>")},
	}
	docs, rep, err := ingest.Config{}.FS(context.Background(), fsys, ".")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range docs {
		fmt.Printf("%s %q: %d items\n", d.ID, d.Title, len(d.Items))
	}
	for _, f := range rep.Files {
		if f.Err != nil {
			fmt.Println(f.Path, "-", f.Err)
		}
	}
	// Output:
	// notes/a.md "Kestrels": 1 items
	// notes/b.txt "b": 1 items
	// logo.svg - ingest: unsupported file type: .svg
}
