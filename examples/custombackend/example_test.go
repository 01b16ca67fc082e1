package custombackend_test

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/examples/custombackend"
	"github.com/flowreader/flowreader/llm"
)

func cos(a, b []float32) float64 { return dot(a, b) / (norm(a) * norm(b)) }

func norm(v []float32) float64 { return math.Sqrt(dot(v, v)) }

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// An EchoCorp embedder is an llm.Embedder: queries and passages go to the
// vendor with their purpose, and come back as float32 vectors.
func ExampleEmbedder() {
	e := &custombackend.Embedder{Client: &custombackend.Client{}}
	ctx := context.Background()
	q, _ := e.Embed(ctx, []string{"rated output of the Zephyr turbines"}, llm.KindQuery)
	docs, _ := e.Embed(ctx, []string{
		"Zephyr Z9 | 4.2 MW rated output",
		"The village bakery won the bread prize.",
	}, llm.KindDocument)
	fmt.Println(e.Name(), len(q[0]))
	fmt.Println("turbine passage closer:", cos(q[0], docs[0]) > cos(q[0], docs[1]))
	// Output:
	// echocorp-embed-96 96
	// turbine passage closer: true
}

// Wrapped by llm.Wrap with retries, the EchoCorp model waits out the vendor's "busy"
// answers, which the adapter maps to HTTP 429 with Retry-After.
func ExampleModel() {
	client := &custombackend.Client{Busy: 2, BusyWait: time.Millisecond}
	m := llm.Wrap(&custombackend.Model{Client: client}, llm.Middleware{Attempts: 4})
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "Say hello.\nhello"}}}}})
	fmt.Println(resp.Text, err, client.Calls())
	// Output: hello <nil> 3
}

// The whole pipeline over the custom embedder, offline: no model means the
// extractive reader, and the notes say so.
func Example() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{Embedder: &custombackend.Embedder{Client: &custombackend.Client{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := p.Build(ctx, corpus())
	if err != nil {
		fmt.Println(err)
		return
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := ix.Ask(ctx, "What is the rated output of the turbines at the Harlow wind farm?", flowreader.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("graph:", len(g.Nodes), "nodes, embedder", g.Embedder)
	fmt.Println("answer:", res.Text)
	for _, c := range res.Citations {
		fmt.Printf("cited %s: %s\n", c.NodeID, c.Quote)
	}
	fmt.Printf("reader: %s, %d note(s) about embedded defaults\n", res.Trace.Reader, len(res.Notes))
	// Output:
	// graph: 9 nodes, embedder echocorp-embed-96
	// answer: Zephyr Z9 — Rated output: 4.2 MW … The Harlow wind farm, opened in 2021, runs twelve Zephyr Z9 turbines on the ridge above the village.
	// cited windfarms.md#3: Zephyr Z9 | 4.2 MW | 120 m
	// cited windfarms.md#1: The Harlow wind farm, opened in 2021, runs twelve Zephyr Z9 turbines on the ridge above the village.
	// reader: extractive, 1 note(s) about embedded defaults
}
