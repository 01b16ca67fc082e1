package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// randomGraph makes a graph with every node field set.
func randomGraph(t testing.TB, n, dim int, seed uint64) *Graph {
	r := rand.New(rand.NewPCG(seed, 1))
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i] = Node{
			ID: "doc#" + string(rune('a'+i%26)), Doc: "doc", Page: i%3 - 1, Order: i,
			Modality: Modality(i % 3), Section: "Sec", Content: "content ü " + string(rune('A'+i%26)),
			Caption: "cap", Footnote: "", Summary: "summary", Keywords: []string{"k1", "Table 3"},
			Tags: nil, ImageText: "txt", Context: "ctx",
		}
		if i%2 == 0 {
			nodes[i].Image = &ImageRef{Path: "images/x.png", MIME: "image/png"}
		}
	}
	emb := make([]float32, n*dim)
	for i := range emb {
		emb[i] = float32(r.NormFloat64())
	}
	var edges []Edge
	for i := 0; i+1 < n; i++ {
		edges = append(edges, Edge{U: int32(i), V: int32(i + 1), Kind: EdgeOrder})
		if i+3 < n {
			edges = append(edges, Edge{U: int32(i + 3), V: int32(i), Kind: EdgeKNN | EdgeLink})
		}
	}
	g, err := New(nodes, dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	g.Embedder = "fake-hash-8"
	return g
}

func encode(t testing.TB, g *Graph) []byte {
	var b bytes.Buffer
	if err := Write(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 7, 40} {
		g := randomGraph(t, n, 8, uint64(n))
		data := encode(t, g)
		h, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !reflect.DeepEqual(g.Nodes, h.Nodes) && n > 0 {
			t.Fatalf("nodes differ")
		}
		if !reflect.DeepEqual(g.Edges, h.Edges) || g.Dim != h.Dim || g.Embedder != h.Embedder || !reflect.DeepEqual(g.Emb, h.Emb) && n > 0 {
			t.Fatalf("graph differs")
		}
		for i := 0; i < n; i++ {
			a, ea := g.Neighbors(i)
			b, eb := h.Neighbors(i)
			if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ea, eb) {
				t.Fatalf("CSR differs at %d", i)
			}
		}
		if again := encode(t, h); !bytes.Equal(again, data) {
			t.Fatalf("n=%d: re-encoding differs", n)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g.flowgraph")
	g := randomGraph(t, 20, 8, 3)
	if err := Save(p, g); err != nil {
		t.Fatal(err)
	}
	if err := Save(p, g); err != nil { // overwrite
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temp files left: %v", ents)
	}
	h, err := Load(p)
	if err != nil || len(h.Nodes) != 20 {
		t.Fatalf("%v", err)
	}
	if err := Save(filepath.Join(dir, "missing", "g"), g); err == nil {
		t.Fatal("save into missing folder succeeded")
	}
}

func rechecksum(data []byte) {
	binary.LittleEndian.PutUint32(data[24:], crc32.Checksum(data[headerSize:], castagnoli))
	binary.LittleEndian.PutUint32(data[28:], crc32.Checksum(data[:28], castagnoli))
}

func TestReadErrors(t *testing.T) {
	data := encode(t, randomGraph(t, 5, 4, 1))
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), data...)) }
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, errTruncated},
		{"magic", mut(func(b []byte) []byte { b[0] = 'X'; return b }), ErrFormat},
		{"version", mut(func(b []byte) []byte { b[8] = 2; rechecksum(b); return b }), errVersion},
		{"header crc", mut(func(b []byte) []byte { b[16]++; return b }), errChecksum},
		{"payload crc", mut(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), errChecksum},
		{"truncated", data[:len(data)-3], errTruncated},
		{"trailing", append(append([]byte(nil), data...), 0), ErrFormat},
		{"huge length", mut(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[16:], 1<<50)
			binary.LittleEndian.PutUint32(b[28:], crc32.Checksum(b[:28], castagnoli))
			return b
		}), errTruncated},
		{"nan", mut(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-4:], 0x7fc00000)
			rechecksum(b)
			return b
		}), ErrFormat},
	}
	for _, c := range cases {
		_, err := Read(bytes.NewReader(c.data))
		if c.name == "trailing" { // Read stops after one graph; Load rejects the rest
			err = errors.Join(err, ErrFormat)
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Read err = %v, want %v", c.name, err, c.want)
		}
		if c.name != "huge length" {
			if _, err := decode(c.data); !errors.Is(err, c.want) {
				t.Errorf("%s: decode err = %v, want %v", c.name, err, c.want)
			}
		}
	}
	// Every prefix fails cleanly.
	for i := 0; i < len(data); i++ {
		if _, err := Read(bytes.NewReader(data[:i])); !errors.Is(err, errTruncated) {
			t.Fatalf("prefix %d: %v", i, err)
		}
	}
	// Every single-byte corruption of the payload is caught by the checksum;
	// with the checksum fixed up, decoding still fails cleanly or succeeds.
	for i := headerSize; i < len(data); i++ {
		b := append([]byte(nil), data...)
		b[i] ^= 0x5a
		if _, err := Read(bytes.NewReader(b)); !errors.Is(err, errChecksum) {
			t.Fatalf("flip at %d: %v", i, err)
		}
		rechecksum(b)
		Read(bytes.NewReader(b))
	}
}

