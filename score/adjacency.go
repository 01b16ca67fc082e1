package score

import (
	"math"

	"github.com/flowreader/flowreader/graph"
)

// adjacency is the classic graph filter applied once (paper v1 §3.3): the
// undirected graph without the edges of weight below r_min, each kept edge
// {v,u} (v < u) listed once under its lower end v, with the weights the
// sweeps of φ and ψ multiply by. The graph package never stores a
// self-loop, so every edge has two distinct ends.
type adjacency struct {
	rmin float64
	// The edges of v to higher neighbours u are up[uoff[v]:uoff[v+1]], u
	// ascending.
	uoff []int32
	up   []upEdge
	// invP is 1/(Σ_u p_uv + ε), Eq. 4's normaliser; invW is 1/W_v with
	// W_v = Σ_u w_uv, PageRank's row normaliser (0 for a dangling node).
	// Both sums run over every kept neighbour u of v, in ascending order.
	invP, invW []float64
	// dangling lists the nodes whose kept edges weigh 0 in all (ascending).
	dangling []int32
}

// upEdge is one kept edge seen from its lower end: the propagation weight
// p = c·sqrt(1-c²) with c = w (Eq. 3), the weight w (a clamped float32 edge
// weight, so exact in float32) and the higher end u.
type upEdge struct {
	p float64
	w float32
	u int32
}

// keepEdge reports whether an edge of weight w survives the filter. The
// comparison is in float32, the precision of edge weights, so that an edge
// of weight float32(0.22) survives r_min = 0.22 (flow.Classic prunes alike).
func keepEdge(w float32, rmin float64) bool { return w >= float32(rmin) }

func newAdjacency(g *graph.Graph, rmin float64) *adjacency {
	n := len(g.Nodes)
	a := &adjacency{rmin: rmin, uoff: make([]int32, n+1), invP: make([]float64, n), invW: make([]float64, n)}
	for v := 0; v < n; v++ {
		nb, es := g.Neighbors(v) // ascending
		wsum, psum := 0.0, 0.0
		for k, u := range nb {
			wt := g.Edges[es[k]].Weight
			if !keepEdge(wt, rmin) || int(u) == v {
				continue
			}
			x := min(max(float64(wt), 0), 1)
			p := x * math.Sqrt(1-x*x)
			wsum += x
			psum += p
			if int(u) > v {
				a.up = append(a.up, upEdge{p: p, w: float32(x), u: u})
			}
		}
		a.uoff[v+1] = int32(len(a.up))
		a.invP[v] = 1 / (psum + phiEps)
		if wsum > 0 {
			a.invW[v] = 1 / wsum
		} else {
			a.dangling = append(a.dangling, int32(v))
		}
	}
	return a
}

// adjacency returns the pruned adjacency for r_min, building it on first
// use (and again when another r_min is asked for).
func (ix *Index) adjacency(rmin float64) *adjacency {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.pruned == nil || ix.pruned.rmin != rmin {
		ix.pruned = newAdjacency(ix.g, rmin)
	}
	return ix.pruned
}
