package graph

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// loadChunks are the read sizes the loader is tested with: tiny ones split
// the leading fields, node records and embedding values across reads.
var loadChunks = []int{1, 3, 8, 61, loadChunk}

// sameGraph fails unless g and h are identical, CSR included.
func sameGraph(t testing.TB, g, h *Graph) {
	t.Helper()
	if g.Dim != h.Dim || g.Embedder != h.Embedder || len(g.Nodes) != len(h.Nodes) ||
		!reflect.DeepEqual(g.Edges, h.Edges) || len(g.Emb) != len(h.Emb) {
		t.Fatalf("graphs differ: dim %d/%d, embedder %q/%q, %d/%d nodes, %d/%d edges",
			g.Dim, h.Dim, g.Embedder, h.Embedder, len(g.Nodes), len(h.Nodes), len(g.Edges), len(h.Edges))
	}
	if len(g.Nodes) > 0 && !reflect.DeepEqual(g.Nodes, h.Nodes) {
		t.Fatal("nodes differ")
	}
	if !reflect.DeepEqual(g.Metadata, h.Metadata) {
		t.Fatalf("metadata differs: %v, %v", g.Metadata, h.Metadata)
	}
	for i := range g.Emb {
		if math.Float32bits(g.Emb[i]) != math.Float32bits(h.Emb[i]) {
			t.Fatalf("embedding value %d differs", i)
		}
	}
	if g.int8 != h.int8 || !slices.Equal(g.q8, h.q8) || len(g.qscale) != len(h.qscale) {
		t.Fatalf("int8 embeddings differ: %v/%v, %d/%d values", g.int8, h.int8, len(g.q8), len(h.q8))
	}
	for i := range g.qscale {
		if math.Float32bits(g.qscale[i]) != math.Float32bits(h.qscale[i]) {
			t.Fatalf("scale %d differs", i)
		}
	}
	if !reflect.DeepEqual(g.off, h.off) || !reflect.DeepEqual(g.adj, h.adj) || !reflect.DeepEqual(g.eid, h.eid) {
		t.Fatal("CSR differs")
	}
}

// loadMatchesDecode checks that loading data (as a file holding it) at
// every chunk size gives what decode gives: the same error text or an
// identical graph. decode(data) is what Load did before it read in chunks.
func loadMatchesDecode(t testing.TB, data []byte) {
	t.Helper()
	want, werr := decode(data)
	for _, c := range loadChunks {
		got, err := loadFrom(bytes.NewReader(data), int64(len(data)), c)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("chunk %d: load err = %v, decode err = %v", c, err, werr)
		}
		if err == nil {
			sameGraph(t, want, got)
		}
	}
}

// corruptions returns the cases of TestReadErrors plus every prefix and
// every single-byte flip of data, the flips with the checksums fixed up too.
func corruptions(data []byte) [][]byte {
	var out [][]byte
	for i := 0; i <= len(data); i++ {
		out = append(out, data[:i])
	}
	out = append(out, append(append([]byte(nil), data...), 0))
	for i := 0; i < len(data); i++ {
		b := append([]byte(nil), data...)
		b[i] ^= 0x5a
		out = append(out, b)
		if i >= headerSize {
			b = append([]byte(nil), b...)
			rechecksum(b)
			out = append(out, b)
		}
	}
	return out
}

func TestLoadMatchesDecode(t *testing.T) {
	for _, n := range []int{0, 1, 7, 40} {
		g := randomGraph(t, n, 8, uint64(n))
		data := encode(t, g)
		loadMatchesDecode(t, data)
		h, err := loadFrom(bytes.NewReader(data), int64(len(data)), 5)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, g, h)
	}
	data := encode(t, randomGraph(t, 5, 4, 1))
	for _, b := range corruptions(data) {
		loadMatchesDecode(t, b)
	}
	// A NaN or Inf in any node's embedding names that node, whichever read
	// it arrives in, and the first one wins.
	for _, bits := range []uint32{0x7fc00000, 0xff800000, 0x7f800001} {
		for v := 0; v < 20; v++ {
			b := append([]byte(nil), data...)
			binary.LittleEndian.PutUint32(b[len(b)-4*(20-v):], bits)
			binary.LittleEndian.PutUint32(b[len(b)-4:], bits)
			rechecksum(b)
			loadMatchesDecode(t, b)
			if _, err := loadFrom(bytes.NewReader(b), int64(len(b)), 3); !errors.Is(err, ErrFormat) {
				t.Fatalf("nan at %d: %v", v, err)
			}
		}
	}
}

