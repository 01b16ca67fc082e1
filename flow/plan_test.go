package flow

import (
	"context"
	"errors"
	"math"
	"reflect"
	"sync/atomic"
	"testing"
)

type stubScorer struct {
	calls atomic.Int64
	fail  error
}

func (s *stubScorer) Bridge(_ context.Context, u, v int) (bool, float64, error) {
	s.calls.Add(1)
	// Accept pairs with an even sum; score 0.05 (rejected) for sums divisible by 4.
	if (u+v)%4 == 0 {
		return true, 0.05, s.fail
	}
	return (u+v)%2 == 0, 0.9, s.fail
}

func (s *stubScorer) Edge(_ context.Context, u, v int) (float64, error) {
	s.calls.Add(1)
	return 1, s.fail
}

func TestSystem2Plan(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 90, 16, 21)
	s := handScores(t, g, 21)
	c, r := lowSaturation(t)
	sys := DefaultSystem2()
	sc := &stubScorer{}
	e, err := sys.Plan(ctx, g, s, r, Triggers{T1: true, T2: true, T3: true}, sc)
	if err != nil {
		t.Fatal(err)
	}
	bridges := CutPairs(g, s, r, 8)
	re := len(CutEdges(g, r, 8)) + len(TopFlowEdges(r)) + len(SourceEdges(g, r, ExpandSources(g, s, r, 2, 8), 8))
	if int(sc.calls.Load()) != len(bridges)+re {
		t.Fatalf("%d scorer calls, want %d", sc.calls.Load(), len(bridges)+re)
	}
	adds := 0
	for _, x := range e.Edges {
		if x.Add {
			adds++
			if (x.U+x.V)%2 != 0 || (x.U+x.V)%4 == 0 {
				t.Fatalf("bridge %d–%d should have been rejected", x.U, x.V)
			}
			want := Damped(math.Max(g.Cos(x.U, x.V), 0), 0.9, 0.6, 0.3)
			if x.Affinity != want {
				t.Fatalf("bridge affinity %g, want %g", x.Affinity, want)
			}
		} else if want := Damped(r.Affinity(g, x.U, x.V), 1, 0.6, 0.3); x.Affinity != want {
			t.Fatalf("re-weight %g, want %g", x.Affinity, want)
		}
	}
	if len(e.Edges)-adds != re || len(e.Sources) == 0 {
		t.Fatalf("%d re-weights (want %d), %d seeds", len(e.Edges)-adds, re, len(e.Sources))
	}
	e2, _ := sys.Plan(ctx, g, s, r, Triggers{T1: true, T2: true, T3: true}, &stubScorer{})
	if !reflect.DeepEqual(e, e2) {
		t.Fatal("plan not deterministic")
	}
	r2, err := c.Reroute(ctx, g, s, r, e)
	if err != nil {
		t.Fatal(err)
	}
	checkFlow(t, r2)
	boom := errors.New("model down")
	if _, err := sys.Plan(ctx, g, s, r, Triggers{T2: true}, &stubScorer{fail: boom}); !errors.Is(err, boom) {
		t.Fatalf("scorer error not propagated: %v", err)
	}
	if e, _ := sys.Plan(ctx, g, s, r, Triggers{}, sc); len(e.Edges) != 0 || len(e.Sources) != 0 {
		t.Fatal("no trigger, yet edits")
	}
}
