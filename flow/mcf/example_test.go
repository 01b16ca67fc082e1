package mcf_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

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
	n := mcf.NewNetwork(0)
	s, t := n.AddNode(), n.AddNode()
	a := n.AddArc(s, t, 3, -1.5) // negative costs are fine on a DAG
	n.SetSupply(s, 2)
	n.SetSupply(t, -2)
	sol, _ := (&mcf.SSP{}).Solve(context.Background(), n)
	fmt.Println(n.NumNodes(), n.NumArcs(), sol.Flow[a], sol.Cost)
	// Output: 2 1 2 -3
}

func ExampleNetwork_Validate() {
	n := mcf.NewNetwork(2)
	n.AddArc(0, 1, -1, 0)
	err := n.Validate()
	fmt.Println(errors.Is(err, mcf.ErrNegativeCapacity))
	n.SetArc(0, 1, 0)
	n.SetSupply(0, 1)
	fmt.Println(errors.Is(n.Validate(), mcf.ErrUnbalanced))
	// Output:
	// true
	// true
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

func ExampleReadDIMACS() {
	in := `c two routes, one with a lower bound
p min 3 3
n 1 3
n 3 -3
a 1 2 0 2 1
a 2 3 0 2 1
a 1 3 1 3 5
`
	p, err := mcf.ReadDIMACS(strings.NewReader(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	sol, _ := (&mcf.SSP{}).Solve(context.Background(), p.Network)
	fmt.Println("cost", p.Cost(sol), "flow", p.Flow(sol))
	// Output: cost 9 flow [2 2 1]
}

func ExampleWriteDIMACS() {
	n := mcf.NewNetwork(2)
	n.AddArc(0, 1, 4, 2.5)
	n.SetSupply(0, 1)
	n.SetSupply(1, -1)
	_ = mcf.WriteDIMACS(os.Stdout, &mcf.Problem{Network: n, Lower: []float64{1}})
	// Output:
	// c flowreader mcf
	// p min 2 1
	// n 1 2
	// n 2 -2
	// a 1 2 1 5 2.5
}

func ExampleAppendNumber() {
	for _, x := range []float64{3, -0.5, 1e20, 2.0 / 3} {
		fmt.Println(string(mcf.AppendNumber(nil, x)))
	}
	// Output:
	// 3
	// -0.5
	// 1e+20
	// 0.6666666666666666
}

func ExampleNegativeCycleError() {
	n := mcf.NewNetwork(3)
	n.AddArc(0, 1, 1, 2)
	n.AddArc(1, 2, 1, -4)
	n.AddArc(2, 1, 1, 1) // 1→2→1 costs -3
	_, err := (&mcf.SSP{}).Solve(context.Background(), n)
	var cycle *mcf.NegativeCycleError
	if errors.As(err, &cycle) {
		fmt.Println(errors.Is(err, mcf.ErrNegativeCycle), cycle.Arcs, cycle.Cost)
	}
	// Output: true [1 2] -3
}
