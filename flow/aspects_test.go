package flow

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
	"github.com/flowreader/flowreader/score"
)

// checkAspectInvariants asserts paper v3 §3.6's invariants on one routing
// at budget (F_max).
func checkAspectInvariants(t *testing.T, g *graph.Graph, s *score.Scores, a *Aspects, r *Routing, budget int) {
	t.Helper()
	if !r.acyclic() {
		t.Fatal("aspect network has a directed cycle")
	}
	checkFlow(t, r)
	set := a.settings()
	a = &set
	f0 := a.demand(s.H, float64(budget))
	if math.Abs(r.Demand-f0) > 1e-12 {
		t.Fatalf("demand %g, want F0 %g", r.Demand, f0)
	}
	var sumD float64
	for _, x := range r.Aspects {
		sumD += x.Capacity
	}
	if math.Abs(sumD-f0) > 1e-9 {
		t.Fatalf("Σ d_a = %.12f, F0 = %.12f", sumD, f0)
	}
	if lim := min(int(math.Floor(f0+0.5)), max(r.Relevant, 1)); len(r.Aspects) > lim || len(r.Aspects) < 1 {
		t.Fatalf("A = %d, want 1 ≤ A ≤ min(round(F0), |C|) = %d", len(r.Aspects), lim)
	}
	if math.Abs(r.Routed-f0) < 1e-9 {
		for j, x := range r.Aspects {
			if x.Flow < x.Capacity-1e-7 {
				t.Fatalf("aspect %d not saturated: flow %g of %g", j, x.Flow, x.Capacity)
			}
			if need := int(math.Ceil(x.Capacity - 1e-9)); x.Fed < need {
				t.Fatalf("aspect %d fed by %d nodes, want ≥ ceil(d_a) = %d", j, x.Fed, need)
			}
		}
	}
	if !a.NodeCredit {
		// Paper v3 §3.2: without node credit, a predecessor never makes a chain
		// strictly cheaper: (1 − h_u) + w_uv − (1 − h_v) = 1 − p_uv ≥ 0.
		n := len(g.Nodes)
		for id := 0; id < fullNet(r).NumArcs(); id++ {
			u, v, _, w := fullNet(r).Arc(id)
			if u < n && v < n && (1-s.H[u])+w-(1-s.H[v]) < -1e-12 {
				t.Fatalf("no credit: arc %d→%d makes extending cheaper", u, v)
			}
		}
	}
	var chainFlow float64
	for _, c := range r.Chains {
		chainFlow += c.Flow
		if len(c.Nodes) == 0 || c.Aspect < 0 || c.Aspect >= len(r.Aspects) {
			t.Fatalf("bad chain %+v", c)
		}
		for i := 1; i < len(c.Nodes); i++ {
			u, v := c.Nodes[i-1], c.Nodes[i]
			if !a.DocumentOrder && !(s.H[u] < s.H[v] || (s.H[u] == s.H[v] && u < v)) {
				t.Fatalf("chain %v steps down in (h, index) at %d→%d", c.Nodes, u, v)
			}
		}
	}
	if math.Abs(chainFlow-r.Routed) > 1e-7 {
		t.Fatalf("chain flows sum to %g, routed %g", chainFlow, r.Routed)
	}
	if r.Distinct != distinct(r.Chains) {
		t.Fatal("Distinct wrong")
	}
}

func TestAspectsInvariantsSynthetic(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 9; seed++ {
		n := 20 + int(seed)*15
		g := synthGraph(t, n, 24, seed)
		s := handScores(t, g, seed)
		for _, a := range []*Aspects{paperAspects(), noCredit(), ablated(ablNoAgreement), ablated(ablSingleSink), ablated(ablDocumentOrder)} {
			r, err := routeOn(ctx, a, g, s)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, a.name(), err)
			}
			checkAspectInvariants(t, g, s, a, r, 16)
		}
	}
}

// TestAspectsSettings runs setting changes and checks the invariants that
// still apply.
func TestAspectsSettings(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 120, 32, 3)
	s := handScores(t, g, 3)
	variants := map[string]func(a *Aspects){
		"b02":    func(a *Aspects) { a.TerminationShare = 0.2 },
		"order0": func(a *Aspects) { a.testOrderWindow = -1 },
		"merge":  func(a *Aspects) { a.SplitChains = false },
		"fmax32": func(a *Aspects) {},
	}
	for _, name := range []string{"b02", "order0", "merge", "fmax32"} {
		a := paperAspects()
		variants[name](a)
		budget := 16
		if name == "fmax32" {
			budget = 32
		}
		r, err := routeAt(ctx, a, g, s, budget)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkAspectInvariants(t, g, s, a, r, budget)
		if name == "merge" {
			seen := map[string]bool{}
			for _, c := range r.Chains {
				k := fmt.Sprint(c.Nodes)
				if seen[k] {
					t.Fatalf("merged chains repeat %v", c.Nodes)
				}
				seen[k] = true
			}
		}
	}
}

