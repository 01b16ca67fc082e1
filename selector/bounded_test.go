package selector

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/score"
)

// manyChains is a routing of k chains of 2–6 nodes over n nodes, with
// random flows and scores: the shape a budget of thousands routes on a
// large graph.
func manyChains(k, n int, seed uint64) *flow.Routing {
	rng := rand.New(rand.NewPCG(seed, 1))
	h := make([]float64, n)
	for i := range h {
		h[i] = rng.Float64()
	}
	r := &flow.Routing{Scores: &score.Scores{H: h}}
	for range k {
		c := flow.Chain{Flow: rng.Float64()}
		for range 2 + rng.IntN(5) {
			c.Nodes = append(c.Nodes, rng.IntN(n))
		}
		r.Chains = append(r.Chains, c)
	}
	return r
}

// A routing of many chains costs a bounded amount of memory and time
// whatever the budget, and a cancelled context stops selection at once:
// the payoff is not quadratic in the routed chains (a server's client may
// ask for any budget).
func TestSelectBoundedOnManyChains(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a large routing")
	}
	r := manyChains(6000, 20000, 1)
	for _, sel := range []Selector{annealed{}, replicator{}} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		done := make(chan error, 1)
		go func() {
			_, err := sel.Select(context.Background(), r, len(r.Chains))
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%T: %v", sel, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%T: selection of %d chains still running after a minute", sel, len(r.Chains))
		}
		runtime.ReadMemStats(&m1)
		// The dense payoff of 6000 chains alone is 288 MB.
		if got := m1.TotalAlloc - m0.TotalAlloc; got > 64<<20 {
			t.Errorf("%T allocated %d MB for %d chains", sel, got>>20, len(r.Chains))
		}

		// Cancelled while the payoff is being built.
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			_, err := sel.Select(ctx, r, len(r.Chains))
			done <- err
		}()
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("%T cancelled: %v", sel, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%T: cancelled selection still running after a minute", sel)
		}
	}
}

// The payoff over sorted node sets is the map-based Jaccard payoff, bit
// for bit (selection at normal budgets is unchanged).
func TestPayoffMatchesMapJaccard(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		r := randomRouting(seed, 25, 1+int(seed%37))
		q := v1Quality(r, repExpFlow, repExpMax, repExpMean)
		a, err := payoff(context.Background(), r.Chains, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Chains {
			for j := range r.Chains {
				want := q[i] * q[i]
				if i != j {
					want = math.Sqrt(q[min(i, j)]*q[max(i, j)]) * (1 - jaccard(r.Chains[i].Nodes, r.Chains[j].Nodes))
				}
				if a[i][j] != want {
					t.Fatalf("seed %d: A[%d][%d] = %v, want %v", seed, i, j, a[i][j], want)
				}
			}
		}
	}
}

// Past maxGame chains, the players are those of largest flow, and the
// rest follow them in flow order.
func TestGameBound(t *testing.T) {
	r := manyChains(maxGame+300, 5000, 2)
	got, err := annealed{}.Select(context.Background(), r, len(r.Chains))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(r.Chains) {
		t.Fatalf("%d chains, want %d", len(got), len(r.Chains))
	}
	minPlayer := math.Inf(1)
	for _, c := range got[:maxGame] {
		minPlayer = math.Min(minPlayer, c.Flow)
	}
	for i, c := range got[maxGame:] {
		if c.Flow > minPlayer {
			t.Fatalf("chain %d after the players has flow %g > %g", maxGame+i, c.Flow, minPlayer)
		}
		if i > 0 && c.Flow > got[maxGame+i-1].Flow {
			t.Fatalf("the chains after the players are not in flow order at %d", maxGame+i)
		}
	}
}

// jaccard is the oracle of jaccardSorted: |A∩B| / |A∪B| of the chains' node sets (1 for two empty sets).
func jaccard(a, b []int) float64 {
	sa := map[int]bool{}
	for _, v := range a {
		sa[v] = true
	}
	sb := map[int]bool{}
	for _, v := range b {
		sb[v] = true
	}
	inter := 0
	for v := range sb {
		if sa[v] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}
