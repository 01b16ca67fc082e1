package selector_test

import (
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
	for _, c := range (selector.Greedy{}).Select(routing(), 2) {
		fmt.Println(c.Nodes, c.Flow)
	}
	// Output:
	// [1 0] 1
	// [2] 0.8
}

func ExampleAnnealed() {
	for _, c := range (selector.Annealed{}).Select(routing(), 3) {
		fmt.Println(c.Nodes)
	}
	// Output:
	// [1 0]
	// [0]
	// [2]
}

func ExampleReplicator() {
	fmt.Println(len((selector.Replicator{}).Select(routing(), 0)))
	// Output: 4
}

func ExampleCapDistinct() {
	fmt.Println(selector.CapDistinct(routing().Chains, 3))
	// Output: [{[1 0] 1 0 0} {[0] 0.5 0 0} {[2] 0.8 0 0}]
}
