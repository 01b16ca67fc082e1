package graph

import (
	"fmt"
	"math"
)

// Limits of the file format beyond maxDim (persist.go), enforced alike by
// the writer and the reader through validate, so that Write never produces
// a file that Read refuses (a graph built over hours and then lost).
const (
	// unitTolerance is how far the L2 norm of a stored embedding row may
	// be from 1: scoring reads cosines as dot products of unit vectors
	// (paper v1 Eq. 13 and §3.4), and a row scaled far from unit length
	// overflows them to ±Inf and NaN. A row normalised in float32 is within
	// about 1e-6 of 1; a zero row (an embedder's empty answer) stays zero
	// and is allowed.
	unitTolerance = 1e-3
	// maxPage and minPage bound Node.Page and Node.Order, which the file
	// stores as 32-bit varints.
	maxPage = math.MaxInt32
	minPage = math.MinInt32
	// maxWeight is the largest edge weight read back: w_uv = max(cos, 0)
	// (paper v1 Eq. 13) is at most 1 up to float32 rounding.
	maxWeight = 1 + 1e-5
)

// validate reports, wrapped in ErrFormat, the first thing in g that the file
// format cannot hold or that scoring cannot rely on: a dimension above
// maxDim, embeddings that do not fill Nodes×Dim, a page or order outside
// 32 bits, an unknown modality, an edge that is out of range, unsorted,
// duplicated, of an unknown kind or of a weight outside [0, 1], and an
// embedding row that is not finite or not of unit length (within
// unitTolerance; zero rows are allowed). Write calls it before writing
// anything and Read on what it decoded, so both refuse the same graphs;
// Load runs its two halves, validateShape and unitRow, the second on each
// embedding row as it is read.
func validate(g *Graph) error {
	if err := validateShape(g); err != nil {
		return err
	}
	if g.int8 {
		return checkUnitInt8(g)
	}
	return checkUnit(g.Emb, g.Dim)
}

// validateShape is validate without the embedding rows' values.
func validateShape(g *Graph) error {
	if g == nil {
		return fmt.Errorf("%w: nil graph", ErrFormat)
	}
	n := len(g.Nodes)
	if g.Dim < 0 || g.Dim > maxDim {
		return fmt.Errorf("%w: embedding dimension %d (the file format holds at most %d)", ErrFormat, g.Dim, maxDim)
	}
	if g.int8 {
		if g.Emb != nil || uint64(len(g.q8)) != uint64(n)*uint64(g.Dim) || len(g.qscale) != n {
			return fmt.Errorf("%w: %d int8 embedding values and %d scales for %d nodes of dimension %d", ErrFormat, len(g.q8), len(g.qscale), n, g.Dim)
		}
	} else if uint64(len(g.Emb)) != uint64(n)*uint64(g.Dim) {
		return fmt.Errorf("%w: %d embedding values for %d nodes of dimension %d", ErrFormat, len(g.Emb), n, g.Dim)
	}
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		if nd.Page < minPage || nd.Page > maxPage || nd.Order < minPage || nd.Order > maxPage || nd.LastPage > maxPage {
			return fmt.Errorf("%w: node %d: page %d (last %d) or order %d outside 32 bits", ErrFormat, i, nd.Page, nd.LastPage, nd.Order)
		}
		if nd.Modality > ModalityFigure {
			return fmt.Errorf("%w: node %d: modality %d", ErrFormat, i, nd.Modality)
		}
	}
	prev := int64(-1)
	for i, e := range g.Edges {
		if e.U < 0 || e.U >= e.V || int(e.V) >= n {
			return fmt.Errorf("%w: edge %d: (%d,%d) with %d nodes", ErrFormat, i, e.U, e.V, n)
		}
		if key := int64(e.U)<<32 | int64(e.V); key > prev {
			prev = key
		} else {
			return fmt.Errorf("%w: edge %d: not sorted by (U, V) or duplicated", ErrFormat, i)
		}
		if e.Kind == 0 || e.Kind > EdgeOrder|EdgeKNN|EdgeLink {
			return fmt.Errorf("%w: edge %d: kind %d", ErrFormat, i, e.Kind)
		}
		if !(e.Weight >= 0 && e.Weight <= maxWeight) {
			return fmt.Errorf("%w: edge %d: weight %v", ErrFormat, i, e.Weight)
		}
	}
	return nil
}

// checkUnit checks that every row of emb (dim wide) is finite and of unit
// length within unitTolerance, or zero.
func checkUnit(emb []float32, dim int) error {
	if dim == 0 {
		return nil
	}
	for i := 0; i+dim <= len(emb); i += dim {
		if row := emb[i : i+dim : i+dim]; !unitRow(row) {
			return rowError(i/dim, row)
		}
	}
	return nil
}

// unitRow reports whether row is of unit length within unitTolerance, or
// all zero. NaN and ±Inf components make the squared norm NaN or +Inf, and
// so fail too, as does a row whose squares overflow float32 (what the
// cosines of scoring would then do).
func unitRow(row []float32) bool {
	const lo, hi = (1 - unitTolerance) * (1 - unitTolerance), (1 + unitTolerance) * (1 + unitTolerance)
	// Eight independent sums: the loop is bound by the adds' latency.
	var s [8]float32
	i := 0
	for ; i+8 <= len(row); i += 8 {
		r := row[i : i+8 : i+8]
		s[0] += r[0] * r[0]
		s[1] += r[1] * r[1]
		s[2] += r[2] * r[2]
		s[3] += r[3] * r[3]
		s[4] += r[4] * r[4]
		s[5] += r[5] * r[5]
		s[6] += r[6] * r[6]
		s[7] += r[7] * r[7]
	}
	for ; i < len(row); i++ {
		s[0] += row[i] * row[i]
	}
	t := float64(s[0]) + float64(s[1]) + float64(s[2]) + float64(s[3]) +
		float64(s[4]) + float64(s[5]) + float64(s[6]) + float64(s[7])
	if t >= lo && t <= hi {
		return true
	}
	if t != 0 {
		return false
	}
	for _, x := range row {
		if x != 0 {
			return false
		}
	}
	return true
}

// checkUnitInt8 is checkUnit for a graph of int8 embeddings.
func checkUnitInt8(g *Graph) error {
	d := g.Dim
	for i, s := range g.qscale {
		if !unitInt8(s, g.q8[i*d:(i+1)*d]) {
			return rowError(i, g.Embedding(i))
		}
	}
	return nil
}

// unitInt8 is unitRow for the int8 row q with scale s (vec.Quantize): the
// decoded row s·q is of unit length within unitTolerance, or zero.
func unitInt8(s float32, q []int8) bool {
	const lo, hi = (1 - unitTolerance) * (1 - unitTolerance), (1 + unitTolerance) * (1 + unitTolerance)
	var ss int64
	for _, x := range q {
		ss += int64(x) * int64(x)
	}
	if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
		return false
	}
	t := float64(s) * float64(s) * float64(ss)
	return t == 0 || t >= lo && t <= hi
}

// rowError says why row, node i's embedding, failed unitRow.
func rowError(i int, row []float32) error {
	var s float64
	for _, x := range row {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("node %d: %w", i, errNaN)
		}
		s += float64(x) * float64(x)
	}
	return fmt.Errorf("%w: node %d: embedding norm %.6g, not 1 within %g (nor a zero row)", ErrFormat, i, math.Sqrt(s), unitTolerance)
}
