package flow

import (
	"context"
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
