package mcf_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/flowreader/flowreader/flow/mcf"
)

// diamond builds s=0 → {1,2} → t=3 with a cheap narrow and a dear wide route.
func diamond() *mcf.Network {
	n := mcf.NewNetwork(4)
	n.AddArc(0, 1, 2, 1) // arc 0
	n.AddArc(0, 2, 5, 3) // arc 1
	n.AddArc(1, 3, 2, 1) // arc 2
	n.AddArc(2, 3, 5, 1) // arc 3
	n.AddArc(1, 2, 1, 0) // arc 4
	n.SetSupply(0, 4)
	n.SetSupply(3, -4)
	return n
}

func ExampleSSP() {
	sol, err := (&mcf.SSP{}).Solve(context.Background(), diamond())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("flow:", sol.Flow, "cost:", sol.Cost, "partial:", sol.Partial)
	// Output: flow: [2 2 2 2 0] cost: 12 partial: false
}

func ExampleSSP_partial() {
	n := diamond()
	n.SetSupply(0, 10) // more than the cut of capacity 7 can carry
	n.SetSupply(3, -10)
	sol, err := (&mcf.SSP{}).Solve(context.Background(), n)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("routed", sol.Routed, "of", sol.Demand, "partial:", sol.Partial, "cost:", sol.Cost)
	// Output: routed 7 of 10 partial: true cost: 24
}

func ExampleNetwork() {
	n := mcf.NewNetwork(2)
	s, t := 0, 1
	a := n.AddArc(s, t, 3, -1.5) // negative costs are fine on a DAG
	n.SetSupply(s, 2)
	n.SetSupply(t, -2)
	sol, _ := (&mcf.SSP{}).Solve(context.Background(), n)
	fmt.Println(n.NumNodes(), n.NumArcs(), sol.Flow[a], sol.Cost)
	// Output: 2 1 2 -3
}

func ExampleErrInvalid() {
	n := mcf.NewNetwork(2)
	n.AddArc(0, 1, -1, 0)
	_, err := (&mcf.SSP{}).Solve(context.Background(), n)
	fmt.Println(errors.Is(err, mcf.ErrInvalid), err)
	// Output: true mcf: arc 0 capacity -1 is negative: mcf: invalid input
}

func ExampleMaxFlow() {
	value, side, err := mcf.MaxFlow(diamond(), 0, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(value, side)
	// Output: 7 [true false false false]
}

func ExampleDecompose() {
	n := diamond()
	sol, _ := (&mcf.SSP{}).Solve(context.Background(), n)
	paths, err := mcf.Decompose(n, sol.Flow, 0, 3, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range paths {
		fmt.Println(p.Nodes, p.Arcs, p.Amount, p.Cycle)
	}
	// Output:
	// [0 1 3] [0 2] 2 false
	// [0 2 3] [1 3] 2 false
}

func ExampleNegativeCycleError() {
	n := mcf.NewNetwork(3)
	n.AddArc(0, 1, 1, 2)
	n.AddArc(1, 2, 1, -4)
	n.AddArc(2, 1, 1, 1) // 1→2→1 costs -3
	_, err := (&mcf.SSP{}).Solve(context.Background(), n)
	var cycle *mcf.NegativeCycleError
	if errors.As(err, &cycle) {
		fmt.Println(cycle.Arcs, cycle.Cost)
	}
	// Output: [1 2] -3
}
