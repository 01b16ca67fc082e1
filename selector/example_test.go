package selector_test

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/score"
	"github.com/flowreader/flowreader/selector"
)

func routing() *flow.Routing {
	return &flow.Routing{
		Scores: &score.Scores{H: []float64{1, 0.8, 0.6, 0.4}},
		Chains: []flow.Chain{
			{Nodes: []int{1, 0}, Flow: 1},
			{Nodes: []int{0}, Flow: 0.5},
			{Nodes: []int{2}, Flow: 0.8},
			{Nodes: []int{3}, Flow: 0.2},
		},
	}
}

func ExampleGreedy() {
	chains, _ := selector.Greedy().Select(context.Background(), routing(), 2)
	for _, c := range chains {
		fmt.Println(c.Nodes, c.Flow)
	}
	// Output:
	// [1 0] 1
	// [2] 0.8
}

func ExampleAnnealed() {
	chains, _ := selector.Annealed().Select(context.Background(), routing(), 3)
	for _, c := range chains {
		fmt.Println(c.Nodes)
	}
	// Output:
	// [1 0]
	// [0]
	// [2]
}

func ExampleReplicator() {
	chains, _ := selector.Replicator().Select(context.Background(), routing(), 0)
	fmt.Println(len(chains))
	// Output: 4
}
