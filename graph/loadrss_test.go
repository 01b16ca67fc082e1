package graph_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// TestLoadPeakRSS writes a synthetic graph of FLOWREADER_LOAD_RSS nodes ×
// 768 (synth.Topics: the degree structure of a built graph) and loads it in
// a fresh process, which reports its peak resident memory against the
// embedding and text bytes (embeddings counted as float32, 4·N·d, whatever
// the file stores). FLOWREADER_LOAD_INT8=1 saves the graph with int8
// embeddings (Graph.WithInt8Embeddings). It runs only when
// FLOWREADER_LOAD_RSS is set; docs/scale.md has the figures.
func TestLoadPeakRSS(t *testing.T) {
	if p := os.Getenv("FLOWREADER_LOAD_FILE"); p != "" {
		loadChild(t, p)
		return
	}
	n, _ := strconv.Atoi(os.Getenv("FLOWREADER_LOAD_RSS"))
	if n <= 0 {
		t.Skip("set FLOWREADER_LOAD_RSS to a node count")
	}
	g := synth.Topics(t, n, 768)
	if os.Getenv("FLOWREADER_LOAD_INT8") != "" {
		g = g.WithInt8Embeddings()
	}
	path := filepath.Join(t.TempDir(), "g.flwg")
	if err := graph.Save(path, g); err != nil {
		t.Fatal(err)
	}
	text := textBytes(g)
	embBytes := 4 * len(g.Nodes) * g.Dim
	edges := len(g.Edges)
	g = nil
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadPeakRSS$", "-test.v")
	cmd.Env = append(os.Environ(), "FLOWREADER_LOAD_FILE="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var base, peak int64
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "rss" {
			base, _ = strconv.ParseInt(f[1], 10, 64)
			peak, _ = strconv.ParseInt(f[2], 10, 64)
		}
	}
	st, _ := os.Stat(path)
	t.Logf("%d nodes × 768, %d edges: file %d B, embeddings %d B, text %d B; peak RSS of Load %d B (process before Load %d B): %.3f × (embeddings + text)",
		n, edges, st.Size(), embBytes, text, peak, base, float64(peak)/float64(embBytes+text))
}

func loadChild(t *testing.T, path string) {
	base := hwm()
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	peak := hwm()
	os.Stdout.WriteString("\nrss " + strconv.FormatInt(base, 10) + " " + strconv.FormatInt(peak, 10) + "\n")
	// The denominator, for a file given directly (FLOWREADER_LOAD_FILE
	// without FLOWREADER_LOAD_RSS, e.g. one saved by bench scale --out).
	den := 4*len(g.Nodes)*g.Dim + textBytes(g)
	format := "float32"
	if g.Int8Embeddings() {
		format = "int8"
	}
	os.Stdout.WriteString("load " + strconv.Itoa(len(g.Nodes)) + " nodes (" + format + ") " + strconv.Itoa(len(g.Edges)) + " edges: float32 embeddings + text " + strconv.Itoa(den) +
		" B, peak " + strconv.FormatInt(peak, 10) + " B = " + strconv.FormatFloat(float64(peak)/float64(den), 'f', 3, 64) + " ×\n")
	// FLOWREADER_SAVE_TO saves the loaded graph there and reports the peak
	// again: what Save adds on top of the graph.
	if out := os.Getenv("FLOWREADER_SAVE_TO"); out != "" {
		if err := graph.Save(out, g); err != nil {
			t.Fatal(err)
		}
		after := hwm()
		os.Stdout.WriteString("save: peak " + strconv.FormatInt(after, 10) + " B, " + strconv.FormatInt(after-peak, 10) + " B above Load's\n")
		runtime.KeepAlive(g)
	}
}

func textBytes(g *graph.Graph) int {
	s := 0
	for i := range g.Nodes {
		n := &g.Nodes[i]
		s += len(n.ID) + len(n.Doc) + len(n.Section) + len(n.Content) + len(n.Caption) + len(n.Footnote) + len(n.Summary) + len(n.ImageText) + len(n.Context)
		for _, k := range n.Keywords {
			s += len(k)
		}
		for _, k := range n.Tags {
			s += len(k)
		}
	}
	return s
}

func hwm() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestLoadReleasedEdges round-trips a graph whose edge records span many
// pages, which Load releases once decoded: the nodes' strings (before them
// in the file) and the embeddings (after) must be intact.
func TestLoadReleasedEdges(t *testing.T) {
	g := synth.Topics(t, 3000, 16)
	path := filepath.Join(t.TempDir(), "g.flwg")
	if err := graph.Save(path, g); err != nil {
		t.Fatal(err)
	}
	h, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Nodes, h.Nodes) || !reflect.DeepEqual(g.Edges, h.Edges) || !reflect.DeepEqual(g.Emb, h.Emb) {
		t.Fatal("loaded graph differs")
	}
	runtime.GC()
	if !reflect.DeepEqual(g.Nodes, h.Nodes) {
		t.Fatal("loaded nodes changed after a GC")
	}
}
