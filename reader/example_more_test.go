package reader_test

import (
	"context"
	"fmt"
	"log"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
)

// An extractive answer below ConfidenceThreshold is a hint, not an answer:
// show it as such, with the passage it came from. The documents say how the
// East Arm's nests changed, not why.
func ExampleAnswer_LowConfidence() {
	ex := &reader.Extractive{}
	for _, q := range []string{
		"How many nests did the East Arm have in 2025?",
		"Why did the nests on the East Arm fall?",
	} {
		ans, err := ex.Read(context.Background(), &reader.Input{
			Question: q,
			Graph:    exampleGraph(),
			Chains:   []flow.Chain{{Nodes: []int{0}}, {Nodes: []int{1}}},
		})
		if err != nil {
			log.Fatal(err)
		}
		if ans.LowConfidence() {
			c := ans.Citations[0]
			fmt.Printf("not sure (%.2f); the best passage, %s: %q\n", ans.Confidence, c.NodeID, c.Quote)
			continue
		}
		fmt.Printf("%s (%.2f)\n", ans.Text, ans.Confidence)
	}
	// Output:
	// 31 (1.00)
	// not sure (0.18); the best passage, survey#1: "| East Arm | 97 | 31 |"
}

// ScorePairs asks the model to score node pairs for a question, one call per
// pair in parallel: with bridge set, whether a reasoning connection joins
// them (paper v1 App. B.5: the SCORE when EXISTS is YES, 0 when NO); without,
// how useful reading A then B is (B.6). A reply it cannot read scores NaN.
// System 2 uses it to add the edges a hard question needs.
func ExampleVLM_ScorePairs() {
	g, err := graph.New([]graph.Node{
		{ID: "survey#0", Doc: "survey.md", Content: "The survey leader in 2025 was Dr Ilse Marrow."},
		{ID: "bio#0", Doc: "bio.md", Content: "Ilse Marrow trained as a marine biologist in Bergen."},
		{ID: "tides#0", Doc: "tides.md", Content: "The spring tide reached 4.2 m at the harbour gauge."},
		{ID: "log#0", Doc: "log.md", Content: "Log entry 14."},
	}, 0, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	m := &fake.Model{Default: "EXISTS: NO\nSCORE: 0.0"}
	m.Rules = append(m.Rules,
		fake.Rule{Contains: "marine biologist", Reply: "EXISTS: YES\nSCORE: 0.9"},
		fake.Rule{Contains: "Log entry", Reply: "I cannot tell."},
	)
	v := &reader.VLM{Model: m}
	j, err := v.ScorePairs(context.Background(), "Where did the 2025 survey leader train?", g,
		[][2]int{{0, 1}, {0, 2}, {0, 3}}, true)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(j.Scores, j.Calls, "calls")
	// Output: [0.9 0 NaN] 3 calls
}
