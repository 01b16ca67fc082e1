package score

import (
	"math"

	"github.com/flowreader/flowreader/graph"
)

// adjacency is the classic graph filter applied once: the undirected graph
// with the edges of weight below rmin removed, both directions of each kept
// edge in CSR form, with the per-arc weight w and propagation weight
// p = c·sqrt(1-c²) (Eq. 3), per-node sums of both, and p normalised by its
// node's sum plus ε (Eq. 4's weights).
type adjacency struct {
	rmin, eps float64
	off       []int32
	adj       []int32
	w         []float64
	p         []float64
	pn        []float64 // p_uv / (Σ_u p_uv + ε), aligned with adj
	wsum      []float64
	psum      []float64
}

func newAdjacency(g *graph.Graph, rmin, eps float64) *adjacency {
	n := g.Len()
	c := Config{RMin: rmin}
	a := &adjacency{rmin: rmin, eps: eps, off: make([]int32, n+1), wsum: make([]float64, n), psum: make([]float64, n)}
	m := 0
	for v := 0; v < n; v++ {
		nb, es := g.Neighbors(v)
		for k := range nb {
			if c.KeepEdge(g.Edges[es[k]].Weight) {
				m++
			}
		}
		a.off[v+1] = int32(m)
	}
	a.adj = make([]int32, m)
	a.w = make([]float64, m)
	a.p = make([]float64, m)
	j := 0
	for v := 0; v < n; v++ {
		nb, es := g.Neighbors(v)
		for k, u := range nb {
			wt := g.Edges[es[k]].Weight
			if !c.KeepEdge(wt) {
				continue
			}
			x := min(max(float64(wt), 0), 1)
			a.adj[j], a.w[j], a.p[j] = u, x, x*math.Sqrt(1-x*x)
			a.wsum[v] += x
			a.psum[v] += a.p[j]
			j++
		}
	}
	a.pn = make([]float64, m)
	for v := 0; v < n; v++ {
		for k := a.off[v]; k < a.off[v+1]; k++ {
			a.pn[k] = a.p[k] / (a.psum[v] + eps)
		}
	}
	return a
}

// adjacency returns the pruned adjacency for rmin and ε, building it on
// first use (and again if other constants are asked for).
func (ix *Index) adjacency(rmin, eps float64) *adjacency {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.pruned == nil || ix.pruned.rmin != rmin || ix.pruned.eps != eps {
		ix.pruned = newAdjacency(ix.g, rmin, eps)
	}
	return ix.pruned
}
