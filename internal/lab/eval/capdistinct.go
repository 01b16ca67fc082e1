package eval

import (
	"slices"

	"github.com/flowreader/flowreader/flow"
)

// capDistinct keeps chains in order until the next would take the number of
// distinct nodes past nodes; that chain is trimmed to fit, keeping its last
// new nodes (the most relevant end of an aspect chain) in routed order, and
// selection stops there. Chains whose nodes are all already counted are kept
// for free. It lets routers be compared at equal distinct-node budgets.
func capDistinct(chains []flow.Chain, nodes int) []flow.Chain {
	seen := map[int]bool{}
	var out []flow.Chain
	for _, c := range chains {
		var fresh []int
		for _, v := range c.Nodes {
			if !seen[v] && !slices.Contains(fresh, v) {
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

func copyChain(c flow.Chain) flow.Chain {
	c.Nodes = append([]int(nil), c.Nodes...)
	return c
}
