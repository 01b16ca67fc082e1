package flowreader_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// docs is a tiny collection: a table of results and a paragraph that explains
// one of its rows, split across two documents.
func docs() []graph.Document {
	return []graph.Document{
		{ID: "survey", Title: "Harbour survey", Items: []graph.Item{
			{Modality: graph.ModalityText, Page: 0, Text: "The harbour survey counts seabird nests on three breakwaters every June."},
			{Modality: graph.ModalityTable, Page: 0, Caption: "Table 1: Nests per breakwater.",
				Text: "Breakwater | Nests 2024 | Nests 2025\nNorth Mole | 212 | 248\nEast Arm | 97 | 31\nLighthouse Spit | 58 | 66"},
			{Modality: graph.ModalityText, Page: 0, Text: "The East Arm lost its tern colony after the May storm flooded its lower sections."},
		}},
		{ID: "station", Title: "Weather station report", Items: []graph.Item{
			{Modality: graph.ModalityText, Page: 0, Text: "Storm Elda arrived on 14 May with gusts of 131 km/h and a surge of 2.1 metres."},
			{Modality: graph.ModalityText, Page: 1, Text: "Rainfall was highest in November and lowest in July."},
		}},
	}
}

func Example() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{}) // no endpoints: embedded defaults
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g) // per-graph work, once
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("reader:", res.Trace.Reader)
	fmt.Println("cites the table:", cites(res, "survey#1"))
	// Output:
	// reader: extractive
	// cites the table: true
}

func cites(res *flowreader.Result, id string) bool {
	for _, c := range res.Citations {
		if c.NodeID == id {
			return true
		}
	}
	return false
}

func ExamplePipeline_Build() {
	p, _ := flowreader.New(flowreader.Config{})
	g, err := p.Build(context.Background(), docs())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Len(), "nodes,", g.Dim, "dimensions")
	fmt.Println(g.Nodes[1].ID, g.Nodes[1].Modality)
	// Output:
	// 5 nodes, 100 dimensions
	// survey#1 table
}

// open builds the example collection and opens it.
func open(cfg flowreader.Config) *flowreader.Index {
	ctx := context.Background()
	p, err := flowreader.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	return ix
}

func ExampleIndex_Score() {
	ix := open(flowreader.Config{})
	s, err := ix.Score(context.Background(), "Which storm had gusts of 131 km/h?")
	if err != nil {
		log.Fatal(err)
	}
	best := 0
	for v := range s.H {
		if s.H[v] > s.H[best] {
			best = v
		}
	}
	fmt.Println("top node:", ix.Graph().Nodes[best].ID, "h =", s.H[best])
	// Output:
	// top node: station#0 h = 1
}

func ExampleIndex_Route() {
	ctx := context.Background()
	ix := open(flowreader.Config{})
	s, _ := ix.Score(ctx, "Why did the East Arm lose nests?")
	r, err := ix.Route(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("router:", r.Router)
	fmt.Println("all demand routed:", r.Routed >= r.Demand-1e-9, "chains:", len(r.Chains) > 0)
	// Output:
	// router: aspects
	// all demand routed: true chains: true
}

func ExampleIndex_Select() {
	ctx := context.Background()
	ix := open(flowreader.Classic())
	s, _ := ix.Score(ctx, "Why did the East Arm lose nests?")
	r, _ := ix.Route(ctx, s)
	chains, err := ix.Select(ctx, r)
	if err != nil {
		panic(err)
	}
	fmt.Println("at most 11 paths read:", len(chains) <= 11 && len(chains) > 0)
	// Output:
	// at most 11 paths read: true
}

func ExampleIndex_Answer() {
	ctx := context.Background()
	ix := open(flowreader.Config{})
	q := "What was the surge of Storm Elda?"
	s, _ := ix.Score(ctx, q)
	r, _ := ix.Route(ctx, s)
	chains, _ := ix.Select(ctx, r)
	res, err := ix.Answer(ctx, ix.Evidence(q, s, r, chains))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// Storm Elda arrived on 14 May with gusts of 131 km/h and a surge of 2.1 metres.
}

func ExamplePipeline_Load() {
	ctx := context.Background()
	p, _ := flowreader.New(flowreader.Config{})
	g, _ := p.Build(ctx, docs())
	dir, err := os.MkdirTemp("", "flowreader-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "survey.graph")
	if err := graph.Save(path, g); err != nil {
		log.Fatal(err)
	}
	ix, err := p.Load(ctx, path)
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "How many nests did the North Mole have in 2025?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ix.Graph().Len(), "nodes;", "cites the table:", cites(res, "survey#1"))
	// Output:
	// 5 nodes; cites the table: true
}

// Retrieval on its own: the evidence for a question with a per-call budget,
// for a caller that answers with its own model.
func ExampleIndex_Retrieve() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	ev, err := ix.Retrieve(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{Budget: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("budget:", ev.Budget, "router:", ev.Routing.Router)
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			fmt.Printf("%s %s p.%d score %.2f: %s\n", n.ID, n.Modality, n.Page+1, n.Score, strings.SplitN(n.Text, "\n", 2)[0])
		}
	}
	// Output:
	// budget: 2 router: aspects
	// survey#1 table p.1 score 1.00: Breakwater | Nests 2024 | Nests 2025
	// survey#2 text p.1 score 0.89: The East Arm lost its tern colony after the May storm flooded its lower sections.
}
