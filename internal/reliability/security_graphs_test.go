package reliability

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm/fake"
)

// A content_list.json whose page_idx is 3000000000 or "99999999999" builds a
// graph that saves and loads again: integers from outside input are bounded
// at ingest (an out-of-range page index is treated as absent), where before
// build printed "wrote …" and ask then said "not a valid graph file".
func TestSecurityHugePageIndexBuildsAGraphThatLoads(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "report")
	if err := os.MkdirAll(doc, 0o755); err != nil {
		t.Fatal(err)
	}
	list := `[{"type":"text","text":"Kestrels nest on the north ridge.","page_idx":3000000000},
	{"type":"text","text":"Falcons hunt over the marsh.","page_idx":"99999999999"},
	{"type":"text","text":"Herons wade at dawn.","page_idx":-3000000000}]`
	if err := os.WriteFile(filepath.Join(doc, "report_content_list.json"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := ingest.Path(doc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctxTimeout(t, time.Minute), docs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "g.flwg")
	if err := graph.Save(path, g); err != nil {
		t.Fatal(err)
	}
	h, err := graph.Load(path)
	if err != nil {
		t.Fatalf("the saved graph does not load: %v", err)
	}
	if len(h.Nodes) != len(g.Nodes) || len(h.Nodes) == 0 {
		t.Fatalf("%d nodes loaded, %d built", len(h.Nodes), len(g.Nodes))
	}
}

// A document given to the library with a page the file format cannot hold
// is refused by Build (ErrDocument) before any model call, not by Save after
// an hours-long build; an embedder wider than the format's 65,536
// dimensions is refused by Build too.
func TestSecurityBuildRefusesWhatSaveWould(t *testing.T) {
	ctx := ctxTimeout(t, time.Minute)
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}})
	if err != nil {
		t.Fatal(err)
	}
	docs := []graph.Document{{ID: "d", Items: []graph.Item{{Modality: graph.ModalityText, Page: 3000000000, Text: "Kestrels nest on the north ridge."}}}}
	if _, err := p.Build(ctx, docs); !errors.Is(err, graph.ErrDocument) {
		t.Fatalf("Build with page 3000000000 = %v, want ErrDocument", err)
	}
	wide, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{Dim: 1<<16 + 1}})
	if err != nil {
		t.Fatal(err)
	}
	docs[0].Items[0].Page = 0
	if _, err := wide.Build(ctx, docs); !errors.Is(err, graph.ErrDimension) {
		t.Fatalf("Build with a 65,537-dimensional embedder = %v, want ErrDimension", err)
	}
}

// A graph file crafted with valid checksums whose embeddings are scaled by
// 1e37 (dot products overflow, scores go NaN: ask --preset classic panicked
// in MMR, the aspects presets failed with "mcf: arc 30 cost NaN") is refused
// by Load with ErrFormat; and a graph made in memory the same way, which no
// Load checked, is answered by every preset without a panic.
func TestSecurityScaledEmbeddingsNeverPanic(t *testing.T) {
	ctx := ctxTimeout(t, time.Minute)
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctx, corpus())
	if err != nil {
		t.Fatal(err)
	}
	good := encode(t, g)
	for i := range g.Emb {
		g.Emb[i] *= 1e37
	}
	if err := graph.Save(filepath.Join(t.TempDir(), "g.flwg"), g); !errors.Is(err, graph.ErrFormat) {
		t.Fatalf("Save of ×1e37 embeddings = %v, want ErrFormat", err)
	}
	path := filepath.Join(t.TempDir(), "crafted.flwg")
	if err := os.WriteFile(path, scaledFile(t, good, 1e37), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := graph.Load(path); !errors.Is(err, graph.ErrFormat) {
		t.Fatalf("Load of a crafted file with ×1e37 embeddings = %v, want ErrFormat", err)
	}
	for name, cfg := range map[string]flowreader.Config{"classic": flowreader.Classic(), "aspects": flowreader.Config{}, "aspects-paper": flowreader.PaperAspects()} {
		cfg.Embedder = &fake.Embedder{}
		q, err := flowreader.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panic on ×1e37 embeddings: %v", name, r)
				}
			}()
			if _, err := askOn(context.Background(), q, g, question); err != nil {
				t.Logf("%s: %v", name, err)
			}
		}()
	}
}

// scaledFile returns the graph file data (of a graph with embeddings) with
// every embedding value multiplied by f and both checksums fixed up: the
// embeddings are the payload's last nodes×dim float32s.
func scaledFile(t *testing.T, data []byte, f float32) []byte {
	t.Helper()
	g, err := graph.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), data...)
	emb := b[len(b)-4*len(g.Emb):]
	for i := 0; i+4 <= len(emb); i += 4 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(emb[i:]))
		binary.LittleEndian.PutUint32(emb[i:], math.Float32bits(x*f))
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	binary.LittleEndian.PutUint32(b[24:], crc32.Checksum(b[32:], tab))
	binary.LittleEndian.PutUint32(b[28:], crc32.Checksum(b[:28], tab))
	return b
}
