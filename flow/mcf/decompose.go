package mcf

import (
	"fmt"
	"math"
)

// Path is one piece of a flow decomposition: Nodes[0..k] joined by Arcs[0..k-1]
// (Arcs[i] runs from Nodes[i] to Nodes[i+1]), carrying Amount. For an s–t
// path Nodes runs from s to t; for a cycle (Cycle true) Nodes[0] == Nodes[k].
type Path struct {
	Nodes  []int   // the nodes walked, in order
	Arcs   []int   // the arc ids walked, in order
	Amount float64 // the flow the piece carries on each of its arcs
	Cycle  bool    // a closed cycle rather than an s–t path
}

// decomposeSlack is how much unconserved flow a walk may strand at a dead end
// before Decompose reports [ErrInvalid] rather than discarding it as
// rounding noise.
const decomposeSlack = 1e-7

// Decompose splits an s–t flow into paths, the evidence chains of paper v3
// §3.3 (the paper fixes only that the optimal flow is decomposed into
// source-to-sink paths; the walk rule is FlowReader's): walk from s, always
// taking the out-arc with the largest remaining flow (ties: lower cost,
// then lower arc id), until t; subtract the walk's bottleneck and repeat. A walk that revisits a node closes a cycle: the cycle's
// bottleneck is cancelled at once and the walk continues from that node.
//
// The s–t paths come first, in the order found; the cancelled cycles follow
// them, in the order met. maxPaths caps the number of s–t paths (0 = no
// cap); the walks stop earlier once the remaining flow out of s is below
// [Eps]. Unless the cap stopped them, any flow left after that (a circulation
// no walk from s met) is split into further cycles, walking from the
// lowest-numbered arc still carrying flow, so that the paths and cycles sum
// back to flow on every arc.
//
// flow must have one entry per arc, each finite and in [0, capacity]
// (within Eps). Flow left stranded at a dead end (conservation violated) is
// discarded if it is at most decomposeSlack (1e-7), and reported as
// [ErrInvalid] otherwise.
func Decompose(n *Network, flow []float64, s, t int, maxPaths int) ([]Path, error) {
	if err := n.validateArcs(); err != nil {
		return nil, err
	}
	nn := n.NumNodes()
	if s < 0 || s >= nn || t < 0 || t >= nn {
		return nil, fmt.Errorf("mcf: decompose %d→%d: node outside 0..%d: %w", s, t, nn-1, ErrInvalid)
	}
	if s == t {
		return nil, fmt.Errorf("mcf: decompose %d→%d: source equals sink: %w", s, t, ErrInvalid)
	}
	if len(flow) != n.NumArcs() {
		return nil, fmt.Errorf("mcf: %d flows for %d arcs: %w", len(flow), n.NumArcs(), ErrInvalid)
	}
	rem := make([]float64, len(flow))
	for a, f := range flow {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("mcf: flow on arc %d is %v, not finite: %w", a, f, ErrInvalid)
		}
		if f < -Eps || f > n.capacity[a]+Eps {
			return nil, fmt.Errorf("mcf: flow %g on arc %d outside [0, %g]: %w", f, a, n.capacity[a], ErrInvalid)
		}
		if f > Eps {
			rem[a] = f
		}
	}
	adj := n.adjacency()
	pos := make([]int, nn) // position of a node on the current walk, or -1
	for i := range pos {
		pos[i] = -1
	}
	var paths, cycles []Path
	var nodes []int
	var arcs []int
	outOfS := func() float64 {
		var x float64
		for _, a := range adj.outArcs[adj.outStart[s]:adj.outStart[s+1]] {
			x += rem[a]
		}
		return x
	}
	best := func(u int) int {
		b := -1
		for _, a32 := range adj.outArcs[adj.outStart[u]:adj.outStart[u+1]] {
			a := int(a32)
			if rem[a] <= Eps {
				continue
			}
			if b < 0 || rem[a] > rem[b] || (rem[a] == rem[b] && n.cost[a] < n.cost[b]) {
				b = a // arcs come in id order, so equal keys keep the lower id
			}
		}
		return b
	}
	subtract := func(as []int) float64 {
		delta := math.Inf(1)
		for _, a := range as {
			delta = math.Min(delta, rem[a])
		}
		for _, a := range as {
			rem[a] -= delta
			if rem[a] <= Eps {
				rem[a] = 0
			}
		}
		return delta
	}
	for (maxPaths <= 0 || len(paths) < maxPaths) && outOfS() >= Eps {
		stuck := false
		nodes = append(nodes[:0], s)
		arcs = arcs[:0]
		pos[s] = 0
		u := s
		for u != t {
			a := best(u)
			if a < 0 {
				// Dead end: flow into u is not matched by flow out.
				if len(arcs) == 0 {
					stuck = true // cycle cancelling used up s's outflow
					nodes = nodes[:0]
					pos[s] = -1
					break
				}
				delta := subtract(arcs)
				for _, v := range nodes {
					pos[v] = -1
				}
				if delta > decomposeSlack {
					return nil, fmt.Errorf("mcf: flow not conserved: %g units stranded at node %d: %w", delta, u, ErrInvalid)
				}
				nodes = nodes[:0]
				break
			}
			v := int(n.to[a])
			if p := pos[v]; p >= 0 {
				cyc := append([]int(nil), arcs[p:]...)
				cyc = append(cyc, a)
				cn := append([]int(nil), nodes[p:]...)
				cn = append(cn, v)
				amt := subtract(cyc)
				cycles = append(cycles, Path{Nodes: cn, Arcs: cyc, Amount: amt, Cycle: true})
				for _, w := range nodes[p+1:] {
					pos[w] = -1
				}
				nodes = nodes[:p+1]
				arcs = arcs[:p]
				u = v
				continue
			}
			pos[v] = len(nodes)
			nodes = append(nodes, v)
			arcs = append(arcs, a)
			u = v
		}
		if stuck {
			break
		}
		if len(nodes) == 0 {
			continue
		}
		for _, v := range nodes {
			pos[v] = -1
		}
		amt := subtract(arcs)
		paths = append(paths, Path{
			Nodes:  append([]int(nil), nodes...),
			Arcs:   append([]int(nil), arcs...),
			Amount: amt,
		})
	}
	if maxPaths <= 0 || len(paths) < maxPaths {
		// What is left is a circulation that no walk from s met: split it
		// into cycles too, so that the pieces sum back to the flow.
		for a0 := range rem {
			for rem[a0] > Eps {
				u := int(n.from[a0])
				nodes = append(nodes[:0], u)
				arcs = arcs[:0]
				pos[u] = 0
				a := a0
				for {
					v := int(n.to[a])
					if p := pos[v]; p >= 0 {
						cyc := append(append([]int(nil), arcs[p:]...), a)
						cn := append(append([]int(nil), nodes[p:]...), v)
						amt := subtract(cyc)
						cycles = append(cycles, Path{Nodes: cn, Arcs: cyc, Amount: amt, Cycle: true})
						break
					}
					pos[v] = len(nodes)
					nodes = append(nodes, v)
					arcs = append(arcs, a)
					if a = best(v); a < 0 {
						delta := subtract(arcs)
						if delta > decomposeSlack {
							for _, w := range nodes {
								pos[w] = -1
							}
							return nil, fmt.Errorf("mcf: flow not conserved: %g units stranded at node %d: %w", delta, v, ErrInvalid)
						}
						break
					}
				}
				for _, w := range nodes {
					pos[w] = -1
				}
			}
		}
	}
	return append(paths, cycles...), nil
}
