package flow_test

import (
	"context"
	"fmt"
	"github.com/flowreader/flowreader"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// tiny is a four-node graph: two paragraphs, a table and a figure, with
// their scores for one query (h = r here).
func tiny() (*graph.Graph, *score.Scores) {
	nodes := []graph.Node{
		{Doc: "d", Order: 0, Keywords: []string{"bleu"}},
		{Doc: "d", Order: 1, Keywords: []string{"bleu", "wmt"}},
		{Doc: "d", Order: 2, Modality: graph.ModalityTable, Keywords: []string{"wmt"}},
		{Doc: "d", Order: 3, Modality: graph.ModalityFigure},
	}
	emb := []float32{
		1, 0, 0,
		0.8, 0.6, 0,
		0.6, 0.8, 0,
		0, 0.2, 1,
	}
	edges := []graph.Edge{{U: 0, V: 1, Kind: graph.EdgeKNN}, {U: 1, V: 2, Kind: graph.EdgeKNN}, {U: 2, V: 3, Kind: graph.EdgeLink}}
	g, err := graph.New(nodes, 3, emb, edges)
	if err != nil {
		panic(err)
	}
	h := []float64{1, 0.9, 0.7, 0.2}
	return g, &score.Scores{Query: []float32{1, 0, 0}, R: h, H: h, HMean: 0.7}
}

func ExampleAspects_Open() {
	g, s := tiny()
	ctx := context.Background()
	gr, err := flowreader.PaperAspects().Router.Open(ctx, g) // once per graph
	if err != nil {
		panic(err)
	}
	r, err := gr.Route(ctx, s, 16) // once per question
	if err != nil {
		panic(err)
	}
	fmt.Printf("F0 %.2f, %d aspect(s), routed %.2f\n", r.Demand, len(r.Aspects), r.Routed)
	for _, c := range r.Chains {
		fmt.Printf("%v flow %.2f\n", c.Nodes, c.Flow)
	}
	// Output:
	// F0 2.69, 2 aspect(s), routed 2.69
	// [1] flow 1.00
	// [2 1 0] flow 0.69
	// [0] flow 0.38
	// [0] flow 0.31
	// [2] flow 0.31
}

func ExampleClassic_Open() {
	g, s := tiny()
	s.A = []float64{0.5, 0.9, 0.7, 0.1}
	s.Sources, s.Sinks = []int{0}, []int{2}
	ctx := context.Background()
	gr, err := (&flow.Classic{}).Open(ctx, g)
	if err != nil {
		panic(err)
	}
	r, err := gr.Route(ctx, s, 11)
	if err != nil {
		panic(err)
	}
	fmt.Printf("f_max %.2f, saturation %.2f\n", r.MaxFlow, r.Saturation)
	for _, c := range r.Chains {
		fmt.Printf("%v flow %.2f\n", c.Nodes, c.Flow)
	}
	// Output:
	// f_max 0.70, saturation 0.12
	// [0 1 2] flow 0.70
}

// An ablation of Table 3 is a setting of the aspects router.
func ExampleAspects_singleSink() {
	g, s := tiny()
	a := flowreader.PaperAspects().Router.(*flow.Aspects)
	a.SingleSink = true
	ctx := context.Background()
	gr, err := a.Open(ctx, g)
	if err != nil {
		panic(err)
	}
	r, err := gr.Route(ctx, s, 16)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Router, len(r.Aspects))
	// Output: single-sink 1
}

// The sink (node 3) hangs on an edge the classic filter prunes (weight <
// 0.22), so nothing reaches it; bridges to it (as System 2's T1 adds across
// the min cut), with the damped affinity of a scorer's 0.8, let the reroute
// reach the sink.
func ExampleRerouter() {
	g, s := tiny()
	s.A = []float64{0.5, 0.9, 0.7, 0.1}
	s.Sources, s.Sinks = []int{0}, []int{3}
	ctx := context.Background()
	gr, err := (&flow.Classic{}).Open(ctx, g)
	if err != nil {
		panic(err)
	}
	r, err := gr.Route(ctx, s, 11)
	if err != nil {
		panic(err)
	}
	fmt.Printf("before: saturation %.2f\n", r.Saturation)
	// Bridge the sink to the other nodes with the damped update of the
	// affinity toward a scorer's 0.8 (λ = 0.6, bound 0.3).
	var e flow.Edits
	for _, p := range [][2]int{{0, 3}, {1, 3}, {2, 3}} {
		old := max(g.Cos(p[0], p[1]), 0)
		e.Edges = append(e.Edges, flow.EdgeEdit{U: p[0], V: p[1], Affinity: old + min(0.3, 0.6*(0.8-old)), Add: true})
	}
	r2, err := gr.(flow.Rerouter).Reroute(ctx, s, 11, r, e)
	if err != nil {
		panic(err)
	}
	fmt.Printf("after: %d edits, saturation %.2f\n", len(e.Edges), r2.Saturation)
	// Output:
	// before: saturation 0.00
	// after: 3 edits, saturation 0.02
}
