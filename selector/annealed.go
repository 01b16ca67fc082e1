package selector

import (
	"context"
	"math"

	"github.com/flowreader/flowreader/flow"
)

// Annealed returns an annealed variant of v1's replicator dynamics (paper v1
// §3.4) for v3's chains, proposed here rather than in the paper: quality
// q_k = max_{v∈π_k} h_v, payoff A_kk = q_k², A_kl = sqrt(q_k q_l)(1 −
// Jaccard), x⁰ ∝ q; mixing toward uniform with ε_t = 0.2 max(0, 1 − t/20)
// for t < 20, then pure replicator dynamics until ‖Δx‖₂ < 1e-4 or 200 steps
// in all; the maxChains chains of highest x (ties by flow, then q, then
// index); maxChains ≤ 0 means 16. It has no settings (see the package
// comment). It is the root's default selector.
func Annealed() Selector { return annealed{} }

// annealed is the selector Annealed returns.
type annealed struct{}

// The annealing constants.
const (
	annEpsilon0 = 0.2  // ε₀, the initial mixing
	annSteps    = 20   // T_a, the annealing length
	annTol      = 1e-4 // the pure phase stops at ‖Δx‖₂ < annTol
	annMaxIter  = 200  // or after this many steps in all
)

// Select implements Selector.
func (an annealed) Select(ctx context.Context, r *flow.Routing, maxChains int) ([]flow.Chain, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r == nil || len(r.Chains) == 0 {
		return nil, nil
	}
	if maxChains <= 0 {
		maxChains = 16
	}
	x, q, err := an.weights(ctx, r)
	if err != nil {
		return nil, err
	}
	return pick(r.Chains, order(x, r.Chains, q), maxChains), nil
}

func (an annealed) weights(ctx context.Context, r *flow.Routing) (x, q []float64, err error) {
	h := hOf(r)
	q = make([]float64, len(r.Chains))
	for k := range r.Chains {
		q[k] = maxH(&r.Chains[k], h)
	}
	x, err = play(ctx, r.Chains, q, func(a [][]float64, x []float64) ([]float64, error) {
		next, ax := make([]float64, len(x)), make([]float64, len(x))
		for t := 0; t < annMaxIter; t++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			eps := annEpsilon0 * math.Max(0, 1-float64(t)/float64(annSteps))
			stepInto(next, ax, a, x, eps)
			done := t >= annSteps && dist(next, x) < annTol
			x, next = next, x
			if done {
				break
			}
		}
		return x, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return x, q, nil
}
