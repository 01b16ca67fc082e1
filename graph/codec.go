package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// encodePayload returns g's payload (without an image root) in one slice.
func encodePayload(g *Graph) []byte {
	b := encodeBody(g)
	for _, p := range embeddingBytes(g) {
		b = append(b, p...)
	}
	return b
}

// encodeBody encodes the payload up to its embeddings, padding included.
// Write sends the embeddings from the graph's own storage instead
// (embeddingBytes), so that saving a large graph does not copy them.
func encodeBody(g *Graph) []byte {
	size := 64 + len(g.Embedder) + len(g.Edges)*edgeSize + 4
	for i := range g.Nodes {
		size += nodeSize(&g.Nodes[i])
	}
	b := make([]byte, 0, size)
	b = appendString(b, g.Embedder)
	b = binary.AppendUvarint(b, uint64(g.Dim))
	b = binary.AppendUvarint(b, uint64(len(g.Nodes)))
	b = binary.AppendUvarint(b, uint64(len(g.Edges)))
	ranges := pageRanges(g)
	for i := range g.Nodes {
		b = appendNode(b, &g.Nodes[i], ranges)
	}
	for _, e := range g.Edges {
		b = binary.LittleEndian.AppendUint32(b, uint32(e.U))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.V))
		b = append(b, byte(e.Kind))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(e.Weight))
	}
	if g.build != nil {
		b = appendRecord(b, g.build)
	}
	if hasMetadata(g) {
		b = appendMetadata(b, g.Metadata)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// embeddingBytes returns the payload's embedding section, in order: the
// float32 rows, or (flagInt8) the scales then the int8 rows. The slices
// alias g's storage on a little-endian machine.
func embeddingBytes(g *Graph) [][]byte {
	if g.int8 {
		var q []byte
		if len(g.q8) > 0 {
			q = unsafe.Slice((*byte)(unsafe.Pointer(&g.q8[0])), len(g.q8))
		}
		return [][]byte{floatBytes(g.qscale), q}
	}
	return [][]byte{floatBytes(g.Emb)}
}

// floatBytes is v as little-endian bytes.
func floatBytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
	}
	return appendFloats(make([]byte, 0, 4*len(v)), v)
}

func appendFloats(b []byte, v []float32) []byte {
	if littleEndian && len(v) > 0 {
		return append(b, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))...)
	}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func nodeSize(n *Node) int {
	s := 45 + len(n.ID) + len(n.Doc) + len(n.Section) + len(n.Content) + len(n.Caption) +
		len(n.Footnote) + len(n.Summary) + len(n.ImageText) + len(n.Context)
	for _, k := range n.Keywords {
		s += 5 + len(k)
	}
	for _, k := range n.Tags {
		s += 5 + len(k)
	}
	if n.Image != nil {
		s += 10 + len(n.Image.Path) + len(n.Image.MIME)
	}
	return s
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

// pageRanges reports whether a node of g runs over several pages, so
// that the file stores every node's span (flagPageRanges).
func pageRanges(g *Graph) bool {
	for i := range g.Nodes {
		if pageSpan(&g.Nodes[i]) > 0 {
			return true
		}
	}
	return false
}

// pageSpan is how many pages past Page node n runs over (0 for one).
func pageSpan(n *Node) int {
	if n.Page >= 0 && n.LastPage > n.Page {
		return n.LastPage - n.Page
	}
	return 0
}

func appendNode(b []byte, n *Node, ranges bool) []byte {
	b = appendString(b, n.ID)
	b = appendString(b, n.Doc)
	b = binary.AppendVarint(b, int64(n.Page))
	if ranges {
		b = binary.AppendUvarint(b, uint64(pageSpan(n)))
	}
	b = binary.AppendVarint(b, int64(n.Order))
	b = append(b, byte(n.Modality))
	b = appendString(b, n.Section)
	b = appendString(b, n.Content)
	b = appendString(b, n.Caption)
	b = appendString(b, n.Footnote)
	b = appendString(b, n.Summary)
	b = appendStrings(b, n.Keywords)
	b = appendStrings(b, n.Tags)
	b = appendString(b, n.ImageText)
	b = appendImage(b, n.Image)
	b = appendString(b, n.Context)
	return b
}

// appendImage appends a flag byte and, when img is set, its path and type.
func appendImage(b []byte, img *ImageRef) []byte {
	if img == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = appendString(b, img.Path)
	return appendString(b, img.MIME)
}

// decoder reads a payload; the first error sticks and later reads return
// zero values.
type decoder struct {
	b   []byte
	off int
	err error
	// pool backs the string lists of successive nodes, so that a node's
	// Keywords and Tags take no allocation of their own.
	pool []string
	// next is the size of the next pool chunk.
	next int
}

var errShort = errors.New("unexpected end of payload")

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	// Fast paths: one byte, or two with a non-zero last byte.
	if b := d.b[d.off:]; len(b) > 0 && b[0] < 0x80 {
		d.off++
		return uint64(b[0])
	} else if len(b) > 1 && b[1]-1 < 0x7f {
		d.off += 2
		return uint64(b[0]&0x7f) | uint64(b[1])<<7
	}
	v, n := binary.Uvarint(d.b[d.off:])
	// A varint whose last byte is zero has a shorter encoding; the writer
	// never makes one, so accepting it would give two files for one graph.
	if n <= 0 || n > 1 && d.b[d.off+n-1] == 0 {
		d.fail(fmt.Errorf("bad varint at %d", d.off))
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) varint32() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 || n > 1 && d.b[d.off+n-1] == 0 || v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(fmt.Errorf("bad varint at %d", d.off))
		return 0
	}
	d.off += n
	return int(v)
}

