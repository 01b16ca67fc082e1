package selector

import (
	"math"

	"github.com/flowreader/flowreader/flow"
)

// Annealed is v3's annealed replicator dynamics (METHOD B.9 [proposed]):
// quality q_k = max_{v∈π_k} h_v, payoff A_kk = q_k², A_kl = sqrt(q_k q_l)(1 −
// Jaccard), x⁰ ∝ q; mixing toward uniform with ε_t = ε₀ max(0, 1 − t/T_a)
// for t < T_a, then pure replicator dynamics until ‖Δx‖₂ < Tol or MaxIter
// steps in all; the top-budget chains by x (ties by flow, then q, then
// index). The zero value uses the spec's constants; budget ≤ 0 means 16.
type Annealed struct {
	// Epsilon0 is ε₀ (0.2) and Steps the annealing length T_a (20).
	Epsilon0 float64
	Steps    int
	// Tol (1e-4) and MaxIter (200) stop the pure phase.
	Tol     float64
	MaxIter int
}

func (an Annealed) withDefaults() Annealed {
	if an.Epsilon0 == 0 {
		an.Epsilon0 = 0.2
	}
	if an.Steps == 0 {
		an.Steps = 20
	}
	if an.Tol == 0 {
		an.Tol = 1e-4
	}
	if an.MaxIter == 0 {
		an.MaxIter = 200
	}
	return an
}

// Select implements Selector.
func (an Annealed) Select(r *flow.Routing, budget int) []flow.Chain {
	if r == nil || len(r.Chains) == 0 {
		return nil
	}
	if budget <= 0 {
		budget = 16
	}
	x, q := an.weights(r)
	return pick(r.Chains, order(x, r.Chains, q), budget)
}

// Weights returns the final population x over the routing's chains.
func (an Annealed) Weights(r *flow.Routing) []float64 {
	x, _ := an.weights(r)
	return x
}

func (an Annealed) weights(r *flow.Routing) (x, q []float64) {
	c := an.withDefaults()
	h := hOf(r)
	q = make([]float64, len(r.Chains))
	for k := range r.Chains {
		q[k] = maxH(&r.Chains[k], h)
	}
	a := payoff(r.Chains, q)
	x = initial(q)
	next, ax := make([]float64, len(x)), make([]float64, len(x))
	for t := 0; t < c.MaxIter; t++ {
		eps := c.Epsilon0 * math.Max(0, 1-float64(t)/float64(c.Steps))
		stepInto(next, ax, a, x, eps)
		done := t >= c.Steps && dist(next, x) < c.Tol
		x, next = next, x
		if done {
			break
		}
	}
	return x, q
}
