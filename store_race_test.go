package flowreader_test

import (
	"context"
	"sync"
	"testing"

	"github.com/flowreader/flowreader"
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
