package flow

import (
	"context"
	"math"
	"testing"
)

func TestRankedBaselines(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 80, 16, 4)
	s := handScores(t, g, 4)
	r, err := (&TopK{K: 10}).Route(ctx, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Chains) != 10 || r.Distinct != 10 || r.Router != "topk" {
		t.Fatalf("topk: %d chains, %d distinct, %q", len(r.Chains), r.Distinct, r.Router)
	}
	for i := 1; i < len(r.Chains); i++ {
		a, b := r.Chains[i-1], r.Chains[i]
		if s.R[a.Nodes[0]] < s.R[b.Nodes[0]] || a.Flow <= b.Flow {
			t.Fatal("topk not in decreasing r / flow order")
		}
	}
	// Nothing outside the list beats its last member.
	in := map[int]bool{}
	for _, c := range r.Chains {
		in[c.Nodes[0]] = true
	}
	last := s.R[r.Chains[9].Nodes[0]]
	for v := range s.R {
		if !in[v] && s.R[v] > last {
			t.Fatalf("node %d (r=%g) beats the list's last (%g)", v, s.R[v], last)
		}
	}

	m, err := (&MMRTopK{K: 8}).Route(ctx, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Chains[0].Nodes[0] != byScore(s.H)[0] {
		t.Fatal("MMR's first pick is not argmax h")
	}
	// MMR with λ = 1 is top-k by h.
	m1, _ := (&MMRTopK{K: 8, Lambda: 1}).Route(ctx, g, s)
	for i, c := range m1.Chains {
		if c.Nodes[0] != byScore(s.H)[i] {
			t.Fatal("MMR λ=1 differs from top-k by h")
		}
	}

	p, err := (&PPRTopK{K: 8}).Route(ctx, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Chains[0].Nodes[0] != byScore(s.Psi)[0] {
		t.Fatal("PPR top-k does not follow ψ")
	}
	s2 := *s
	s2.Psi = nil
	p2, _ := (&PPRTopK{K: 8, RMin: 0.22}).Route(ctx, g, &s2)
	for i := range p.Chains {
		if p.Chains[i].Nodes[0] != p2.Chains[i].Nodes[0] {
			t.Fatal("PPR computed here differs from the same PPR given in the scores")
		}
	}
}

func TestPPRIsStationary(t *testing.T) {
	g := synthGraph(t, 50, 8, 6)
	s := handScores(t, g, 6)
	psi := PPR(g, s.R, 8, 0.85, 0)
	mx := 0.0
	for _, x := range psi {
		if x < 0 {
			t.Fatal("negative PPR")
		}
		mx = math.Max(mx, x)
	}
	if mx != 1 {
		t.Fatalf("ψ not normalised by its max: %g", mx)
	}
	// Seeds (the personalisation) outrank a node far from them on average.
	seed := byScore(s.R)[0]
	if psi[seed] < 0.2 {
		t.Fatalf("top seed has ψ %g", psi[seed])
	}
}

func TestAblationRouters(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 150, 16, 8)
	s := handScores(t, g, 8)
	base, err := PaperAspects().Route(ctx, g, s)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ShortestPath(nil).Route(ctx, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if !sp.Acyclic() || math.Abs(sp.Routed-sp.Demand) > 1e-9 {
		t.Fatal("shortest path: not a DAG or not fully routed")
	}
	// Without capacities each aspect takes one cheapest path, so there are at
	// most A chains and the cost can only fall.
	if len(sp.Chains) > len(sp.Aspects) || sp.Cost > base.Cost+1e-9 {
		t.Fatalf("shortest path: %d chains for %d aspects, cost %g vs %g", len(sp.Chains), len(sp.Aspects), sp.Cost, base.Cost)
	}
	ss, _ := SingleSink(nil).Route(ctx, g, s)
	if len(ss.Aspects) != 1 || math.Abs(ss.Aspects[0].Capacity-ss.Demand) > 1e-9 {
		t.Fatal("single sink: want A = 1 with d_1 = F0")
	}
	if ss.Kappa == base.Kappa {
		t.Fatal("single sink: κ not recomputed")
	}
	do, _ := DocOrder(nil).Route(ctx, g, s)
	if !do.Acyclic() {
		t.Fatal("doc order: cycle")
	}
	for _, c := range do.Chains {
		for i := 1; i < len(c.Nodes); i++ {
			x, y := g.Nodes[c.Nodes[i-1]], g.Nodes[c.Nodes[i]]
			if x.Doc > y.Doc || (x.Doc == y.Doc && x.Order > y.Order) {
				t.Fatalf("doc-order chain %v goes backwards", c.Nodes)
			}
		}
	}
	for _, r := range []*Routing{sp, ss, do} {
		if r.Router == base.Router {
			t.Fatal("ablation routers must have their own names")
		}
	}
}
