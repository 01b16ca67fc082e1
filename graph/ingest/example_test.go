package ingest_test

import (
	"fmt"
	"log"

	"github.com/flowreader/flowreader/graph/ingest"
)

func ExampleChunk() {
	text := "First paragraph. It has two sentences.\n\nSecond paragraph."
	for _, c := range ingest.Chunk(text, ingest.Options{Size: 40, Overlap: -1}) {
		fmt.Printf("%q\n", c)
	}
	// Output:
	// "First paragraph. It has two sentences."
	// "Second paragraph."
}

func ExampleTableText() {
	fmt.Println(ingest.TableText(`<table>
<tr><th rowspan="2">Site</th><th colspan="2">Rain (mm)</th></tr>
<tr><th>May</th><th>June</th></tr>
<tr><td>North</td><td>40</td><td>12</td></tr></table>`))
	// Output:
	// Site | Rain (mm) | Rain (mm)
	// Site | May | June
	// North | 40 | 12
}

func ExampleMinerU() {
	doc, err := ingest.MinerU("testdata/collection/report")
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range doc.Items {
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

func ExampleMarkdown() {
	doc, err := ingest.Markdown("testdata/collection/notes/field-notes.md")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Title, "-", doc.Items[3].Modality, doc.Items[3].Image.Path)
	// Output:
	// Field Notes: Camp Ridge - figure ridge-map.png
}
