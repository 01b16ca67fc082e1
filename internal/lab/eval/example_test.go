package eval_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/internal/lab/eval"
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
	// dataset,router,selector,budget,questions,evidence_recall,all_gold_rate,doc_recall,distinct_nodes,node_reads,chains,dup_share
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

// ParsePyLiteral reads the Python-literal list columns of VisDoMBench files.
func ExampleParsePyLiteral() {
	v, err := eval.ParsePyLiteral(`['Smallville.pdf', "Club's page.pdf"]`)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", v)
	// Output: ["Smallville.pdf" "Club's page.pdf"]
}

// BuildGraph turns a question's documents into its evaluation graph, and
// Measure scores the chains read over it against the question's gold.
func ExampleMeasure() {
	ds, err := eval.Load(eval.FeTaQA, "testdata", eval.LoadOptions{Distractors: 1, Limit: 1})
	if err != nil {
		panic(err)
	}
	q := &ds.Questions[0]
	g, err := eval.BuildGraph(context.Background(), &fake.Embedder{Dim: 64}, q.Docs, eval.GraphOptions{}, nil)
	if err != nil {
		panic(err)
	}
	// Read node 2 of the question's own table (the perch row) alone.
	m := eval.Measure(q, g, []flow.Chain{{Nodes: []int{2}}})
	fmt.Println(g.Nodes[2].Content)
	fmt.Println(m.EvidenceRecall, m.AllGold, m.Distinct)
	// Output:
	// Species | Count | Year
	// Perch | 340 | 2019
	// 1 true 1
}

// DefaultRegistry names every router of the comparisons; add variants with
// AddRouter and AddScoring.
func ExampleDefaultRegistry() {
	reg := eval.DefaultRegistry()
	var names []string
	for _, d := range reg.Routers() {
		names = append(names, d.Name)
	}
	fmt.Println(strings.Join(names, " "))
	fmt.Println(reg.Selectors())
	// Output:
	// aspects aspects-paper classic topk topk-dense mmr hop-mmr ppr shortest docorder singlesink noagreement nocredit hop hop-topk
	// [greedy annealed]
}

// WriteCSV writes the results table in the format other tools read.
func ExampleWriteCSV() {
	rows := []eval.Row{{Dataset: "qasper", Router: "topk", Selector: "rank", Budget: 16,
		Summary: eval.Summary{Questions: 2, EvidenceQuestions: 2, EvidenceRecall: 0.75, AllGoldRate: 0.5, Distinct: 16, Reads: 16, Chains: 16}}}
	if err := eval.WriteCSV(os.Stdout, rows); err != nil {
		panic(err)
	}
	// Output:
	// dataset,router,selector,budget,questions,evidence_recall,all_gold_rate,doc_recall,distinct_nodes,node_reads,chains,dup_share
	// qasper,topk,rank,16,2,0.7500,0.5000,,16.00,16.00,16.00,0.0000
}