// TestAspectsMatchLP checks that the routed cost is the LP optimum of the
// same network on small cases.
func TestAspectsMatchLP(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 6; seed++ {
		g := synthGraph(t, 4+int(seed), 5, seed+100)
		s := handScores(t, g, seed)
		for _, base := range []*Aspects{paperAspects(), ablated(ablShortestPath), ablated(ablDocumentOrder)} {
			r, err := routeOn(ctx, base, g, s)
			if err != nil {
				t.Fatal(err)
			}
			lp := *base
			lp.Solver = mcftest.LP{}
			r2, err := routeOn(ctx, &lp, g, s)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Cost-r2.Cost) > 1e-7*math.Max(1, math.Abs(r2.Cost)) {
				t.Fatalf("seed %d %s: SSP cost %.12f, LP %.12f", seed, base.name(), r.Cost, r2.Cost)
			}
			var sum float64
			for _, c := range r.Chains {
				sum += c.Flow * c.Cost
			}
			if math.Abs(sum-r.Cost) > 1e-7*math.Max(1, math.Abs(r.Cost)) {
				t.Fatalf("Σ chain flow·cost %.12f ≠ routing cost %.12f", sum, r.Cost)
			}
		}
	}
}

// TestNoCreditCostStatement checks paper v3 §3.6's statement: without node
// credit, putting a predecessor u in front of v never makes the chain
// strictly cheaper: (1 − h_u) + w_uv ≥ (1 − h_v), i.e. the change is
// 1 − p_uv ≥ 0. With credit the statement fails on some arc (it is what lets
// chains grow).
func TestNoCreditCostStatement(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 150, 16, 9)
	s := handScores(t, g, 9)
	check := func(a *Aspects) (violations int) {
		r, err := routeOn(ctx, a, g, s)
		if err != nil {
			t.Fatal(err)
		}
		n := len(g.Nodes)
		for id := 0; id < fullNet(r).NumArcs(); id++ {
			u, v, _, w := fullNet(r).Arc(id)
			if u >= n || v >= n {
				continue
			}
			if d := (1 - s.H[u]) + w - (1 - s.H[v]); d < -1e-12 {
				violations++
			}
		}
		return violations
	}
	if v := check(noCredit()); v != 0 {
		t.Fatalf("no credit: %d arcs make extending strictly cheaper", v)
	}
	if v := check(paperAspects()); v == 0 {
		t.Fatal("with node credit no arc makes extending cheaper: the test cannot bite")
	}
}

func TestAspectsDeterministic(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 200, 32, 5)
	s := handScores(t, g, 5)
	a := paperAspects()
	r1, err := routeOn(ctx, a, g, s)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := routeOn(ctx, a, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1.Chains, r2.Chains) || r1.Cost != r2.Cost || !reflect.DeepEqual(r1.Aspects, r2.Aspects) {
		t.Fatal("routing the same query twice gave different results")
	}
	if len(r1.Chains) == 0 {
		t.Fatal("no chains")
	}
}

// TestAspectsFeasibilityFallback forces f_max < F0 (a demand floor above the
// node count): the router must send F = min(F0, 0.99 f_max).
func TestAspectsFeasibilityFallback(t *testing.T) {
	g := synthGraph(t, 3, 4, 1)
	s := handScores(t, g, 1)
	a := paperAspects()
	a.testMinDemand = 5
	r, err := routeOn(context.Background(), a, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Demand != 5 || math.Abs(r.MaxFlow-3) > 1e-9 {
		t.Fatalf("F0 %g f_max %g, want 5 and 3 (three unit entry arcs)", r.Demand, r.MaxFlow)
	}
	if math.Abs(r.Routed-0.99*3) > 1e-9 || math.Abs(r.Saturation-0.6) > 1e-12 {
		t.Fatalf("routed %g σ %g, want 2.97 and 0.6", r.Routed, r.Saturation)
	}
	checkFlow(t, r)
}

// TestMergeChains merges by node sequence, keeping first-seen order, adding
// flows, weighting costs by flow and keeping the aspect of the larger flow.
func TestMergeChains(t *testing.T) {
	cs := []Chain{
		{Nodes: []int{1, 2}, Flow: 1, Cost: 0.5, Aspect: 0},
		{Nodes: []int{12}, Flow: 0.5, Cost: 1, Aspect: 1},
		{Nodes: []int{1, 2}, Flow: 3, Cost: 0.1, Aspect: 2},
		{Nodes: []int{1, 2}, Flow: 2, Cost: 0.2, Aspect: 3},
		{Nodes: []int{1}, Flow: 1, Cost: 0.3, Aspect: 0},
	}
	got := mergeChains(cs)
	want := []Chain{
		{Nodes: []int{1, 2}, Flow: 6, Cost: (0.5*1 + 0.1*3 + 0.2*2) / 6, Aspect: 2},
		{Nodes: []int{12}, Flow: 0.5, Cost: 1, Aspect: 1},
		{Nodes: []int{1}, Flow: 1, Cost: 0.3, Aspect: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d chains, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if !slices.Equal(g.Nodes, w.Nodes) || math.Abs(g.Flow-w.Flow) > 1e-12 || math.Abs(g.Cost-w.Cost) > 1e-12 || g.Aspect != w.Aspect {
			t.Fatalf("chain %d: %+v, want %+v", i, g, w)
		}
	}
}