// TestLoadFileErrors runs the corruption cases through Load on real files.
func TestLoadFileErrors(t *testing.T) {
	data := encode(t, randomGraph(t, 5, 4, 1))
	dir := t.TempDir()
	p := filepath.Join(dir, "g")
	for i, b := range corruptions(data) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Load(p)
		_, werr := decode(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("case %d: Load err = %v, decode err = %v", i, err, werr)
		}
		for _, s := range []error{errTruncated, ErrFormat, errChecksum, errVersion} {
			if errors.Is(err, s) != errors.Is(werr, s) {
				t.Fatalf("case %d: Load err = %v, decode err = %v", i, err, werr)
			}
		}
		if err == nil {
			want, _ := decode(b)
			sameGraph(t, want, g)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// TestLoadSizeChanges: a file that shrinks or grows while it is read fails
// with errTruncated or ErrFormat, whichever read it happens in.
func TestLoadSizeChanges(t *testing.T) {
	data := encode(t, randomGraph(t, 40, 8, 2))
	for _, c := range loadChunks {
		for _, cut := range []int{1, 4, 100, len(data) - headerSize - 1} {
			_, err := loadFrom(bytes.NewReader(data[:len(data)-cut]), int64(len(data)), c)
			if !errors.Is(err, errTruncated) {
				t.Fatalf("chunk %d, shrunk by %d: %v", c, cut, err)
			}
		}
		for _, extra := range []int{1, 5000} {
			b := append(append([]byte(nil), data...), make([]byte, extra)...)
			_, err := loadFrom(bytes.NewReader(b), int64(len(data)), c)
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("chunk %d, grown by %d: %v", c, extra, err)
			}
		}
	}
	// The same on a real file, changed after the first read.
	dir := t.TempDir()
	p := filepath.Join(dir, "g")
	for _, c := range []struct {
		change func(*testing.T)
		want   error
	}{
		{func(t *testing.T) { // shrink
			if err := os.Truncate(p, int64(len(data)/2)); err != nil {
				t.Fatal(err)
			}
		}, errTruncated},
		{func(t *testing.T) { // grow
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte("more")); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
	} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		r := &hookReader{r: f, after: func() { c.change(t) }}
		_, err = loadFrom(r, int64(len(data)), 64)
		f.Close()
		if !errors.Is(err, c.want) {
			t.Fatalf("changed file: %v, want %v", err, c.want)
		}
	}
}

// hookReader calls after once, after its first read.
type hookReader struct {
	r     io.Reader
	after func()
}

func (h *hookReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.after != nil {
		h.after()
		h.after = nil
	}
	return n, err
}

// TestLoadReaders covers readers that return data with io.EOF, one byte at
// a time, or an error midway; and a pipe, which has no size.
func TestLoadReaders(t *testing.T) {
	g := randomGraph(t, 40, 8, 4)
	data := encode(t, g)
	for _, r := range []io.Reader{
		iotest.DataErrReader(bytes.NewReader(data)),
		iotest.OneByteReader(bytes.NewReader(data)),
		iotest.HalfReader(bytes.NewReader(data)),
	} {
		h, err := loadFrom(r, int64(len(data)), 1000)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, g, h)
	}
	boom := errors.New("boom")
	for _, at := range []int{10, 100, len(data) - 1, len(data)} {
		r := io.MultiReader(bytes.NewReader(data[:at]), iotest.ErrReader(boom))
		if _, err := loadFrom(r, int64(len(data)), 64); !errors.Is(err, boom) {
			t.Fatalf("error at %d: %v", at, err)
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		pw.Write(data)
		pw.Close()
	}()
	h, err := loadFile(pr)
	pr.Close()
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g, h)
}

