package mcf_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
)

// TestInvalidInput checks that both solvers refuse each kind of bad
// network with ErrInvalid and a message naming the fault.
func TestInvalidInput(t *testing.T) {
	cases := []struct {
		name  string
		build func(n *mcf.Network)
		want  string
	}{
		{"nan cost", func(n *mcf.Network) { n.AddArc(0, 1, 1, math.NaN()) }, "cost NaN"},
		{"inf capacity", func(n *mcf.Network) { n.AddArc(0, 1, math.Inf(1), 0) }, "+Inf"},
		{"negative capacity", func(n *mcf.Network) { n.AddArc(0, 1, -2, 0) }, "negative"},
		{"unknown node", func(n *mcf.Network) { n.AddArc(0, 7, 1, 0) }, "outside 0..2"},
		{"negative node", func(n *mcf.Network) { n.AddArc(-1, 1, 1, 0) }, "outside 0..2"},
		{"unbalanced", func(n *mcf.Network) { n.SetSupply(0, 1) }, "not zero"},
		{"nan supply", func(n *mcf.Network) { n.SetSupply(0, math.NaN()) }, "not finite"},
	}
	for _, c := range cases {
		n := mcf.NewNetwork(3)
		c.build(n)
		for name, s := range map[string]mcf.Solver{"ssp": &mcf.SSP{}, "lp": mcftest.LP{}} {
			_, err := s.Solve(context.Background(), n)
			if !errors.Is(err, mcf.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %s.Solve = %v, want ErrInvalid and %q", c.name, name, err, c.want)
			}
		}
	}
	ok := mcf.NewNetwork(2)
	ok.AddArc(0, 1, 0, -5) // zero capacity and negative cost are fine
	if _, err := (&mcf.SSP{}).Solve(context.Background(), ok); err != nil {
		t.Fatal(err)
	}
}

func TestMaxFlowDecomposeArguments(t *testing.T) {
	n := mcf.NewNetwork(2)
	n.AddArc(0, 1, 1, 0)
	if _, _, err := mcf.MaxFlow(n, 0, 0); !errors.Is(err, mcf.ErrInvalid) {
		t.Errorf("mcf.MaxFlow s==t: %v", err)
	}
	if _, _, err := mcf.MaxFlow(n, 0, 5); !errors.Is(err, mcf.ErrInvalid) {
		t.Errorf("mcf.MaxFlow range: %v", err)
	}
	if _, err := mcf.Decompose(n, []float64{1, 2}, 0, 1, 0); !errors.Is(err, mcf.ErrInvalid) {
		t.Errorf("mcf.Decompose length: %v", err)
	}
	if _, err := mcf.Decompose(n, []float64{2}, 0, 1, 0); !errors.Is(err, mcf.ErrInvalid) {
		t.Errorf("mcf.Decompose over capacity: %v", err)
	}
	if _, err := mcf.Decompose(n, []float64{math.NaN()}, 0, 1, 0); !errors.Is(err, mcf.ErrInvalid) {
		t.Errorf("mcf.Decompose NaN: %v", err)
	}
	m := mcf.NewNetwork(3)
	m.AddArc(0, 1, 1, 0)
	m.AddArc(1, 2, 1, 0)
	if _, err := mcf.Decompose(m, []float64{1, 0}, 0, 2, 0); !errors.Is(err, mcf.ErrInvalid) {
		t.Errorf("mcf.Decompose dead end: %v", err)
	}
}

// TestDecomposeRule pins the decomposition walk (paper v3 §3.3): largest remaining flow
// first, ties by lower cost then lower arc id, cycles cancelled and listed
// after the s–t paths, and the path cap.
func TestDecomposeRule(t *testing.T) {
	n := mcf.NewNetwork(5)
	n.AddArc(0, 1, 5, 2) // 0: ties with arc 1 on flow, dearer
	n.AddArc(0, 2, 5, 1) // 1
	n.AddArc(1, 4, 5, 0) // 2
	n.AddArc(2, 3, 5, 0) // 3
	n.AddArc(3, 2, 5, 0) // 4: 2→3→2 is a cycle
	n.AddArc(3, 4, 5, 0) // 5
	flow := []float64{1, 1, 1, 2, 1, 1}
	paths, err := mcf.Decompose(n, flow, 0, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []mcf.Path{
		{Nodes: []int{0, 2, 3, 4}, Arcs: []int{1, 3, 5}, Amount: 1},
		{Nodes: []int{0, 1, 4}, Arcs: []int{0, 2}, Amount: 1},
		{Nodes: []int{2, 3, 2}, Arcs: []int{3, 4}, Amount: 1, Cycle: true},
	}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("got %+v\nwant %+v", paths, want)
	}
	// A circulation the walks from s never meet is still returned, last.
	flow2 := []float64{1, 1, 1, 1.5, 0.5, 1}
	paths2, err := mcf.Decompose(n, flow2, 0, 4, 0)
	want2 := []mcf.Path{
		{Nodes: []int{0, 2, 3, 4}, Arcs: []int{1, 3, 5}, Amount: 1},
		{Nodes: []int{0, 1, 4}, Arcs: []int{0, 2}, Amount: 1},
		{Nodes: []int{2, 3, 2}, Arcs: []int{3, 4}, Amount: 0.5, Cycle: true},
	}
	if err != nil || !reflect.DeepEqual(paths2, want2) {
		t.Fatalf("circulation: got %+v (%v)\nwant %+v", paths2, err, want2)
	}
	capped, err := mcf.Decompose(n, flow, 0, 4, 1)
	if err != nil || len(capped) != 2 || capped[0].Cycle || !capped[1].Cycle {
		t.Fatalf("maxPaths=1: %+v, %v", capped, err)
	}
}

func TestSSPDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for it := 0; it < 20; it++ {
		n := mcftest.RandomNetwork(rng, mcftest.Kind(it%3), 60, 300, it%2 == 0, false, false)
		a, err1 := (&mcf.SSP{}).Solve(context.Background(), n)
		b, err2 := (&mcf.SSP{}).Solve(context.Background(), n)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("it %d: two solves differ", it)
		}
	}
}

func TestSSPContextCancelled(t *testing.T) {
	n, _, _ := mcftest.AspectsNetwork(rand.New(rand.NewPCG(1, 1)), 200, 4, 8)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&mcf.SSP{}).Solve(ctx, n); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if _, err := (mcftest.LP{}).Solve(ctx, n); !errors.Is(err, context.Canceled) {
		t.Fatalf("mcftest.LP: got %v", err)
	}
}

func TestNetworkBuilder(t *testing.T) {
	n := mcf.NewNetwork(2)
	v := 1
	a := n.AddArc(0, v, 4, -1)
	if from, to, c, k := n.Arc(a); from != 0 || to != 1 || c != 4 || k != -1 || n.NumNodes() != 2 || n.NumArcs() != 1 {
		t.Fatalf("arc %d %d %g %g", from, to, c, k)
	}
	n.SetSupply(0, 2.5)
	n.SetSupply(1, -2.5)
	if n.Supply(0) != 2.5 {
		t.Fatal(n.Supply(0))
	}
	sol, err := (&mcf.SSP{}).Solve(context.Background(), n)
	if err != nil || sol.Flow[a] != 2.5 || sol.Cost != -2.5 || sol.Augmentations != 1 {
		t.Fatalf("%+v %v", sol, err)
	}
}