func FuzzRead(f *testing.F) {
	f.Add(encode(f, randomGraph(f, 3, 4, 1)))
	f.Add(encode(f, randomGraph(f, 0, 0, 1)))
	f.Add(encode(f, recordGraph(f, 5, 4)))
	f.Add(encode(f, metadataGraph(f)))
	f.Add(encode(f, int8Graph(randomGraph(f, 6, 5, 2))))
	f.Add(encode(f, int8Graph(randomGraph(f, 0, 3, 2))))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Most mutations die at the checksum; also try with it fixed up so the
		// payload decoder itself gets exercised. Load, which reads in chunks
		// and decodes while it reads, must agree with decode on both.
		Read(bytes.NewReader(data))
		loadMatchesDecode(t, data)
		if len(data) >= headerSize {
			b := append([]byte(nil), data...)
			copy(b, magic)
			binary.LittleEndian.PutUint32(b[8:], formatVersion)
			binary.LittleEndian.PutUint32(b[12:], binary.LittleEndian.Uint32(data[12:])&(flagRecord|flagInt8|flagPageRanges|flagMetadata))
			binary.LittleEndian.PutUint64(b[16:], uint64(len(b)-headerSize))
			rechecksum(b)
			loadMatchesDecode(t, b)
			g, err := Read(bytes.NewReader(b))
			if err == nil {
				// A graph that loads must be usable and re-encode identically.
				for i := 0; i < len(g.Nodes); i++ {
					g.Neighbors(i)
					g.Embedding(i)
				}
				if !bytes.Equal(encode(t, g), b) {
					t.Fatal("re-encoding differs")
				}
			}
		}
	})
}

