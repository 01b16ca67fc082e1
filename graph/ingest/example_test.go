package ingest_test

import (
	"fmt"
	"log"

	"github.com/flowreader/flowreader/graph/ingest"
)

// A folder holding a content_list.json is one MinerU document.
func ExamplePath_mineru() {
	docs, err := ingest.Path("testdata/collection/report")
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range docs[0].Items {
		if it.Modality.Visual() {
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
