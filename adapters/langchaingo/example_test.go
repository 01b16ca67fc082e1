package langchaingo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tmc/langchaingo/llms/fake"

	"github.com/flowreader/flowreader"
	lcadapter "github.com/flowreader/flowreader/adapters/langchaingo"
	"github.com/flowreader/flowreader/llm"
)

// A LangChainGo chain retrieves with flowreader: the index built offline
// (embedded defaults) becomes a schema.Retriever.
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
	r, err := lcadapter.NewRetriever(ix, 2)
	if err != nil {
		log.Fatal(err)
	}
	docs, err := r.GetRelevantDocuments(ctx, "How many nests did the East Arm have in 2025?")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range docs {
		fmt.Println(d.Metadata["id"], d.Metadata["modality"], "chain", d.Metadata["chain"])
	}
	// Output:
	// survey#1 table chain 0
	// survey#2 text chain 1
}

// A LangChainGo model as a flowreader model.
func ExampleNewModel() {
	m, err := lcadapter.NewModel(fake.NewFakeLLM([]string{"31 nests"}), "fake/llm", lcadapter.ModelOptions{})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "How many nests on the East Arm in 2025?"}}}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Name()+":", resp.Text)
	// Output:
	// fake/llm: 31 nests
}
