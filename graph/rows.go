package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/flowreader/flowreader/internal/graphhook"
	"github.com/flowreader/flowreader/internal/vec"
)

// rows is an embedding matrix of n unit (or zero) rows of dim values: float32
// (f), or int8 with one scale per row (q and s, vec.Quantize) when i8 is set.
type rows struct {
	dim int
	i8  bool
	f   []float32
	q   []int8
	s   []float32
}

// graphRows returns g's embeddings as rows (aliasing them).
func graphRows(g *Graph) rows {
	return rows{dim: g.Dim, i8: g.int8, f: g.Emb, q: g.q8, s: g.qscale}
}

// newRows allocates n zero rows of dim values, int8 when i8 is set.
func newRows(n, dim int, i8 bool) rows {
	r := rows{dim: dim, i8: i8}
	if i8 {
		r.q, r.s = make([]int8, n*dim), make([]float32, n)
	} else {
		r.f = make([]float32, n*dim)
	}
	return r
}

// set stores the unit (or zero) vector v as row i.
func (r *rows) set(i int, v []float32) {
	if r.i8 {
		r.s[i] = vec.Quantize(r.q[i*r.dim:(i+1)*r.dim], v)
		return
	}
	copy(r.f[i*r.dim:(i+1)*r.dim], v)
}

// withCap returns empty rows of r's kind and dimension with room for n rows.
func (r *rows) withCap(n int) rows {
	o := rows{dim: r.dim, i8: r.i8}
	if r.i8 {
		o.q, o.s = make([]int8, 0, n*r.dim), make([]float32, 0, n)
	} else {
		o.f = make([]float32, 0, n*r.dim)
	}
	return o
}

// appendRows appends rows a..b-1 of o (of the same kind and dimension) to r.
func (r *rows) appendRows(o *rows, a, b int) {
	if r.i8 {
		r.q = append(r.q, o.q[a*o.dim:b*o.dim]...)
		r.s = append(r.s, o.s[a:b]...)
		return
	}
	r.f = append(r.f, o.f[a*o.dim:b*o.dim]...)
}

// dot is the similarity of rows i and j that kNN lists rank by: gonum's
// Sdot for float32 rows, the exact integer dot product times both scales
// for int8 rows. Both are symmetric in i and j, bit for bit.
func (r *rows) dot(i, j int) float32 { return dotRows(r, i, r, j) }

// dotRows is rows.dot of row i of a and row j of b (of the same kind and
// dimension).
func dotRows(a *rows, i int, b *rows, j int) float32 {
	d := a.dim
	if a.i8 {
		return float32(float64(vec.DotInt8(a.q[i*d:(i+1)*d], b.q[j*d:(j+1)*d])) * float64(a.s[i]) * float64(b.s[j]))
	}
	var impl gonum.Implementation
	return impl.Sdot(d, a.f[i*d:(i+1)*d], 1, b.f[j*d:(j+1)*d], 1)
}

// cos is the cosine of rows i and j as Graph.Cos gives it (edge weights).
func (r *rows) cos(i, j int) float64 {
	d := r.dim
	if r.i8 {
		return float64(vec.DotInt8(r.q[i*d:(i+1)*d], r.q[j*d:(j+1)*d])) * float64(r.s[i]) * float64(r.s[j])
	}
	return vec.Dot(r.f[i*d:(i+1)*d], r.f[j*d:(j+1)*d])
}

// dotVec is q · row i, summed as vec.Dot sums it.
func (r *rows) dotVec(q []float32, i int) float64 {
	d := r.dim
	if r.i8 {
		return vec.DotFloatInt8(q, r.q[i*d:(i+1)*d]) * float64(r.s[i])
	}
	return vec.Dot(q, r.f[i*d:(i+1)*d])
}

// appendRow appends row i, decoded to float32, to dst.
func (r *rows) appendRow(dst []float32, i int) []float32 {
	d := r.dim
	if !r.i8 {
		return append(dst, r.f[i*d:(i+1)*d]...)
	}
	s := r.s[i]
	for _, x := range r.q[i*d : (i+1)*d] {
		dst = append(dst, float32(x)*s)
	}
	return dst
}

// setRows makes r g's embeddings.
func (g *Graph) setRows(r rows) {
	g.Dim, g.int8 = r.dim, r.i8
	g.Emb, g.q8, g.qscale = r.f, r.q, r.s
	if r.i8 {
		g.Emb = nil
	}
}

// WithInt8Embeddings returns a graph of g's nodes and edges whose
// embeddings are g's rows as int8 with a scale per row (what
// Builder.Int8Embeddings stores), edge weights recomputed from them; g
// itself when its embeddings are int8 already. The kNN edges stay those
// found on the float32 rows, so the result can differ from an int8 build
// of the same documents in a few kNN edges. g is not modified.
func (g *Graph) WithInt8Embeddings() *Graph {
	if g.int8 {
		return g
	}
	r := newRows(len(g.Nodes), g.Dim, true)
	for i := 0; i < len(g.Nodes); i++ {
		r.set(i, g.Emb[i*g.Dim:(i+1)*g.Dim])
	}
	h := &Graph{Nodes: g.Nodes, Embedder: g.Embedder, ImageRoot: g.ImageRoot, Metadata: g.Metadata, build: g.build, off: g.off, adj: g.adj, eid: g.eid}
	h.setRows(r)
	h.Edges = make([]Edge, len(g.Edges))
	for i, e := range g.Edges {
		e.Weight = float32(math.Max(h.Cos(int(e.U), int(e.V)), 0))
		h.Edges[i] = e
	}
	return h
}

func init() {
	graphhook.ItemNode = func(doc any, i int) any { return doc.(*Document).itemNode(i) }
	graphhook.Rows = func(g any) ([]float32, []int8, []float32) {
		r := graphRows(g.(*Graph))
		return r.f, r.q, r.s
	}
	graphhook.CopyKey = func(n any) uint64 { return copyKey(n.(*Node)) }
	graphhook.CopiesAmong = func(g any, nodes []int32) [][]int32 { return copiesAmong(g.(*Graph), nodes) }
	graphhook.SetCopies = func(g any, classes [][]int32) error { return setCopies(g.(*Graph), classes) }
	graphhook.Classes = func(g any) []int32 { return classVector(g.(*Graph)) }
	graphhook.DiffRelinked = func(diff, g any) ([]int32, bool) {
		d := diff.(*Diff)
		return d.relinked, d.relinked != nil && d.of == g.(*Graph)
	}
	graphhook.FromRows = func(nodes any, dim int, f []float32, q []int8, s []float32, edges any, weighted bool) (any, error) {
		ns, _ := nodes.([]Node)
		es, _ := edges.([]Edge)
		r := rows{dim: dim, i8: q != nil, f: f, q: q, s: s}
		n := len(ns)
		if dim < 0 || (r.i8 && (len(q) != n*dim || len(s) != n)) || (!r.i8 && len(f) != n*dim) {
			return nil, fmt.Errorf("%w: rows do not fit %d nodes of dimension %d", ErrDimension, n, dim)
		}
		g, err := assembleEdges(ns, r, append(make([]Edge, 0, len(es)), es...), weighted)
		if err != nil {
			return nil, err
		}
		if err := validate(g); err != nil {
			return nil, err
		}
		return g, nil
	}
}
