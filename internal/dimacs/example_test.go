package dimacs_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/internal/dimacs"
)

func ExampleRead() {
	in := `c two routes, one with a lower bound
p min 3 3
n 1 3
n 3 -3
a 1 2 0 2 1
a 2 3 0 2 1
a 1 3 1 3 5
`
	p, err := dimacs.Read(strings.NewReader(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	sol, _ := (&mcf.SSP{}).Solve(context.Background(), p.Network)
	_ = dimacs.WriteSolution(os.Stdout, p, sol)
	// Output:
	// s 9
	// f 1 2 2
	// f 2 3 2
	// f 1 3 1
}

func ExampleWrite() {
	n := mcf.NewNetwork(2)
	n.AddArc(0, 1, 4, 2.5)
	n.SetSupply(0, 1)
	n.SetSupply(1, -1)
	_ = dimacs.Write(os.Stdout, &dimacs.Problem{Network: n, Lower: []float64{1}})
	// Output:
	// c flowreader mcf
	// p min 2 1
	// n 1 2
	// n 2 -2
	// a 1 2 1 5 2.5
}
