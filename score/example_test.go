package score_test

import (
	"context"
	"fmt"
	"log"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/score"
)

// exampleGraph is three nodes in two dimensions: a text chunk about
// accuracy, a figure about accuracy, and a table about cost.
func exampleGraph() *graph.Graph {
	nodes := []graph.Node{
		{ID: "d#0", Content: "The model reaches high accuracy on every dataset.", Summary: "accuracy of the model"},
		{ID: "d#1", Modality: graph.Figure, Caption: "Figure 2: accuracy per epoch", Summary: "Figure 2 — accuracy curve"},
		{ID: "d#2", Modality: graph.Table, Caption: "Table 1: training cost", Summary: "Table 1 — cost in GPU hours"},
	}
	emb := []float32{1, 0, 0.8, 0.6, 0, 1}
	g, err := graph.New(nodes, 2, emb, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	if err != nil {
		log.Fatal(err)
	}
	return g
}

func ExampleScorer_ScoreVector() {
	g := exampleGraph()
	s := &score.Scorer{Config: score.AspectsConfig()}
	sc, err := s.ScoreVector(g, "What does Figure 2 say about accuracy?", []float32{1, 0})
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

func ExampleScorer_Score() {
	g := exampleGraph()
	// Any llm.Embedder; the question is embedded with kind llm.Query.
	emb := llm.EmbedderFunc(func(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
		return [][]float32{{0, 1}}, nil
	})
	s := &score.Scorer{Config: score.AspectsPaperConfig(), Embedder: emb}
	sc, err := s.Score(context.Background(), g, "How much does training cost?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("h = %.2f, mean h = %.2f\n", sc.H, sc.HMean)
	// Output:
	// h = [0.00 0.60 1.00], mean h = 0.53
}

func ExampleClassicConfig() {
	g := exampleGraph()
	c := score.ClassicConfig()
	c.Sources, c.Sinks = 2, 2
	sc, err := (&score.Scorer{Config: c}).ScoreVector(g, "accuracy", []float32{1, 0})
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

func ExampleConfig_KeepEdge() {
	c := score.ClassicConfig()
	fmt.Println(c.KeepEdge(0.22), c.KeepEdge(0.1))
	// Output: true false
}

func ExampleConfig_RelevanceOnly() {
	c := score.ClassicConfig().RelevanceOnly()
	fmt.Println(c.LambdaR, c.LambdaPhi, c.LambdaPsi)
	// Output: 1 0 0
}

func ExampleExtractRefs() {
	fmt.Println(score.ExtractRefs("Compare Tables 2 and 3 with Figs. 4-6, Fig. 2b, Table IV, Section 4.1, slide 7, Eq. (5) and Appendix A."))
	// Output: [{table 2} {table 3} {figure 4} {figure 5} {figure 6} {figure 2b} {table iv} {section 4.1} {slide 7} {equation 5} {appendix a}]
}

func ExampleNodeRefs() {
	n := graph.Node{Modality: graph.Figure, Caption: "Fig. 3. Recall, as in Table 2.", Keywords: []string{"recall", "Figure 3"}}
	fmt.Println(score.NodeRefs(&n))
	// Output: [{figure 3}]
}

func ExampleKeywords() {
	fmt.Println(score.Keywords("Which methods were evaluated on the 2,048 longest documents?"))
	// Output: [method evalu 2048 longest document]
}

func ExampleNewIndex() {
	g := exampleGraph()
	ix := score.NewIndex(g) // once per graph; share it between queries
	s := &score.Scorer{Config: score.AspectsConfig(), Index: ix}
	sc, err := s.ScoreVector(g, "training cost", []float32{0, 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ix.Len(), ix.NodeRefs(2), fmt.Sprintf("%.2f", sc.H))
	// Output: 3 [{table 1}] [0.00 0.30 1.00]
}
