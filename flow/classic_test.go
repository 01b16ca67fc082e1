package flow

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
	"github.com/flowreader/flowreader/score"
)

func TestClassicCapacitiesAndSaturation(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 10; seed++ {
		g := synthGraph(t, 30+10*int(seed), 16, seed)
		s := handScores(t, g, seed)
		for _, f := range []float64{0.5, 6, 1000} {
			c := &Classic{}
			c.Demand = f
			r, err := routeOn(ctx, c, g, s)
			if err != nil {
				t.Fatal(err)
			}
			checkFlow(t, r)
			if r.Saturation < 0 || r.Saturation > 1 {
				t.Fatalf("σ = %g", r.Saturation)
			}
			if want := math.Min(r.MaxFlow/f, 1); math.Abs(r.Saturation-want) > 1e-12 {
				t.Fatalf("σ = %g, want %g", r.Saturation, want)
			}
			if want := math.Min(f, r.MaxFlow); math.Abs(r.Routed-want) > 1e-7 {
				t.Fatalf("F=%g: routed %g, want min(F, f_max) = %g", f, r.Routed, want)
			}
			if f == 1000 && r.Routed >= f {
				t.Fatal("infeasible demand was routed in full")
			}
			// Capacities: s→u ≤ h_u, v→t ≤ a_v, content ≤ min(h_u, h_v).
			for id := 0; id < fullNet(r).NumArcs(); id++ {
				u, v, cp, cost := fullNet(r).Arc(id)
				var want float64
				switch {
				case u == r.Source:
					want = s.H[v]
				case v == r.Sink:
					want = s.A[u]
				default:
					want = math.Min(s.H[u], s.H[v])
					wantCost := 1 - r.affinity(g, u, v)*(s.H[u]+s.H[v])/2
					if math.Abs(cost-wantCost) > 1e-12 {
						t.Fatalf("arc %d→%d cost %g, want %g", u, v, cost, wantCost)
					}
					if w, _ := edgeWeight(g, u, v); w < 0.22 {
						t.Fatalf("pruned edge %d–%d (w=%g) in the network", u, v, w)
					}
				}
				if cp != want {
					t.Fatalf("arc %d→%d capacity %g, want %g", u, v, cp, want)
				}
			}
			if len(r.Chains) > 60 {
				t.Fatalf("%d paths > 60", len(r.Chains))
			}
		}
	}
}

func TestClassicMatchesLPAndIsDeterministic(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 6; seed++ {
		g := synthGraph(t, 12, 6, seed+40)
		s := handScores(t, g, seed)
		c := &Classic{}
		r, err := routeOn(ctx, c, g, s)
		if err != nil {
			t.Fatal(err)
		}
		c2 := &Classic{}
		c2.Solver = mcftest.LP{}
		r2, err := routeOn(ctx, c2, g, s)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Cost-r2.Cost) > 1e-7*math.Max(1, math.Abs(r.Cost)) {
			t.Fatalf("SSP %.12f vs LP %.12f", r.Cost, r2.Cost)
		}
		r3, _ := routeOn(ctx, c, g, s)
		if !reflect.DeepEqual(r.Chains, r3.Chains) {
			t.Fatal("classic routing is not deterministic")
		}
	}
}

func TestClassicErrors(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 40, 8, 2)
	s := handScores(t, g, 2)
	for _, drop := range []func(s *score.Scores){
		func(s *score.Scores) { s.Sources = nil },
		func(s *score.Scores) { s.Sinks = nil },
		func(s *score.Scores) { s.A = nil },
	} {
		aspectScores := *s
		drop(&aspectScores)
		_, err := routeOn(ctx, &Classic{}, g, &aspectScores)
		if !errors.Is(err, ErrScores) || !strings.Contains(err.Error(), "flowreader.Classic().Scoring") {
			t.Fatalf("scores without sources or sinks: %v", err)
		}
	}
	if _, err := routeOn(ctx, &Classic{Demand: -1}, g, s); !errors.Is(err, ErrConfig) {
		t.Fatalf("negative demand: %v", err)
	}
	bad := *s
	bad.H = s.H[:3]
	if _, err := routeOn(ctx, &Classic{}, g, &bad); !errors.Is(err, ErrScores) {
		t.Fatalf("short H: %v", err)
	}
	if _, err := routeOn(ctx, &Aspects{EnergyFraction: 2}, g, s); !errors.Is(err, ErrConfig) {
		t.Fatalf("EnergyFraction 2: %v", err)
	}
	if _, err := routeOn(ctx, paperAspects(), g, &bad); !errors.Is(err, ErrScores) {
		t.Fatalf("aspects short H: %v", err)
	}
	empty, err := graph.New(nil, 4, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	es := scoresFor(empty, nil)
	for _, rt := range []Router{paperAspects(), &Classic{}} {
		r, err := routeOn(ctx, rt, empty, es)
		if err != nil || len(r.Chains) != 0 {
			t.Fatalf("%T on empty graph: %v %v", rt, r, err)
		}
	}
}
