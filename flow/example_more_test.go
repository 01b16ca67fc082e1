package flow_test

import (
	"context"
	"fmt"
	"log"

	"github.com/flowreader/flowreader"
)

// A Routing prints as a summary for debugging a question: demand and flow,
// the aspects, and every chain with its nodes, flow and cost, then the wall
// time of each stage.
func ExampleRouting_String() {
	g, s := tiny()
	ctx := context.Background()
	gr, err := flowreader.PaperAspects().Router.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	r, err := gr.Route(ctx, s, 16)
	if err != nil {
		log.Fatal(err)
	}
	r.Stages = nil // wall times vary from run to run: zero here
	fmt.Print(r)
	// Output:
	// router aspects-paper: demand 2.689 routed 2.689 max-flow 2.689 saturation 1.000 cost 0.9009
	// chains 5 over 3 distinct nodes; network 8 nodes, 17 arcs (3 content)
	// relevant set 3, kappa 2.1086, 2 aspects:
	//   aspect 0: sigma 1.4065 capacity 2.313 flow 2.313 fed by 3 nodes
	//   aspect 1: sigma 0.5671 capacity 0.376 flow 0.376 fed by 1 nodes
	//   chain 0: nodes [1] flow 1.000 cost 0.1494 aspect 0
	//   chain 1: nodes [2 1 0] flow 0.687 cost 0.0766 aspect 0
	//   chain 2: nodes [0] flow 0.376 cost 1.2362 aspect 1
	//   chain 3: nodes [0] flow 0.313 cost 0.1889 aspect 0
	//   chain 4: nodes [2] flow 0.313 cost 0.5589 aspect 0
	// timings: network 0s svd 0s solve 0s decompose 0s
}
