package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// rawFile encodes g as Write would, without Write's checks: the bytes a
// crafted file (with valid checksums) would hold.
func rawFile(g *Graph) []byte {
	p := encodePayload(g)
	h := make([]byte, headerSize, headerSize+len(p))
	copy(h[0:8], magic)
	binary.LittleEndian.PutUint32(h[8:], formatVersion)
	binary.LittleEndian.PutUint64(h[16:], uint64(len(p)))
	binary.LittleEndian.PutUint32(h[24:], crc32.Checksum(p, castagnoli))
	binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
	return append(h, p...)
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// badGraphs are graphs the reader refuses, each made from a valid one.
func badGraphs(t *testing.T) map[string]*Graph {
	mk := func(edit func(g *Graph)) *Graph {
		g := randomGraph(t, 6, 4, 3)
		edit(g)
		return g
	}
	wide := randomGraph(t, 1, 0, 1)
	wide.Dim = maxDim + 1
	wide.Emb = make([]float32, maxDim+1)
	wide.Emb[0] = 1
	return map[string]*Graph{
		"page 3000000000":        mk(func(g *Graph) { g.Nodes[2].Page = 3000000000 }),
		"page 99999999999":       mk(func(g *Graph) { g.Nodes[0].Page = 99999999999 }),
		"order -3000000000":      mk(func(g *Graph) { g.Nodes[1].Order = -3000000000 }),
		"dimension 65537":        wide,
		"embeddings ×1e37":       mk(func(g *Graph) { scale(g.Emb, 1e37) }),
		"embeddings ×2":          mk(func(g *Graph) { scale(g.Emb[4:8], 2) }),
		"embedding NaN":          mk(func(g *Graph) { g.Emb[5] = float32(nan()) }),
		"modality 9":             mk(func(g *Graph) { g.Nodes[3].Modality = 9 }),
		"edge weight 2":          mk(func(g *Graph) { g.Edges[0].Weight = 2 }),
		"edges unsorted":         mk(func(g *Graph) { g.Edges[0], g.Edges[1] = g.Edges[1], g.Edges[0] }),
		"edge kind 0":            mk(func(g *Graph) { g.Edges[0].Kind = 0 }),
		"edge to a missing node": mk(func(g *Graph) { g.Edges[len(g.Edges)-1].V = 99 }),
	}
}

func scale(v []float32, f float32) {
	for i := range v {
		v[i] *= f
	}
}

func nan() float64 { z := 0.0; return z / z }

// The writer refuses, before writing a byte, every graph whose file the
// reader (Read and Load alike) refuses; a file crafted with valid checksums
// around such a graph is refused with ErrFormat, never read into a graph
// that scoring then trips over.
func TestWriteRefusesWhatReadRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, g := range badGraphs(t) {
		var w countWriter
		err := Write(&w, g)
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Write = %v, want ErrFormat", name, err)
		}
		if w.n != 0 {
			t.Errorf("%s: Write wrote %d bytes before refusing", name, w.n)
		}
		path := filepath.Join(dir, "g.flwg")
		if err := Save(path, g); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Save = %v, want ErrFormat", name, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: Save left a file: %v", name, err)
		}
		if name == "edge to a missing node" {
			continue // encodePayload would write a file that does not parse at all
		}
		raw := rawFile(g)
		if _, err := Read(bytes.NewReader(raw)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Read of the crafted file = %v, want ErrFormat", name, err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Load of the crafted file = %v, want ErrFormat", name, err)
		}
		os.Remove(path)
	}
	// A zero row (what normalize leaves of a zero vector) is fine both ways.
	g := randomGraph(t, 3, 4, 5)
	clear(g.Emb[4:8])
	h, err := Read(bytes.NewReader(encode(t, g)))
	if err != nil || len(h.Nodes) != 3 {
		t.Fatalf("graph with a zero row: %v", err)
	}
}
