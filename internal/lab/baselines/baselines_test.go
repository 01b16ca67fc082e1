package baselines

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/flowreader/flowreader/flow"
)

func TestRankedBaselines(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 80, 16, 4)
	s := handScores(t, g, 4)
	r, err := routeOn(ctx, &TopK{}, g, s, 10)
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

	m, err := routeOn(ctx, &MMRTopK{}, g, s, 8)
	if err != nil {
		t.Fatal(err)
	}
	if m.Chains[0].Nodes[0] != byScore(s.H)[0] {
		t.Fatal("MMR's first pick is not argmax h")
	}
	// MMR with λ = 1 is top-k by h.
	m1, _ := routeOn(ctx, &MMRTopK{Lambda: 1}, g, s, 8)
	for i, c := range m1.Chains {
		if c.Nodes[0] != byScore(s.H)[i] {
			t.Fatal("MMR λ=1 differs from top-k by h")
		}
	}

	p, err := routeOn(ctx, &PPRTopK{}, g, s, 8)
	if err != nil {
		t.Fatal(err)
	}
	if p.Chains[0].Nodes[0] != byScore(s.Psi)[0] {
		t.Fatal("PPR top-k does not follow ψ")
	}
	s2 := *s
	s2.Psi = nil
	p2, _ := routeOn(ctx, &PPRTopK{RMin: 0.22}, g, &s2, 8)
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

// TestBudgetIsK requires the ranked lists to hold budget nodes and a budget
// ≤ 0 to be an ErrConfig error.
func TestBudgetIsK(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 40, 8, 5)
	s := handScores(t, g, 5)
	for _, rt := range []flow.Router{&TopK{}, &MMRTopK{}, &PPRTopK{}} {
		for _, k := range []int{1, 7, 100} {
			r, err := routeOn(ctx, rt, g, s, k)
			if err != nil || len(r.Chains) != min(k, len(g.Nodes)) {
				t.Fatalf("%T at %d: %v chains, %v", rt, k, len(r.Chains), err)
			}
		}
		if _, err := routeOn(ctx, rt, g, s, 0); !errors.Is(err, flow.ErrConfig) {
			t.Fatalf("%T at 0: %v", rt, err)
		}
	}
}
