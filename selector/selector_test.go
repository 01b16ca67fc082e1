package selector

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/score"
)

// randomRouting makes k chains of 1–4 nodes over n nodes with random flows
// and h.
func randomRouting(seed uint64, n, k int) *flow.Routing {
	rng := rand.New(rand.NewPCG(seed, 3))
	h := make([]float64, n)
	for i := range h {
		h[i] = rng.Float64()
	}
	r := &flow.Routing{Scores: &score.Scores{H: h}}
	for i := 0; i < k; i++ {
		c := flow.Chain{Flow: float64(1+rng.IntN(4)) / 4, Aspect: -1}
		for j := 0; j <= rng.IntN(4); j++ {
			c.Nodes = append(c.Nodes, rng.IntN(n))
		}
		r.Chains = append(r.Chains, c)
	}
	return r
}

func onSimplex(t *testing.T, x []float64) {
	t.Helper()
	var s float64
	for _, v := range x {
		if v < 0 || math.IsNaN(v) {
			t.Fatalf("x has entry %g", v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-12 {
		t.Fatalf("Σx = %.15f", s)
	}
}

func TestReplicatorStaysOnSimplex(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		r := randomRouting(seed, 30, 1+int(seed%40))
		xr, err := replicator{}.weights(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		onSimplex(t, xr)
		xa, _, err := annealed{}.weights(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		onSimplex(t, xa)
		q := v1Quality(r, 0.2, 0.5, 0.3)
		a, _ := payoff(context.Background(), r.Chains, q, nil)
		x := initial(q)
		for it := 0; it < 30; it++ {
			x = step(a, x, 0.2)
			onSimplex(t, x)
		}
	}
}

// TestPureReplicatorMonotone checks Baum–Eagon: without mixing, xᵀAx never
// decreases along the trajectory (A symmetric, non-negative).
func TestPureReplicatorMonotone(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		r := randomRouting(seed, 25, 2+int(seed%30))
		q := v1Quality(r, 0.2, 0.5, 0.3)
		a, _ := payoff(context.Background(), r.Chains, q, nil)
		x := initial(q)
		prev := quad(a, x)
		for it := 0; it < 60; it++ {
			x = step(a, x, 0)
			cur := quad(a, x)
			if cur < prev-1e-12*math.Max(1, prev) {
				t.Fatalf("seed %d step %d: xᵀAx fell from %.15f to %.15f", seed, it, prev, cur)
			}
			prev = cur
		}
	}
}

func TestSelectorsDeterministicAndBudgeted(t *testing.T) {
	r := randomRouting(7, 40, 30)
	for _, s := range []Selector{greedy{}, replicator{}, annealed{}} {
		a, b := mustSelect(t, s, r, 16), mustSelect(t, s, r, 16)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%T not deterministic", s)
		}
		want := 16
		if _, ok := s.(replicator); ok {
			want = 11
		}
		if len(a) != want {
			t.Fatalf("%T selected %d chains, want %d", s, len(a), want)
		}
	}
	small := randomRouting(8, 10, 5)
	if got := mustSelect(t, (annealed{}), small, 16); len(got) != 5 {
		t.Fatalf("annealed with 5 candidates read %d", len(got))
	}
	if got := mustSelect(t, (replicator{}), r, 4); len(got) != 4 {
		t.Fatalf("replicator with budget 4 read %d", len(got))
	}
}

func TestGreedyOrder(t *testing.T) {
	h := []float64{0.1, 0.9, 0.5, 0.7}
	r := &flow.Routing{Scores: &score.Scores{H: h}, Chains: []flow.Chain{
		{Nodes: []int{0}, Flow: 1},
		{Nodes: []int{2}, Flow: 2},
		{Nodes: []int{1}, Flow: 1},
		{Nodes: []int{3}, Flow: 1},
		{Nodes: []int{0, 1}, Flow: 1},
	}}
	got := mustSelect(t, greedy{}, r, 4)
	var first []int
	for _, c := range got {
		first = append(first, c.Nodes[len(c.Nodes)-1])
	}
	// Flow 2 first; then max h 0.9 (chain 2, then chain 4 by index); then 0.7.
	if want := []int{2, 1, 1, 3}; !reflect.DeepEqual(first, want) {
		t.Fatalf("greedy order %v, want %v", first, want)
	}
}

// TestAnnealedPrefersDisjoint: two identical high-quality chains and one
// disjoint one; with budget 2 the payoff's overlap penalty picks one of the
// twins and the disjoint chain.
func TestAnnealedPrefersDisjoint(t *testing.T) {
	h := []float64{1, 0.95, 0.9, 0.2}
	r := &flow.Routing{Scores: &score.Scores{H: h}, Chains: []flow.Chain{
		{Nodes: []int{0, 1}, Flow: 1},
		{Nodes: []int{0, 1}, Flow: 1},
		{Nodes: []int{2}, Flow: 1},
	}}
	got := mustSelect(t, annealed{}, r, 2)
	if len(got) != 2 || !(reflect.DeepEqual(got[1].Nodes, []int{2}) || reflect.DeepEqual(got[0].Nodes, []int{2})) {
		t.Fatalf("annealed picked %v", got)
	}
}

// mustSelect runs s without a deadline, failing the test on an error.
func mustSelect(t *testing.T, s Selector, r *flow.Routing, budget int) []flow.Chain {
	t.Helper()
	chains, err := s.Select(context.Background(), r, budget)
	if err != nil {
		t.Fatal(err)
	}
	return chains
}

// TestSelectCancelled: every selector returns the context's error, and no
// chains, when its context is already done.
func TestSelectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := randomRouting(7, 40, 30)
	for _, s := range []Selector{greedy{}, replicator{}, annealed{}} {
		chains, err := s.Select(ctx, r, 16)
		if !errors.Is(err, context.Canceled) || chains != nil {
			t.Fatalf("%T: %d chains, error %v; want none and context.Canceled", s, len(chains), err)
		}
	}
}