// liarReader claims to have read more than it was asked for.
type liarReader struct{}

func (liarReader) Read(p []byte) (int, error) { return len(p) + 1, nil }

func TestLoadLiarReader(t *testing.T) {
	data := encode(t, randomGraph(t, 3, 4, 1))
	r := io.MultiReader(bytes.NewReader(data[:headerSize]), liarReader{})
	if _, err := loadFrom(r, int64(len(data)), 8); err == nil {
		t.Fatal("a reader that overreports was trusted")
	}
}

// TestCSR checks the CSR adjacency against neighbour lists built naively
// and sorted, on random graphs.
func TestCSR(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 50 {
		n := 1 + r.IntN(60)
		var edges []Edge
		for range r.IntN(4 * n) {
			edges = append(edges, Edge{U: int32(r.IntN(n)), V: int32(r.IntN(n)), Kind: EdgeKNN})
		}
		g, err := New(make([]Node, n), 0, nil, edges)
		if err != nil {
			t.Fatal(err)
		}
		type nb struct{ v, e int32 }
		want := make([][]nb, n)
		for i, e := range g.Edges {
			want[e.U] = append(want[e.U], nb{e.V, int32(i)})
			want[e.V] = append(want[e.V], nb{e.U, int32(i)})
		}
		for x := range n {
			slices.SortFunc(want[x], func(a, b nb) int { return cmp.Compare(a.v, b.v) })
			nbrs, eids := g.Neighbors(x)
			if len(nbrs) != len(want[x]) {
				t.Fatalf("trial %d node %d: %d neighbours, want %d", trial, x, len(nbrs), len(want[x]))
			}
			for j, w := range want[x] {
				if nbrs[j] != w.v || eids[j] != w.e {
					t.Fatalf("trial %d node %d: neighbour %d is (%d, edge %d), want (%d, edge %d)", trial, x, j, nbrs[j], eids[j], w.v, w.e)
				}
			}
		}
	}
}

// BenchmarkDecodeBody times Load's decode side (nodes, edges, CSR) on a
// 10k-node graph shaped like the Load10k one (prose content, ~7 keywords,
// ~15 edges per node), without the file and the embeddings.
func BenchmarkDecodeBody(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	word := func() string { return strings.Repeat(string(rune('a'+r.IntN(26))), 2+r.IntN(8)) }
	text := func(words int) string {
		w := make([]string, words)
		for i := range w {
			w[i] = word()
		}
		return strings.Join(w, " ")
	}
	const n = 10000
	nodes := make([]Node, n)
	for i := range nodes {
		kw := make([]string, 7)
		for j := range kw {
			kw[j] = word()
		}
		nodes[i] = Node{ID: fmt.Sprintf("doc%d#%d", i/100, i%100), Doc: fmt.Sprintf("doc%d", i/100), Page: i % 7, Order: i % 100,
			Section: text(3), Content: text(100), Summary: text(20), Keywords: kw, Context: text(5)}
	}
	var edges []Edge
	for i := range n {
		for range 15 {
			edges = append(edges, Edge{U: int32(i), V: int32(r.IntN(n)), Kind: EdgeKNN})
		}
	}
	g, err := New(nodes, 0, nil, edges)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, g); err != nil {
		b.Fatal(err)
	}
	p := buf.Bytes()[headerSize:]
	l, err := parseLayout(p, len(p), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(l.emb))
	b.ReportAllocs()
	for b.Loop() {
		nodes, edges, deg, tr, err := decodeBody(p, l)
		if err != nil {
			b.Fatal(err)
		}
		l.graph(p, nodes, edges, deg, tr)
	}
}

// TestLoadLarge loads a file of several chunks through Load and checks the
// graph is the one saved.
func TestLoadLarge(t *testing.T) {
	g := randomGraph(t, 3000, 48, 11)
	p := filepath.Join(t.TempDir(), "g")
	if err := Save(p, g); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 3*loadChunk {
		t.Fatalf("file of %d bytes, want several chunks", st.Size())
	}
	h, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g, h)
}
