package baselines

import (
	"context"
	"github.com/flowreader/flowreader"
	"math"
	"reflect"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/internal/scorehook"
)

func TestCandidatesWholeGraphEqualsInner(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 80, 12, 31)
	s := handScores(t, g, 31)
	// Classic routes the sources and sinks of classic scoring; these
	// stand in for score.Classic's (MMR sources, sinks by a = r).
	classic := *s
	classic.Sources = scorehook.MMR(g, s.H, 8, 0.7)
	classic.A = append([]float64(nil), s.R...)
	classic.Sinks = byScore(classic.A)[:8]
	for _, inner := range []flow.Router{flowreader.PaperAspects().Router, &flow.Classic{}, &TopK{}} {
		s := s
		if _, ok := inner.(*flow.Classic); ok {
			s = &classic
		}
		want, err := routeOn(ctx, inner, g, s, 16)
		if err != nil {
			t.Fatal(err)
		}
		got, err := routeOn(ctx, &Candidates{Router: inner, M: 1000}, g, s, 16)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Chains, want.Chains) || math.Abs(got.Cost-want.Cost) > 1e-12 {
			t.Fatalf("%s: candidates over the whole graph differ", want.Router)
		}
	}
}

func TestCandidatesSubset(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 300, 12, 32)
	s := handScores(t, g, 32)
	c := &Candidates{M: 20}
	r, err := routeOn(ctx, c, g, s, 16)
	if err != nil {
		t.Fatal(err)
	}
	// Every chain node is a seed or a neighbour of one.
	seed := map[int]bool{}
	for _, v := range byScore(s.H)[:20] {
		seed[v] = true
	}
	for _, ch := range r.Chains {
		for _, v := range ch.Nodes {
			ok := seed[v]
			nb, _ := g.Neighbors(v)
			for _, w := range nb {
				ok = ok || seed[int(w)]
			}
			if !ok {
				t.Fatalf("node %d is neither a seed nor a neighbour of one", v)
			}
		}
	}
	if len(r.Chains) == 0 || r.Network != nil || r.Scores != s {
		t.Fatalf("chains %d, network %v", len(r.Chains), r.Network != nil)
	}
	if r.Router != "candidates(aspects)" {
		t.Fatalf("name %q", r.Router)
	}
}
