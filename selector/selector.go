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

var (
	_ Selector = Greedy{}
	_ Selector = Replicator{}
	_ Selector = Annealed{}
)

// Greedy selects the maxChains chains of highest flow, ties by the chain's
// largest h, then by decomposition index (paper v3 §3.3). All chains are
// returned, in that order, when there are at most maxChains of them (or
// maxChains ≤ 0).
type Greedy struct{}

// Select implements Selector.
func (Greedy) Select(ctx context.Context, r *flow.Routing, maxChains int) ([]flow.Chain, error) {
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

// jaccard is |A∩B| / |A∪B| of the chains' node sets (1 for two empty sets).
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

// CapDistinct keeps chains in order until the next would take the number of
// distinct nodes past nodes; that chain is trimmed to fit, keeping its last
// new nodes (the most relevant end of an aspect chain) in routed order, and
// selection stops there. Chains whose nodes are all already counted are kept
// for free. It lets routers be compared at equal distinct-node budgets.
func CapDistinct(chains []flow.Chain, nodes int) []flow.Chain {
	seen := map[int]bool{}
	var out []flow.Chain
	for _, c := range chains {
		var fresh []int
		for _, v := range c.Nodes {
			if !seen[v] && !contains(fresh, v) {
				fresh = append(fresh, v)
			}
		}
		if len(seen)+len(fresh) <= nodes {
			for _, v := range fresh {
				seen[v] = true
			}
			out = append(out, copyChain(c))
			continue
		}
		room := nodes - len(seen)
		if room > 0 {
			keep := map[int]bool{}
			for _, v := range fresh[len(fresh)-room:] {
				keep[v] = true
			}
			t := c
			t.Nodes = nil
			for _, v := range c.Nodes {
				if seen[v] || keep[v] {
					t.Nodes = append(t.Nodes, v)
				}
			}
			out = append(out, t)
		}
		break
	}
	return out
}

func contains(x []int, v int) bool {
	for _, y := range x {
		if y == v {
			return true
		}
	}
	return false
}
