package score

import (
	"math"

	"github.com/flowreader/flowreader/graph"
)

// upEdge is one kept edge seen from its lower end: the propagation weight
// p, the weight w (exact in float32: it is a clamped float32 edge weight)
// and the higher end u.
type upEdge struct {
	p float64
	w float32
	u int32
}

// adjacency is the classic graph filter applied once: the undirected graph
// with the edges of weight below rmin removed, both directions of each kept
// edge in CSR form, with the per-arc weight w and propagation weight
// p = c·sqrt(1-c²) (Eq. 3), per-node sums of both, and the two weights the
// sweeps multiply by, paired so that one load serves both (see sweeps).
type adjacency struct {
	rmin, eps float64
	off       []int32
	adj       []int32
	w         []float64
	p         []float64
	wsum      []float64
	psum      []float64
	pn        []float64 // p_uv / (Σ_u p_uv + ε), aligned with adj
	// up lists each kept edge once, under its lower end: the edges of v
	// to higher nodes u are up[uoff[v]:uoff[v+1]] (a self-loop arc, which
	// graph.New never makes, is kept under its node and sets selfLoops).
	// The sweeps walk it.
	uoff      []int32
	up        []upEdge
	selfLoops bool
	// chunks is up laid out for the amd64 sweep kernel (nil elsewhere,
	// and with self-loops, which the kernel does not walk).
	chunks []sweepChunk
	// invP is 1/(Σ_u p_uv + ε) (Eq. 4's normaliser), invW is 1/W_v
	// (PageRank's row normaliser; 0 for a dangling node).
	invP, invW []float64
	// dangling lists the nodes whose kept edges weigh 0 (ascending).
	dangling []int32
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
	a.uoff = make([]int32, n+1)
	a.invP = make([]float64, n)
	a.invW = make([]float64, n)
	for v := 0; v < n; v++ {
		for k := a.off[v]; k < a.off[v+1]; k++ {
			if u := a.adj[k]; int(u) >= v {
				a.up = append(a.up, upEdge{p: a.p[k], w: float32(a.w[k]), u: u})
				a.selfLoops = a.selfLoops || int(u) == v
			}
		}
		a.uoff[v+1] = int32(len(a.up))
		a.invP[v] = 1 / (a.psum[v] + eps)
		if a.wsum[v] > 0 {
			a.invW[v] = 1 / a.wsum[v]
		} else {
			a.dangling = append(a.dangling, int32(v))
		}
	}
	if jointSweepFast && !a.selfLoops {
		a.chunks = buildChunks(a)
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
