package flow

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestLiteralAspectsIsDefault requires an Aspects written as a literal with
// the default's values to route exactly like the zero Aspects: the
// defaults are the documented values and nothing else.
func TestLiteralAspectsIsDefault(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 150, 16, 21)
	s := handScores(t, g, 21)
	lit := &Aspects{
		BridgeWeight: 0.3, CrossModalBonus: 0.2, RelevanceThreshold: 0.5,
		DemandFloor: 0.25, EnergyFraction: 0.9, TerminationShare: 0.2,
	}
	if lit.settings() != (&Aspects{}).settings() {
		t.Fatalf("the literal's settings are not the default's: %+v", lit.settings())
	}
	want, err := routeOn(ctx, &Aspects{}, g, s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := routeOn(ctx, lit, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Chains, want.Chains) || got.Cost != want.Cost || got.Kappa != want.Kappa {
		t.Fatal("a literal Aspects routes differently from the zero Aspects")
	}
}

// TestOpenSharesNothing opens one Router on two graphs, routes questions
// of both concurrently and in turn, and requires every routing to equal the
// one a router opened on that graph alone gives; the Router is unchanged.
func TestOpenSharesNothing(t *testing.T) {
	ctx := context.Background()
	g1, g2 := synthGraph(t, 90, 16, 22), synthGraph(t, 120, 16, 23)
	s1, s2 := handScores(t, g1, 22), handScores(t, g2, 23)
	for _, rt := range []Router{&Aspects{}, paperAspects(), &Classic{}} {
		before := reflect.ValueOf(rt).Elem().Interface()
		want1, err := routeOn(ctx, rt, g1, s1)
		if err != nil {
			t.Fatal(err)
		}
		want2, err := routeOn(ctx, rt, g2, s2)
		if err != nil {
			t.Fatal(err)
		}
		o1, err := rt.Open(ctx, g1)
		if err != nil {
			t.Fatal(err)
		}
		o2, err := rt.Open(ctx, g2)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				gr, s, want := o1, s1, want1
				if i%2 == 1 {
					gr, s, want = o2, s2, want2
				}
				r, err := gr.Route(ctx, s, 16)
				if err == nil && (!reflect.DeepEqual(r.Chains, want.Chains) || r.Cost != want.Cost) {
					err = errors.New("routing differs from a fresh open")
				}
				if err != nil {
					errs <- err
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("%T: %v", rt, err)
		}
		if !reflect.DeepEqual(before, reflect.ValueOf(rt).Elem().Interface()) {
			t.Fatalf("%T changed by Open or Route", rt)
		}
	}
}

// TestBudgetIsFMax requires the budget to cap the demand (F_max) and a
// budget ≤ 0 to be an ErrConfig error.
func TestBudgetIsFMax(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 150, 16, 24)
	s := handScores(t, g, 24)
	for _, budget := range []int{1, 4, 16} {
		r, err := routeAt(ctx, &Aspects{}, g, s, budget)
		if err != nil {
			t.Fatal(err)
		}
		if r.Demand > float64(budget) {
			t.Fatalf("budget %d: demand %g", budget, r.Demand)
		}
	}
	r, err := routeAt(ctx, &Aspects{}, g, s, 4)
	if err != nil || r.Demand != 4 {
		t.Fatalf("budget 4 under the budget demand: demand %v, %v", r.Demand, err)
	}
	for _, rt := range []Router{&Aspects{}, &Classic{}} {
		for _, budget := range []int{0, -3} {
			if _, err := routeAt(ctx, rt, g, s, budget); !errors.Is(err, ErrConfig) {
				t.Fatalf("%T budget %d: %v", rt, budget, err)
			}
		}
	}
}

// TestValidationNamesTheField sets each setting to a bad value and requires
// an ErrConfig error that names it.
func TestValidationNamesTheField(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 20, 8, 25)
	nan := math.NaN()
	aspects := map[string]func(a *Aspects){
		"EnergyFraction":     func(a *Aspects) { a.EnergyFraction = 1.5 },
		"TerminationShare":   func(a *Aspects) { a.TerminationShare = 1 },
		"DemandFloor":        func(a *Aspects) { a.DemandFloor = 1.5 },
		"BridgeWeight":       func(a *Aspects) { a.BridgeWeight = nan },
		"CrossModalBonus":    func(a *Aspects) { a.CrossModalBonus = nan },
		"RelevanceThreshold": func(a *Aspects) { a.RelevanceThreshold = nan },
	}
	for field, set := range aspects {
		a := &Aspects{}
		set(a)
		_, err := a.Open(ctx, g)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "Aspects."+field) {
			t.Fatalf("%s: %v", field, err)
		}
	}
	classic := map[string]func(c *Classic){
		"Demand":        func(c *Classic) { c.Demand = -1 },
		"MaxPaths":      func(c *Classic) { c.MaxPaths = -1 },
		"MinEdgeWeight": func(c *Classic) { c.MinEdgeWeight = nan },
	}
	for field, set := range classic {
		c := &Classic{}
		set(c)
		_, err := c.Open(ctx, g)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "Classic."+field) {
			t.Fatalf("%s: %v", field, err)
		}
	}
}
