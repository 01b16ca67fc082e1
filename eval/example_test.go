package eval_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/flowreader/flowreader/eval"
	"github.com/flowreader/flowreader/llm/fake"
)

// Load reads a dataset from a file or from a folder in the layout of
// ../shared/data.
func ExampleLoad() {
	ds, err := eval.Load(eval.QASPER, "testdata", eval.LoadOptions{})
	if err != nil {
		panic(err)
	}
	q := ds.Questions[0]
	fmt.Println(q.Text, len(q.Docs[0].Items), "items,", len(q.Gold), "annotators")
	// Output: How much audio was recorded? 8 items, 2 annotators
}

// A Runner compares routers from a Registry on the same graphs and scores;
// Rows and Compare turn the results into the report.
func ExampleRunner() {
	reg := eval.DefaultRegistry()
	specs, err := reg.Specs([]string{"aspects", "topk"}, []string{"greedy"})
	if err != nil {
		panic(err)
	}
	ds, err := eval.Load(eval.FeTaQA, "testdata", eval.LoadOptions{Distractors: 2})
	if err != nil {
		panic(err)
	}
	run := &eval.Runner{Embedder: &fake.Embedder{Dim: 64}, Scorings: reg.Scorings(), Routers: specs, Budgets: []int{4}}
	res, err := run.Run(context.Background(), ds)
	if err != nil {
		panic(err)
	}
	if err := eval.WriteCSV(os.Stdout, res.Rows()[:0]); err != nil {
		panic(err)
	}
	for _, r := range res.Rows() {
		fmt.Printf("%s %s: %d questions, at most %d nodes: %v\n", r.Dataset, r.Router, r.Questions, r.Budget, r.Distinct <= 4)
	}
	// Output:
	// dataset,router,selector,budget,questions,evidence_recall,all_gold_rate,doc_recall,distinct_nodes,node_reads,chains
	// fetaqa aspects: 4 questions, at most 4 nodes: true
	// fetaqa topk: 4 questions, at most 4 nodes: true
}

// PairedBootstrap gives the mean recall difference and its 95% interval.
func ExamplePairedBootstrap() {
	router := []float64{1, 1, 0.5, 1}
	baseline := []float64{1, 0.5, 0.5, 0}
	iv := eval.PairedBootstrap(router, baseline, 1000, 0.95, 1)
	fmt.Printf("mean %+.3f, interval holds it: %v\n", iv.Mean, iv.Low <= iv.Mean && iv.Mean <= iv.High)
	// Output: mean +0.375, interval holds it: true
}

// McNemar compares all-gold coverage on the same questions.
func ExampleMcNemar() {
	router := []bool{true, true, true, false}
	baseline := []bool{false, false, true, false}
	onlyRouter, onlyBaseline, p := eval.McNemar(router, baseline)
	fmt.Println(onlyRouter, onlyBaseline, p)
	// Output: 2 0 0.5
}

// JudgePrompt fills paper v3's judge prompt P7.
func ExampleJudgePrompt() {
	p := eval.JudgePrompt("Who won?", "Kest", "Kest won.")
	fmt.Println(strings.Contains(p, "**Question**: Who won? **Expected Answer**: Kest **Generated Answer**: Kest won."))
	// Output: true
}
