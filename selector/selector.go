package selector

import (
	"context"
	"sort"

	"github.com/flowreader/flowreader/flow"
)

// Selector picks the chains a reader will read from a routing.
type Selector interface {
	// Select returns the chosen chains in reading order. It returns
	// ctx.Err() (and no chains) when ctx is done before it finishes: a
	// selector whose work grows with the routing checks ctx as it goes.
	// maxChains bounds the chains returned (the root passes Config.Budget,
	// the read budget K; a chain may hold several nodes, so the chains
	// returned may hold more distinct nodes than maxChains).
	Select(ctx context.Context, r *flow.Routing, maxChains int) ([]flow.Chain, error)
}

// Greedy returns the selector of the maxChains chains of highest flow, ties by the chain's
// largest h, then by decomposition index (paper v3 §3.3). All chains are
// returned, in that order, when there are at most maxChains of them (or
// maxChains ≤ 0).
func Greedy() Selector { return greedy{} }

// greedy is the selector Greedy returns.
type greedy struct{}

// Select implements Selector.
func (greedy) Select(ctx context.Context, r *flow.Routing, maxChains int) ([]flow.Chain, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r == nil || len(r.Chains) == 0 {
		return nil, nil
	}
	h := hOf(r)
	idx := make([]int, len(r.Chains))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &r.Chains[idx[a]], &r.Chains[idx[b]]
		if x.Flow != y.Flow {
			return x.Flow > y.Flow
		}
		return maxH(x, h) > maxH(y, h)
	})
	return pick(r.Chains, idx, maxChains), nil
}

func pick(chains []flow.Chain, idx []int, maxChains int) []flow.Chain {
	if maxChains > 0 && len(idx) > maxChains {
		idx = idx[:maxChains]
	}
	out := make([]flow.Chain, len(idx))
	for i, k := range idx {
		out[i] = copyChain(chains[k])
	}
	return out
}

func copyChain(c flow.Chain) flow.Chain {
	c.Nodes = append([]int(nil), c.Nodes...)
	return c
}

func hOf(r *flow.Routing) []float64 {
	if r.Scores == nil {
		return nil
	}
	return r.Scores.H
}

// maxH is max_{v∈π} h_v (0 without scores).
func maxH(c *flow.Chain, h []float64) float64 {
	m := 0.0
	for _, v := range c.Nodes {
		if v >= 0 && v < len(h) && h[v] > m {
			m = h[v]
		}
	}
	return m
}

// meanH is the mean of h over the chain's distinct nodes.
func meanH(c *flow.Chain, h []float64) float64 {
	seen := map[int]bool{}
	var s float64
	for _, v := range c.Nodes {
		if seen[v] || v < 0 || v >= len(h) {
			continue
		}
		seen[v] = true
		s += h[v]
	}
	if len(seen) == 0 {
		return 0
	}
	return s / float64(len(seen))
}
