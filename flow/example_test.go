package flow_test

import (
	"context"
	"fmt"

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
		{Doc: "d", Order: 2, Modality: graph.Table, Keywords: []string{"wmt"}},
		{Doc: "d", Order: 3, Modality: graph.Figure},
	}
	emb := []float32{
		1, 0, 0,
		0.8, 0.6, 0,
		0.6, 0.8, 0,
		0, 0.2, 1,
	}
	edges := []graph.Edge{{U: 0, V: 1, Kind: graph.KNN}, {U: 1, V: 2, Kind: graph.KNN}, {U: 2, V: 3, Kind: graph.Link}}
	g, err := graph.New(nodes, 3, emb, edges)
	if err != nil {
		panic(err)
	}
	h := []float64{1, 0.9, 0.7, 0.2}
	return g, &score.Scores{Query: []float32{1, 0, 0}, R: h, H: h, HMean: 0.7}
}

func ExampleAspects_Route() {
	g, s := tiny()
	r, err := flow.PaperAspects().Route(context.Background(), g, s)
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

func ExampleClassic_Route() {
	g, s := tiny()
	s.A = []float64{0.5, 0.9, 0.7, 0.1}
	s.Sources, s.Sinks = []int{0}, []int{2}
	r, err := flow.DefaultClassic().Route(context.Background(), g, s)
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

func ExampleTopK() {
	g, s := tiny()
	r, _ := (&flow.TopK{K: 2}).Route(context.Background(), g, s)
	for _, c := range r.Chains {
		fmt.Println(c.Nodes)
	}
	// Output:
	// [0]
	// [1]
}

func ExampleDemand() {
	fmt.Printf("%.2f\n", flow.Demand([]float64{1, 0.9, 0.7, 0.2}, 0.5, 1, 16))
	// Output: 2.69
}

func ExampleDamped() {
	// A System-2 scorer rates an edge of affinity 0.4 at 0.9: the damped rule
	// moves it by λ(0.9 − 0.4) = 0.3, the bound.
	fmt.Printf("%.2f\n", flow.Damped(0.4, 0.9, 0.6, 0.3))
	// Output: 0.70
}

func ExampleGain() {
	// The informative-jump weight peaks at c = 1/√2 and vanishes for
	// unrelated (c = 0) and duplicate (c = 1) nodes.
	fmt.Printf("%.2f %.2f %.2f\n", flow.Gain(0), flow.Gain(0.7071067811865476), flow.Gain(1))
	// Output: 0.00 1.00 0.00
}

func ExampleMMR() {
	g, s := tiny()
	fmt.Println(flow.MMR(g, s.H, 3, 0.7))
	// Output: [0 1 2]
}

func ExampleNoCredit() {
	g, s := tiny()
	r, err := flow.NoCredit(flow.PaperAspects()).Route(context.Background(), g, s)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Router, len(r.Chains) > 0)
	// Output: no-credit true
}

// bridgeAll is a PairScorer that accepts every bridge at 0.8 and rates every
// edge 0.9; a reader implements it with model calls.
type bridgeAll struct{}

func (bridgeAll) Bridge(context.Context, int, int) (bool, float64, error) { return true, 0.8, nil }
func (bridgeAll) Edge(context.Context, int, int) (float64, error)         { return 0.9, nil }

// The sink (node 3) hangs on an edge the classic filter prunes (weight <
// 0.22), so nothing reaches it; T1 proposes bridges across the min cut and
// the reroute reaches the sink.
func ExampleSystem2_Plan() {
	g, s := tiny()
	s.A = []float64{0.5, 0.9, 0.7, 0.1}
	s.Sources, s.Sinks = []int{0}, []int{3}
	c := flow.DefaultClassic()
	r, _ := c.Route(context.Background(), g, s)
	fmt.Printf("before: saturation %.2f\n", r.Saturation)
	e, err := flow.DefaultSystem2().Plan(context.Background(), g, s, r, flow.Triggers{T1: true}, bridgeAll{})
	if err != nil {
		panic(err)
	}
	r2, _ := c.Reroute(context.Background(), g, s, r, e)
	fmt.Printf("after: %d edits, saturation %.2f\n", len(e.Edges), r2.Saturation)
	// Output:
	// before: saturation 0.00
	// after: 3 edits, saturation 0.02
}

// Prepare does a router's per-graph work before the first question (here,
// indexing the content pairs), so that every Route costs the same.
func ExampleAspects_Prepare() {
	g, s := tiny()
	a := flow.DefaultAspects()
	if err := a.Prepare(context.Background(), g); err != nil {
		panic(err)
	}
	r, err := a.Route(context.Background(), g, s)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d chains over %d nodes, %d content arcs\n", len(r.Chains), r.Distinct, r.ContentArcs)
	// Output:
	// 4 chains over 3 nodes, 3 content arcs
}