// count reads a count of items that each take at least minBytes, so that a
// corrupt count cannot exceed what the payload could hold.
func (d *decoder) count(minBytes int) int {
	v := d.uvarint()
	if d.err == nil && v > uint64(len(d.b)-d.off)/uint64(minBytes) {
		d.fail(fmt.Errorf("count %d at %d exceeds the payload", v, d.off))
		return 0
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.fail(errShort)
		return 0
	}
	c := d.b[d.off]
	d.off++
	return c
}

// str returns a string aliasing the payload (which is never modified), so
// loading allocates no string data.
func (d *decoder) str() string {
	// Fast path: a one- or two-byte length whose bytes are all there.
	if b := d.b[d.off:]; d.err == nil && len(b) >= 2 {
		var n, k int
		if b[0] < 0x80 {
			n, k = int(b[0]), 1
		} else if b[1]-1 < 0x7f {
			n, k = int(b[0]&0x7f)|int(b[1])<<7, 2
		}
		if k > 0 && n <= len(b)-k {
			d.off += k + n
			if n == 0 {
				return ""
			}
			return unsafe.String(&b[k], n)
		}
	}
	n := d.count(1)
	if d.err != nil || n == 0 {
		return ""
	}
	s := unsafe.String(&d.b[d.off], n)
	d.off += n
	return s
}

func (d *decoder) strs() []string {
	n := d.count(1)
	if d.err != nil || n == 0 {
		return nil
	}
	if len(d.pool) < n {
		d.next = min(max(2*d.next, 64), 4096)
		d.pool = make([]string, max(n, d.next))
	}
	out := d.pool[:n:n] // full: an append by the user cannot reach the next list
	d.pool = d.pool[n:]
	for i := range out {
		out[i] = d.str()
	}
	return out
}

// minNode is the fewest bytes a node record takes.
const minNode = 17

// layout is what a payload's leading fields say about the rest of it.
type layout struct {
	name        string
	dim, nn, ne int
	body        int    // offset of the first node record
	emb         int    // offset of the embeddings, the payload's last embBytes bytes
	size        int    // payload length
	flags       uint32 // the header's flags (flagRecord: a build record follows the edges; flagInt8)
}

// int8 reports whether the embeddings are int8 rows: nn float32 scales,
// then nn*dim int8s.
func (l layout) int8() bool { return l.flags&flagInt8 != 0 }

// embBytes is the size of the embeddings of nn rows of dimension dim.
func embBytes(nn, dim uint64, flags uint32) uint64 {
	if flags&flagInt8 != 0 {
		return nn * (4 + dim)
	}
	return 4 * nn * dim
}

// floatEnd is the end of the embeddings' float32 values (all of them, or
// the scales of int8 rows), which must be finite.
func (l layout) floatEnd() int {
	if l.int8() {
		return l.emb + 4*l.nn
	}
	return l.size
}

// rowsAt and rowBytes place the embedding rows: row i at
// rowsAt + i*rowBytes.
func (l layout) rowsAt() int {
	if l.int8() {
		return l.floatEnd()
	}
	return l.emb
}

func (l layout) rowBytes() int {
	if l.int8() {
		return l.dim
	}
	return 4 * l.dim
}

// unitRowAt applies unitRow (or unitInt8) to row i of payload p.
func (l layout) unitRowAt(p []byte, i int) bool {
	a := l.rowsAt() + i*l.rowBytes()
	row := p[a : a+l.rowBytes()]
	if l.int8() {
		s := math.Float32frombits(binary.LittleEndian.Uint32(p[l.emb+4*i:]))
		return unitInt8(s, int8s(row))
	}
	return unitRow(floats(row))
}

