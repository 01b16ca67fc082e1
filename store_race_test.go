package flowreader_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
)

// TestStoreStepsConcurrent: one Scores over a store used from two
// goroutines, one selecting (which reads the chains' text into
// Scores.Graph) while the other makes evidence of the routed chains (not
// Select's: their text may not be read yet). Under -race the text Select
// writes must not be read unsynchronised.
func TestStoreStepsConcurrent(t *testing.T) {
	ctx := context.Background()
	_, sx, _ := storePair(t, flowreader.Config{}, topicDocs())
	q := storeQuestions[1]
	s, err := sx.Score(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sx.Route(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := sx.Select(ctx, r); err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer wg.Done()
		sx.Evidence(q, s, r, r.Chains)
	}()
	wg.Wait()
}

// TestStoreRouteSelectConcurrent: one fresh Scores over a store routed
// from two goroutines while one of them selects (writing the chains' text
// into Scores.Graph): under -race no Route may read that text, and both
// routings are the same.
func TestStoreRouteSelectConcurrent(t *testing.T) {
	ctx := context.Background()
	_, sx, _ := storePair(t, flowreader.Config{}, topicDocs())
	for _, q := range storeQuestions {
		s, err := sx.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var r1, r2 *flow.Routing
		wg.Add(2)
		go func() {
			defer wg.Done()
			var err error
			if r1, err = sx.Route(ctx, s); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			var err error
			if r2, err = sx.Route(ctx, s); err != nil {
				t.Error(err)
				return
			}
			if _, err := sx.Select(ctx, r2); err != nil {
				t.Error(err)
			}
		}()
		wg.Wait()
		if r1 == nil || r2 == nil {
			t.Fatal("no routing")
		}
		if !reflect.DeepEqual(r1.Chains, r2.Chains) || r1.Cost != r2.Cost {
			t.Fatalf("%q: two routings of one Scores differ", q)
		}
	}
}
