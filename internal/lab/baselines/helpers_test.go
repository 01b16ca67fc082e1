package baselines

import (
	"context"

	"math"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

// synthGraph is the small topic graph of package synth.
func synthGraph(t testing.TB, n, dim int, seed uint64) *graph.Graph {
	return synth.Graph(t, n, dim, seed)
}

// handScores builds scores by hand: q is a random mix of the first two nodes
// plus noise; r = clip(cos, 0, 1), h = r / max r, and ψ by PPR.
func handScores(t testing.TB, g *graph.Graph, seed uint64) *score.Scores {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	q := make([]float32, g.Dim)
	var ss float64
	for j := range q {
		q[j] = g.Embedding(0)[j] + g.Embedding(1)[j] + float32(0.3*rng.NormFloat64())
		ss += float64(q[j]) * float64(q[j])
	}
	for j := range q {
		q[j] = float32(float64(q[j]) / math.Sqrt(ss))
	}
	n := len(g.Nodes)
	sc := &score.Scores{Query: q, Cos: make([]float64, n), R: make([]float64, n), H: make([]float64, n)}
	mx := 0.0
	for v := 0; v < n; v++ {
		sc.Cos[v] = vec.Dot(g.Embedding(v), q)
		sc.R[v] = math.Min(math.Max(sc.Cos[v], 0), 1)
		mx = math.Max(mx, sc.R[v])
	}
	for v := range sc.H {
		if mx > 0 {
			sc.H[v] = sc.R[v] / mx
		}
		sc.HMean += sc.H[v] / float64(n)
	}
	sc.Psi = PPR(g, sc.R, 8, 0.85, 0.22)
	return sc
}

// routeOn opens r on g and routes s at the budget.
func routeOn(ctx context.Context, r flow.Router, g *graph.Graph, s *score.Scores, budget int) (*flow.Routing, error) {
	gr, err := r.Open(ctx, g)
	if err != nil {
		return nil, err
	}
	return gr.Route(ctx, s, budget)
}