func int8s(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// parseLayout reads the leading fields (embedder name, dimension, node and
// edge counts) of a payload of size bytes from p, which holds its first
// len(p) bytes. Counts are bounded by the bytes in p, so a prefix passes
// only if the whole payload would, with the same layout; when a prefix
// fails, more bytes may still make it pass.
func parseLayout(p []byte, size int, flags uint32) (layout, error) {
	d := &decoder{b: p}
	name := d.str()
	dim := d.uvarint()
	if d.err == nil && dim > maxDim {
		return layout{}, fmt.Errorf("dimension %d", dim)
	}
	nn := d.count(minNode)
	ne := d.count(edgeSize)
	if d.err != nil {
		return layout{}, d.err
	}
	eb := embBytes(uint64(nn), dim, flags)
	if eb > uint64(size-d.off) {
		return layout{}, fmt.Errorf("%d nodes of dimension %d exceed the payload", nn, dim)
	}
	return layout{name: name, dim: int(dim), nn: nn, ne: ne, body: d.off, emb: size - int(eb), size: size, flags: flags}, nil
}

func decodePayload(p []byte, flags uint32) (*Graph, error) {
	l, err := parseLayout(p, len(p), flags)
	if err != nil {
		return nil, err
	}
	// Check the embeddings for NaN and Inf while the nodes and edges are
	// decoded; nanAt is buffered, so returning early leaks no goroutine.
	nanAt := make(chan int, 1)
	if l.emb < l.floatEnd() {
		go func() { nanAt <- nonFinite(p[l.emb:l.floatEnd()]) }()
	} else {
		nanAt <- -1
	}
	nodes, edges, deg, tr, err := decodeBody(p, l)
	if err != nil {
		return nil, err
	}
	if i := <-nanAt; i >= 0 {
		return nil, l.nanError(i)
	}
	return l.graph(p, nodes, edges, deg, tr), nil
}

// nanError reports the node holding the i-th embedding float32 value.
func (l layout) nanError(i int) error {
	if l.int8() {
		return fmt.Errorf("node %d: %w (scale)", i, errNaN)
	}
	return fmt.Errorf("node %d: %w", i/l.dim, errNaN)
}

// graph makes the graph of a checked payload p, its embeddings aliasing p,
// from what decodeBody returned.
func (l layout) graph(p []byte, nodes []Node, edges []Edge, deg []int32, tr trailer) *Graph {
	g := &Graph{Nodes: nodes, Edges: edges, Embedder: l.name, build: tr.rec, Metadata: tr.meta}
	r := rows{dim: l.dim, i8: l.int8()}
	if l.int8() {
		r.s = floats(p[l.emb:l.floatEnd()])
		r.q = int8s(p[l.floatEnd():l.size])
	} else if l.nn*l.dim > 0 {
		r.f = floats(p[l.emb:l.size])
	}
	g.setRows(r)
	g.fillCSR(deg)
	return g
}

// trailer is what follows a payload's edges: the build record and the
// documents' metadata, each when l.flags says so.
type trailer struct {
	rec  *buildRecord
	meta map[string]map[string]string
}

// decodeBody decodes the nodes, edges, trailer and padding of payload p
// laid out as l, and counts the edges of each node i in deg[i+1]. It reads
// only p[:l.emb], so p may be a prefix holding that much.
func decodeBody(p []byte, l layout) (nodes []Node, edges []Edge, deg []int32, tr trailer, err error) {
	nodes, edges, deg, tr, _, err = decodeRecords(p, l)
	return
}

// decodeRecords is decodeBody that also returns the edge records' bytes
// within p (nothing aliases them once decoded).
func decodeRecords(p []byte, l layout) (nodes []Node, edges []Edge, deg []int32, tr trailer, edgeRecs []byte, err error) {
	p = p[:l.emb]
	d := &decoder{b: p, off: l.body}
	nodes = make([]Node, l.nn)
	for i := range nodes {
		n := &nodes[i]
		n.ID = d.str()
		n.Doc = d.str()
		n.Page = d.varint32()
		if l.flags&flagPageRanges != 0 {
			span := d.uvarint()
			if d.err == nil && (span > maxPage || int64(n.Page)+int64(span) > maxPage) {
				return nil, nil, nil, trailer{}, nil, fmt.Errorf("node %d: page span %d", i, span)
			}
			if span > 0 {
				n.LastPage = n.Page + int(span)
			}
		}
		n.Order = d.varint32()
		n.Modality = Modality(d.byte())
		if d.err == nil && n.Modality > ModalityFigure {
			return nil, nil, nil, trailer{}, nil, fmt.Errorf("node %d: modality %d", i, n.Modality)
		}
		n.Section = d.str()
		n.Content = d.str()
		n.Caption = d.str()
		n.Footnote = d.str()
		n.Summary = d.str()
		n.Keywords = d.strs()
		n.Tags = d.strs()
		n.ImageText = d.str()
		switch d.byte() {
		case 0:
		case 1:
			n.Image = &ImageRef{Path: d.str(), MIME: d.str()}
		default:
			d.fail(fmt.Errorf("node %d: bad image flag", i))
		}
		n.Context = d.str()
		if d.err != nil {
			return nil, nil, nil, trailer{}, nil, fmt.Errorf("node %d: %w", i, d.err)
		}
	}
	ne := l.ne
	if len(p)-d.off < ne*edgeSize {
		return nil, nil, nil, trailer{}, nil, errShort
	}
	// Edges are checked and counted per node (for the CSR) in one pass.
	edges = make([]Edge, ne)
	deg = make([]int32, l.nn+1)
	prev := int64(-1) // (U, V) of the previous edge as U<<32 | V
	eb := p[d.off : d.off+ne*edgeSize]
	for i := range edges {
		b := eb[i*edgeSize : i*edgeSize+edgeSize : i*edgeSize+edgeSize]
		e := Edge{
			U:      int32(binary.LittleEndian.Uint32(b)),
			V:      int32(binary.LittleEndian.Uint32(b[4:])),
			Kind:   EdgeKind(b[8]),
			Weight: math.Float32frombits(binary.LittleEndian.Uint32(b[9:])),
		}
		if e.U < 0 || e.U >= e.V || int(e.V) >= l.nn {
			return nil, nil, nil, trailer{}, nil, fmt.Errorf("edge %d: (%d,%d) with %d nodes", i, e.U, e.V, l.nn)
		}
		if key := int64(e.U)<<32 | int64(e.V); key > prev {
			prev = key
		} else {
			return nil, nil, nil, trailer{}, nil, fmt.Errorf("edge %d: not sorted", i)
		}
		if e.Kind == 0 || e.Kind > EdgeOrder|EdgeKNN|EdgeLink {
			return nil, nil, nil, trailer{}, nil, fmt.Errorf("edge %d: kind %d", i, e.Kind)
		}
		if !(e.Weight >= 0 && e.Weight <= 1+1e-5) {
			return nil, nil, nil, trailer{}, nil, fmt.Errorf("edge %d: weight %v", i, e.Weight)
		}
		edges[i] = e
		deg[e.U+1]++
		deg[e.V+1]++
	}
	d.off += ne * edgeSize
	if l.flags&flagRecord != 0 {
		if tr.rec, err = decodeRecord(d, nodes); err != nil {
			return nil, nil, nil, trailer{}, nil, err
		}
	}
	if l.flags&flagMetadata != 0 {
		if tr.meta, err = decodeMetadata(d); err != nil {
			return nil, nil, nil, trailer{}, nil, err
		}
	}
	for ; d.off%4 != 0; d.off++ {
		if d.off >= len(p) || p[d.off] != 0 {
			return nil, nil, nil, trailer{}, nil, fmt.Errorf("bad padding at %d", d.off)
		}
	}
	if d.off != l.emb {
		return nil, nil, nil, trailer{}, nil, fmt.Errorf("%d embedding bytes, want %d", l.size-d.off, l.size-l.emb)
	}
	return nodes, edges, deg, tr, eb, nil
}

// nonFinite returns the index of the first NaN or ±Inf among the
// little-endian float32s in b, or -1; a trailing partial value is ignored.
//
// A float32 is NaN or ±Inf exactly when its eight exponent bits are all
// ones. Two values are tested per uint64 word w: with x = w&exp, each 32-bit
// half of x+one reaches its top bit only when that half's exponent is all
// ones ((e+1)<<23 ≤ 0x7f800000 for e < 255), and a half never carries into
// the next. Eight words are OR-ed per step and looked at closer only when
// the step has a hit.
func nonFinite(b []byte) int {
	const (
		exp = 0x7f800000_7f800000
		one = 0x00800000_00800000
		top = 0x80000000_80000000
	)
	le := binary.LittleEndian
	i := 0
	for ; i+64 <= len(b); i += 64 {
		w := b[i : i+64 : i+64]
		x := (le.Uint64(w[0:])&exp + one) | (le.Uint64(w[8:])&exp + one) |
			(le.Uint64(w[16:])&exp + one) | (le.Uint64(w[24:])&exp + one) |
			(le.Uint64(w[32:])&exp + one) | (le.Uint64(w[40:])&exp + one) |
			(le.Uint64(w[48:])&exp + one) | (le.Uint64(w[56:])&exp + one)
		if x&top != 0 {
			break
		}
	}
	for ; i+4 <= len(b); i += 4 {
		if le.Uint32(b[i:])&0x7f800000 == 0x7f800000 {
			return i / 4
		}
	}
	return -1
}
