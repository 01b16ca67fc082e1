package score_test

import (
	"errors"
	"fmt"
	"log"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/score"
)

// Build one Index per graph and share it: it holds the query-independent
// work (BM25 postings, references) and is safe for concurrent use, so a
// server scores every question on that graph with it.
func ExampleNewIndex() {
	g := exampleGraph()
	ix := score.NewIndex(g)
	questions := []score.Query{
		{Text: "How accurate is the model?", Embedding: []float32{1, 0}},
		{Text: "What did training cost?", Embedding: []float32{0, 1}},
	}
	best := make([]string, len(questions))
	var eg errgroup.Group
	for i, q := range questions {
		eg.Go(func() error {
			sc, err := ix.Score(score.Config{}, q)
			if err != nil {
				return err
			}
			top := 0
			for v, h := range sc.H {
				if h > sc.H[top] {
					top = v
				}
			}
			best[i] = g.Nodes[top].ID
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(best)
	// Output: [d#0 d#2]
}

// Prepare builds at start-up what the first question under a configuration
// would otherwise build (the classic score's pruned adjacency, the hop
// step's title index), so that no user waits for it. It changes no score.
func ExampleIndex_Prepare() {
	c := flowreader.Classic().Scoring
	prepared := score.NewIndex(exampleGraph())
	prepared.Prepare(c) // at start-up, before serving
	lazy := score.NewIndex(exampleGraph())

	q := score.Query{Text: "accuracy", Embedding: []float32{1, 0}}
	a, err := prepared.Score(c, q)
	if err != nil {
		log.Fatal(err)
	}
	b, err := lazy.Score(c, q)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.2f\n%.2f\n", a.H, b.H)
	// Output:
	// [0.89 0.87 0.19]
	// [0.89 0.87 0.19]
}

// Validate checks a configuration built from user input (a flag, a request)
// before any question is scored; the error names the first bad field and
// wraps ErrConfig.
func ExampleConfig_Validate() {
	c := flowreader.Classic().Scoring
	c.RelevanceWeight = 0.9 // λ_r + λ_φ + λ_ψ now exceeds 1
	err := c.Validate()
	fmt.Println(errors.Is(err, score.ErrConfig))
	fmt.Println(err)
	fmt.Println(score.Config{}.Validate())
	// Output:
	// true
	// score: invalid config: RelevanceWeight + PropagationWeight + DiffusionWeight = 1.4, want ≤ 1
	// <nil>
}
