package score_test

import (
	"fmt"
	"github.com/flowreader/flowreader"
	"log"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// exampleGraph is three nodes in two dimensions: a text chunk about
// accuracy, a figure about accuracy, and a table about cost.
func exampleGraph() *graph.Graph {
	nodes := []graph.Node{
		{ID: "d#0", Content: "The model reaches high accuracy on every dataset.", Summary: "accuracy of the model"},
		{ID: "d#1", Modality: graph.ModalityFigure, Caption: "Figure 2: accuracy per epoch", Summary: "Figure 2 — accuracy curve"},
		{ID: "d#2", Modality: graph.ModalityTable, Caption: "Table 1: training cost", Summary: "Table 1 — cost in GPU hours"},
	}
	emb := []float32{1, 0, 0.8, 0.6, 0, 1}
	g, err := graph.New(nodes, 2, emb, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	if err != nil {
		log.Fatal(err)
	}
	return g
}

func ExampleIndex_Score() {
	g := exampleGraph()
	ix := score.NewIndex(g) // once per graph; share it between queries
	// The question's embedding comes from the embedder the graph was built
	// with (here a made-up one).
	q := score.Query{Text: "What does Figure 2 say about accuracy?", Embedding: []float32{1, 0}}
	sc, err := ix.Score(score.Config{}, q)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("refs:", sc.Refs)
	fmt.Println("keywords:", sc.Keywords)
	for i := range sc.H {
		fmt.Printf("%s cos %.2f bm25 %.2f ref %.0f r %.2f h %.2f\n", g.Nodes[i].ID, sc.Cos[i], sc.BM25[i], sc.Ref[i], sc.R[i], sc.H[i])
	}
	// Output:
	// refs: [{figure 2}]
	// keywords: [figur 2 say accuraci]
	// d#0 cos 1.00 bm25 0.10 ref 0 r 0.55 h 0.55
	// d#1 cos 0.80 bm25 1.00 ref 1 r 1.00 h 1.00
	// d#2 cos 0.00 bm25 0.00 ref 0 r 0.00 h 0.00
}

func ExampleIndex_Score_paperAspects() {
	ix := score.NewIndex(exampleGraph())
	sc, err := ix.Score(flowreader.PaperAspects().Scoring, score.Query{Text: "How much does training cost?", Embedding: []float32{0, 1}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("h = %.2f, mean h = %.2f\n", sc.H, sc.HMean)
	// Output:
	// h = [0.00 0.60 1.00], mean h = 0.53
}

func ExampleIndex_Score_classic() {
	ix := score.NewIndex(exampleGraph())
	c := flowreader.Classic().Scoring
	c.Sources, c.Sinks = 2, 2
	sc, err := ix.Score(c, score.Query{Text: "accuracy", Embedding: []float32{1, 0}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("r %.2f\nφ %.2f\nψ %.2f\nh %.2f\na %.2f\n", sc.R, sc.Phi, sc.Psi, sc.H, sc.A)
	fmt.Println("sources", sc.Sources, "sinks", sc.Sinks)
	// Output:
	// r [1.00 0.88 0.00]
	// φ [0.88 0.75 0.38]
	// ψ [0.65 1.00 0.36]
	// h [0.89 0.87 0.19]
	// a [0.78 0.86 0.00]
	// sources [0 1] sinks [1 0]
}

func ExampleIndex_Score_keywords() {
	ix := score.NewIndex(exampleGraph())
	// BM25 over keywords the caller chose (say, a language model's) instead
	// of the question's own words.
	q := score.Query{Text: "How expensive was it?", Embedding: []float32{0, 1}, Keywords: []string{"training", "cost"}}
	sc, err := ix.Score(score.Config{}, q)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sc.Keywords, fmt.Sprintf("%.2f", sc.H))
	// Output: [train cost] [0.00 0.30 1.00]
}
