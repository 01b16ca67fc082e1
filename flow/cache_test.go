package flow

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// TestPairCacheConcurrent routes two graphs concurrently through one cached
// router and its clones (which share the cache) and compares with routers
// that have no cache.
func TestPairCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	gs := []*graph.Graph{synthGraph(t, 60, 8, 1), synthGraph(t, 70, 8, 2)}
	cached := PaperAspects()
	variants := []*Aspects{cached, DocOrder(cached), func() *Aspects { c := clone(cached); c.OrderWindow = 0; return c }()}
	want := make([][]*Routing, len(variants))
	for i, v := range variants {
		plain := clone(v)
		plain.cache = nil
		for _, g := range gs {
			r, err := plain.Route(ctx, g, handScores(t, g, 3))
			if err != nil {
				t.Fatal(err)
			}
			want[i] = append(want[i], r)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for rep := 0; rep < 4; rep++ {
		for i, v := range variants {
			for j, g := range gs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := v.Route(ctx, g, handScores(t, g, 3))
					if err != nil {
						errs <- err.Error()
						return
					}
					if !reflect.DeepEqual(r.Chains, want[i][j].Chains) || r.Cost != want[i][j].Cost {
						errs <- v.Name() + ": cached routing differs"
					}
				}()
			}
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// TestPrepare checks that Prepare fills the pair cache for g, that routing
// after it equals routing without it, and that it checks its input.
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	g := synthGraph(t, 80, 8, 4)
	s := handScores(t, g, 4)
	cold := DefaultAspects()
	want, err := cold.Route(ctx, g, s)
	if err != nil {
		t.Fatal(err)
	}
	a := DefaultAspects()
	if err := a.Prepare(ctx, g); err != nil {
		t.Fatal(err)
	}
	if a.cache.g != g || a.cache.set == nil || len(a.cache.set.nodes) != g.Len() {
		t.Fatal("Prepare left the pair cache empty")
	}
	set := a.cache.set
	got, err := a.Route(ctx, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if a.cache.set != set {
		t.Fatal("Route recomputed the prepared pairs")
	}
	if !reflect.DeepEqual(got.Chains, want.Chains) || got.Cost != want.Cost || got.Kappa != want.Kappa {
		t.Fatal("routing after Prepare differs")
	}
	if err := a.Prepare(ctx, nil); !errors.Is(err, ErrScores) {
		t.Fatalf("Prepare(nil graph): %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := DefaultAspects().Prepare(cancelled, g); !errors.Is(err, context.Canceled) {
		t.Fatalf("Prepare with a cancelled context: %v", err)
	}
	bad := DefaultAspects()
	bad.Eta = 2
	if err := bad.Prepare(ctx, g); !errors.Is(err, ErrConfig) {
		t.Fatalf("Prepare with Eta 2: %v", err)
	}
	hand := &Aspects{}
	*hand = *DefaultAspects()
	hand.cache = nil
	if err := hand.Prepare(ctx, g); err != nil {
		t.Fatalf("Prepare without a cache: %v", err)
	}
}
