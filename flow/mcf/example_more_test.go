package mcf_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/flowreader/flowreader/flow/mcf"
)

// A transportation problem: two depots supply 3 and 2 units, two shops
// demand 4 and 1. Supplies (b > 0) and demands (b < 0) sit on the nodes
// themselves; no super-source is needed. Arc reads an arc back by the id
// AddArc returned.
func ExampleNewNetwork() {
	const depotA, depotB, shop1, shop2 = 0, 1, 2, 3
	name := []string{"depot A", "depot B", "shop 1", "shop 2"}
	n := mcf.NewNetwork(4)
	n.Grow(4) // the arc count is known: reserve room once
	n.AddArc(depotA, shop1, 10, 1)
	n.AddArc(depotA, shop2, 10, 4)
	n.AddArc(depotB, shop1, 10, 3)
	n.AddArc(depotB, shop2, 10, 1)
	n.SetSupply(depotA, 3)
	n.SetSupply(depotB, 2)
	n.SetSupply(shop1, -4)
	n.SetSupply(shop2, -1)

	sol, err := (&mcf.SSP{}).Solve(context.Background(), n)
	if err != nil {
		log.Fatal(err)
	}
	for a, f := range sol.Flow {
		if f > 0 {
			from, to, _, cost := n.Arc(a)
			fmt.Printf("%s → %s: %g at %g each\n", name[from], name[to], f, cost)
		}
	}
	fmt.Println("total cost", sol.Cost)
	// Output:
	// depot A → shop 1: 3 at 1 each
	// depot B → shop 1: 1 at 3 each
	// depot B → shop 2: 1 at 1 each
	// total cost 7
}

// Solve checks its context between phases, so a server's deadline bounds
// the work of one call; a cancelled solve returns the context's error and no
// solution. Code that takes any solver holds an mcf.Solver.
func ExampleSSP_Solve() {
	var solver mcf.Solver = &mcf.SSP{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the caller went away
	sol, err := solver.Solve(ctx, diamond())
	fmt.Println(sol, errors.Is(err, context.Canceled))
	// Output: <nil> true
}
