package flowreader_test

import (
	"context"
	"fmt"
	"log"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// Update a built graph when the collection grows: only the new document is
// analysed and embedded.
func ExamplePipeline_Update() {
	ctx := context.Background()
	p, _ := flowreader.New(flowreader.Config{})
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	more := append(docs(), graph.Document{ID: "log", Items: []graph.Item{
		{Modality: graph.ModalityText, Page: 0, Text: "The North Mole was repaired in August."},
	}})
	ng, diff, err := p.Update(ctx, g, more)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("added", diff.Added, "-", len(g.Nodes), "nodes before,", len(ng.Nodes), "after")
	// Output:
	// added [log] - 5 nodes before, 6 after
}