// TestNonFinite checks the word-at-a-time test against math.IsNaN/IsInf on
// special and random bit patterns, at every position and length.
func TestNonFinite(t *testing.T) {
	special := []uint32{
		0, 0x80000000, 1, 0x007fffff, 0x00800000, 0x3f800000, 0xbf800000,
		0x7f7fffff, 0xff7fffff, // largest finite
		0x7f800000, 0xff800000, // ±Inf
		0x7f800001, 0x7fc00000, 0x7fffffff, 0xff800001, 0xffffffff, // NaNs
		0x7f000000, 0x00ffffff, 0x7e800000, 0x3f800000 | 0x00400000,
	}
	r := rand.New(rand.NewPCG(7, 7))
	want := func(u []uint32) int {
		for i, x := range u {
			f := float64(math.Float32frombits(x))
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return i
			}
		}
		return -1
	}
	toBytes := func(u []uint32, extra int) []byte {
		b := make([]byte, 0, 4*len(u)+extra)
		for _, x := range u {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		for range extra { // a trailing partial value is ignored
			b = append(b, 0xff)
		}
		return b
	}
	check := func(u []uint32) {
		t.Helper()
		for extra := range 4 {
			if got, w := nonFinite(toBytes(u, extra)), want(u); got != w {
				t.Fatalf("nonFinite(%x + %d bytes) = %d, want %d", u, extra, got, w)
			}
		}
	}
	for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 32, 33, 100} {
		finite := make([]uint32, n)
		for i := range finite {
			finite[i] = uint32(r.Uint64()) &^ 0x40000000 // exponent ≤ 0xbf... < all ones
		}
		check(finite)
		for pos := range n {
			for _, s := range special {
				u := append([]uint32(nil), finite...)
				u[pos] = s
				check(u)
			}
		}
	}
	// Random words, with all-ones exponents made common.
	for range 20000 {
		u := make([]uint32, r.IntN(40))
		for i := range u {
			u[i] = uint32(r.Uint64())
			if r.IntN(8) == 0 {
				u[i] |= 0x7f800000
			}
		}
		check(u)
	}
	// Every exponent, both signs, a few mantissas.
	for e := uint32(0); e < 256; e++ {
		for _, m := range []uint32{0, 1, 0x400000, 0x7fffff} {
			for _, s := range []uint32{0, 0x80000000} {
				u := make([]uint32, 24)
				u[17] = s | e<<23 | m
				check(u)
			}
		}
	}
}

func BenchmarkNonFinite(b *testing.B) {
	for _, size := range []int{256 << 10, 30 << 20} {
		buf := make([]byte, size)
		r := rand.New(rand.NewPCG(1, 1))
		for i := 0; i+4 <= len(buf); i += 4 {
			binary.LittleEndian.PutUint32(buf[i:], math.Float32bits(float32(r.NormFloat64())))
		}
		b.Run(fmt.Sprint(size>>10, "KiB"), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if nonFinite(buf) >= 0 {
					b.Fatal("hit")
				}
			}
		})
	}
}

// TestUvarint checks the decoder's varint fast paths against
// binary.Uvarint plus the minimal-encoding rule, on every one- and two-byte
// input and on random longer ones.
func TestUvarint(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		wantV, wantN := binary.Uvarint(b)
		ok := wantN > 0 && (wantN == 1 || b[wantN-1] != 0)
		d := &decoder{b: b}
		v := d.uvarint()
		if ok != (d.err == nil) || ok && (v != wantV || d.off != wantN) {
			t.Fatalf("uvarint(%x) = %d at %d, err %v; want %d at %d, ok %v", b, v, d.off, d.err, wantV, wantN, ok)
		}
	}
	check(nil)
	for x := range 1 << 16 {
		check([]byte{byte(x)})
		check([]byte{byte(x), byte(x >> 8)})
		check([]byte{byte(x), byte(x >> 8), 0x01})
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 100000 {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = byte(r.Uint64())
			if r.IntN(3) > 0 {
				b[i] |= 0x80
			}
		}
		check(b)
	}
}

// TestStr checks the decoder's string fast path against the rule: a
// minimal uvarint length, then that many bytes, all present.
func TestStr(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		v, k := binary.Uvarint(b)
		ok := k > 0 && (k == 1 || b[k-1] != 0) && v <= uint64(len(b)-k)
		d := &decoder{b: b}
		s := d.str()
		if ok != (d.err == nil) || ok && (s != string(b[k:k+int(v)]) || d.off != k+int(v)) {
			t.Fatalf("str(%x) = %q at %d, err %v; want ok %v", b, s, d.off, d.err, ok)
		}
	}
	tail := bytes.Repeat([]byte("xyz"), 200)
	for x := range 1 << 16 {
		for _, m := range []int{0, 1, 2, 127, 128, 300, 600} {
			b := append([]byte{byte(x), byte(x >> 8)}, tail[:m]...)
			check(b)
			check(b[:1])
		}
	}
	check(nil)
}

