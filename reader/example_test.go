package reader_test

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
)

func exampleGraph() *graph.Graph {
	nodes := []graph.Node{
		{ID: "survey#0", Doc: "survey.md", Page: 0, Modality: graph.ModalityText,
			Content: "The survey leader in 2025 was Dr Ilse Marrow. She replaced Tomas Reyes."},
		{ID: "survey#1", Doc: "survey.md", Page: 0, Modality: graph.ModalityTable, Caption: "Table 1: Nests.",
			Content: "| Breakwater | Nests 2024 | Nests 2025 |\n|---|---|---|\n| North Mole | 212 | 248 |\n| East Arm | 97 | 31 |"},
	}
	g, err := graph.New(nodes, 0, nil, nil)
	if err != nil {
		panic(err)
	}
	return g
}

// The extractive reader answers offline, with a span of the documents.
func ExampleExtractive_Read() {
	in := &reader.Input{
		Question: "How many nests did the East Arm have in 2025?",
		Graph:    exampleGraph(),
		Chains:   []flow.Chain{{Nodes: []int{0}}, {Nodes: []int{1}}},
	}
	ans, err := (&reader.Extractive{}).Read(context.Background(), in)
	if err != nil {
		panic(err)
	}
	c := ans.Citations[0]
	fmt.Println(ans.Text, ans.LowConfidence())
	fmt.Printf("%s, node %s: %q, span %q\n", c.Doc, c.NodeID, c.Quote, c.Quote[c.Span[0]:c.Span[1]])
	fmt.Println(ans.Trace.Reader)
	// Output:
	// 31 false
	// survey.md, node survey#1: "| East Arm | 97 | 31 |", span "31"
	// extractive
}

// A VLM reader with a scripted model: one worker per chain, a question-type
// call and one reasoner call.
func ExampleVLM_Read() {
	m := &fake.Model{Default: `{"status":"not_reported","answer":"","evidence":""}`}
	m.Rules = append(m.Rules, fake.Rule{Contains: "Classify the question", Reply: `{"type":"label","length":"short"}`})
	m.Rules = append(m.Rules, fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<thought>Path 1 names her.</thought><output>Dr Ilse Marrow led the survey in 2025.</output>"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "Ilse Marrow", Reply: `{"status":"supported","answer":"Dr Ilse Marrow","evidence":"The survey leader in 2025 was Dr Ilse Marrow"}`})

	v := &reader.VLM{Model: m} // aspects preset: v3 prompts, no System 2
	ans, err := v.Read(context.Background(), &reader.Input{
		Question: "Who led the survey in 2025?",
		Graph:    exampleGraph(),
		Chains:   []flow.Chain{{Nodes: []int{0}, Flow: 1}, {Nodes: []int{1}, Flow: 1}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(ans.Text)
	fmt.Println(ans.Citations[0].NodeID, ans.Citations[0].Quote)
	fmt.Println(ans.Trace.Calls, "calls:", ans.Trace.CallsByKind["worker"], "workers,", ans.Trace.Supported, "supported")
	// Output:
	// Dr Ilse Marrow led the survey in 2025.
	// survey#0 The survey leader in 2025 was Dr Ilse Marrow
	// 4 calls: 2 workers, 1 supported
}

// The consistency judge of the dual-process gate: two chains that give
// different answers are judged contradictory, so c = 0.
func ExampleVLM_Consistency() {
	m := &fake.Model{Default: "NO"}
	m.Rules = append(m.Rules, fake.Rule{Contains: "CONTRADICT", Reply: "YES"})
	v := &reader.VLM{Model: m}
	j, err := v.Consistency(context.Background(), "How many nests in 2025?", []reader.Draft{
		{Chain: 0, Flow: 1, Status: reader.StatusSupported, Answer: "248"},
		{Chain: 1, Flow: 1, Status: reader.StatusSupported, Answer: "31"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(j.Consistency, j.Pairs, j.Contradictions, j.Calls)
	// Output: 0 1 1 1
}
