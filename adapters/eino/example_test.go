package eino_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/flowreader/flowreader"
	einoadapter "github.com/flowreader/flowreader/adapters/eino"
)

// An Eino chain retrieves with flowreader: the index built offline
// (embedded defaults) becomes a retriever.Retriever.
func ExampleNewRetriever() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, collection())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	var r retriever.Retriever
	if r, err = einoadapter.NewRetriever(ix, 0); err != nil {
		log.Fatal(err)
	}
	docs, err := r.Retrieve(ctx, "How many nests did the East Arm have in 2025?", retriever.WithTopK(2))
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range docs {
		fmt.Println(d.ID, d.MetaData["modality"], "chain", d.MetaData["chain"])
	}
	// Output:
	// survey#1 table chain 0
	// survey#2 text chain 1
}