// recordGraph is randomGraph with a build record: its nodes in documents
// of two nodes each (the last may have one), and a document with none.
func recordGraph(t testing.TB, n, dim int) *Graph {
	g := randomGraph(t, n, dim, 3)
	rec := &buildRecord{knn: 0, window: 3, mentions: true}
	for i := 0; i < n; i += 2 {
		id := fmt.Sprintf("doc%d", i/2)
		m := min(2, n-i)
		for j := i; j < i+m; j++ {
			g.Nodes[j].Doc = id
		}
		rec.docs = append(rec.docs, docRecord{id: id, hash: docHash{byte(i), 7}, nodes: m})
	}
	rec.docs = append(rec.docs, docRecord{id: "empty", nodes: 0})
	g.build = rec
	return g
}

// A build record survives Write and Read (and Load), and one that does not
// fit the nodes is ErrFormat; files without one still read.
func TestRecordRoundTrip(t *testing.T) {
	g := recordGraph(t, 7, 4)
	data := encode(t, g)
	if binary.LittleEndian.Uint32(data[12:]) != flagRecord {
		t.Fatal("flag not set")
	}
	h, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.build, g.build) {
		t.Fatalf("record %+v, want %+v", h.build, g.build)
	}
	loadMatchesDecode(t, data)
	if !bytes.Equal(encode(t, h), data) {
		t.Fatal("re-encoding differs")
	}
	for _, bad := range []func(r *buildRecord){
		func(r *buildRecord) { r.docs[0].nodes++ },
		func(r *buildRecord) { r.docs[1].id = r.docs[0].id },
		func(r *buildRecord) { r.docs[0].id = "other" },
		func(r *buildRecord) { r.docs = r.docs[1:] },
		func(r *buildRecord) { r.knn = -5 },
	} {
		b := recordGraph(t, 7, 4)
		bad(b.build)
		if _, err := Read(bytes.NewReader(encode(t, b))); !errors.Is(err, ErrFormat) {
			t.Errorf("bad record read: %v", err)
		}
	}
	// An unknown flag is still refused.
	data[12] |= 2
	rechecksum(data)
	if _, err := Read(bytes.NewReader(data)); !errors.Is(err, ErrFormat) {
		t.Errorf("unknown flag: %v", err)
	}
}

// Page ranges: a graph with a node over several pages sets the flag and
// keeps every node's range through Write, Read, Save and Load; a range on
// a node of unknown page, or not above its page, is one page and does not
// set the flag.
func TestPageRangesRoundTrip(t *testing.T) {
	g := randomGraph(t, 6, 8, 3)
	g.Nodes[0].LastPage = 5 // page -1: unknown, no range
	g.Nodes[1].LastPage = 0 // page 0: one page
	if flags := binary.LittleEndian.Uint32(encode(t, g)[12:]); flags != 0 {
		t.Fatalf("no range: flags %d", flags)
	}
	g.Nodes[2].LastPage = 4 // page 1 to 5
	data := encode(t, g)
	if flags := binary.LittleEndian.Uint32(data[12:]); flags != flagPageRanges {
		t.Fatalf("flags %d", flags)
	}
	h, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := range h.Nodes {
		if a, b := pageSpan(&g.Nodes[i]), pageSpan(&h.Nodes[i]); a != b || h.Nodes[i].Page != g.Nodes[i].Page {
			t.Errorf("node %d: span %d, read %d", i, a, b)
		}
	}
	if h.Nodes[2].LastPage != 4 {
		t.Errorf("last page %d", h.Nodes[2].LastPage)
	}
	p := filepath.Join(t.TempDir(), "g.frg")
	if err := Save(p, g); err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil || l.Nodes[2].LastPage != 4 || l.Nodes[3].LastPage != 0 {
		t.Fatalf("load: %v", err)
	}
	// A span past 32 bits is refused.
	g.Nodes[2].Page, g.Nodes[2].LastPage = 1, math.MaxInt32+1
	if err := Write(&bytes.Buffer{}, g); !errors.Is(err, ErrFormat) {
		t.Fatalf("huge span: %v", err)
	}
}
