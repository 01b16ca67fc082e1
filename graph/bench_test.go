package graph_test

import (
	"context"
	"fmt"
	"github.com/flowreader/flowreader/internal/lab/cputime"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// synthCollection makes docs×items items: prose chunks of about 600
// characters with names, numbers and references, every 10th item a table
// and every 25th a figure.
func synthCollection(docs, items int) []graph.Document {
	r := rand.New(rand.NewPCG(42, 42))
	vocab := make([]string, 800)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("%c%s", 'a'+rune(i%26), strings.Repeat(string(rune('a'+(i*7)%26)), 2+i%7))
	}
	names := []string{"Camp North", "Lumen Labs", "Halvard Glacier", "Aurora Probe", "Storm Elda", "Kestrel Bay"}
	sentence := func() string {
		w := make([]string, 8+r.IntN(10))
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
		if r.IntN(3) == 0 {
			w[r.IntN(len(w))] = names[r.IntN(len(names))]
		}
		if r.IntN(3) == 0 {
			w[r.IntN(len(w))] = fmt.Sprintf("%d.%d", r.IntN(1000), r.IntN(10))
		}
		if r.IntN(5) == 0 {
			w[len(w)-1] = fmt.Sprintf("Table %d", 1+r.IntN(9))
		}
		return strings.Join(w, " ") + "."
	}
	out := make([]graph.Document, docs)
	for d := range out {
		its := make([]graph.Item, items)
		for i := range its {
			var b strings.Builder
			for b.Len() < 600 {
				b.WriteString(sentence())
				b.WriteByte(' ')
			}
			text := strings.Clone(strings.TrimSpace(b.String())) // exact size, as ingest chunks are
			switch {
			case i%10 == 9:
				its[i] = graph.Item{Modality: graph.ModalityTable, Text: "a | b | c\n1 | 2 | 3", Caption: fmt.Sprintf("Table %d: %s", i/10+1, sentence()), Page: i / 5, Context: text}
			case i%25 == 24:
				its[i] = graph.Item{Modality: graph.ModalityFigure, Caption: fmt.Sprintf("Figure %d: %s", i/25+1, sentence()), Page: i / 5, Context: text}
			default:
				its[i] = graph.Item{Modality: graph.ModalityText, Text: text, Section: "Section " + fmt.Sprint(i/20), Page: i / 5}
			}
		}
		out[d] = graph.Document{ID: fmt.Sprintf("doc%03d", d), Title: fmt.Sprint("Doc ", d), Items: its}
	}
	return out
}

// benchModel answers P1/P2/P3 cheaply and deterministically without
// recording calls (fake.Model keeps every request, too much at 10k nodes).
var benchModel = llmfunc.Model(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
	p := req.Messages[0].Parts[0].Text
	switch {
	case strings.HasPrefix(p, "Your task"):
		in := p[strings.LastIndex(p, "Input Text: \"")+13:]
		w := strings.Fields(in)
		w = w[:min(12, len(w))]
		return &llm.Response{Text: fmt.Sprintf(`{"keywords":[%q,%q],"summary":%q,"tags":["t"]}`, w[0], w[len(w)-1], strings.Join(w, " "))}, nil
	case strings.HasPrefix(p, "Generate"):
		c := p[strings.LastIndex(p, "and caption: ")+13:]
		c = c[:min(len(c), 80)]
		return &llm.Response{Text: fmt.Sprintf(`{"keywords":["k"],"summary":%q,"tags":["a"],"text_content":""}`, c)}, nil
	}
	return &llm.Response{Text: `{"suggested_connections":[0,2,4],"should_update":false,"new_summary":"","new_keywords":[]}`}, nil
})

// nodeTextBytes sums the string bytes a node holds.
func nodeTextBytes(n *graph.Node) int {
	s := len(n.ID) + len(n.Doc) + len(n.Section) + len(n.Content) + len(n.Caption) + len(n.Footnote) +
		len(n.Summary) + len(n.ImageText) + len(n.Context)
	for _, k := range n.Keywords {
		s += len(k)
	}
	for _, k := range n.Tags {
		s += len(k)
	}
	if n.Image != nil {
		s += len(n.Image.Path) + len(n.Image.MIME)
	}
	return s
}

func benchBuild(b *testing.B, model llm.Model) {
	const docs, items, dim = 100, 100, 768
	b.ReportAllocs()
	var perNode, goal float64
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		d := synthCollection(docs, items)
		bld := &graph.Builder{Embedder: &fake.Embedder{Dim: dim}, Model: model, Concurrency: runtime.GOMAXPROCS(0)}
		b.StartTimer()
		g, err := bld.Build(context.Background(), d)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		d = nil
		runtime.GC()
		runtime.ReadMemStats(&m1)
		text := 0
		for i := range g.Nodes {
			text += nodeTextBytes(&g.Nodes[i])
		}
		n := float64(len(g.Nodes))
		perNode = float64(m1.HeapAlloc-m0.HeapAlloc) / n
		goal = 1.25 * (4*dim + float64(text)/n)
		runtime.KeepAlive(g)
		b.StartTimer()
	}
	b.ReportMetric(perNode, "heapB/node")
	b.ReportMetric(goal, "goalB/node")
}

// BenchmarkBuild10k builds a 10,000-node collection offline (no model):
// analysis, embedding with the hashing embedder at d=768, reading-order and
// kNN edges.
func BenchmarkBuild10k(b *testing.B) { benchBuild(b, nil) }

// BenchmarkBuild10kModel adds a fake model: P1/P2 analysis and three P3
// evolution rounds (40,000 model calls, four kNN searches).
func BenchmarkBuild10kModel(b *testing.B) { benchBuild(b, benchModel) }

var saved struct {
	once sync.Once
	path string
	err  error
}

// TestMain removes the file savedGraph made (42.6 MB, in a folder of its
// own under the system's temporary folder) when the tests and benchmarks
// are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if saved.path != "" {
		os.RemoveAll(filepath.Dir(saved.path))
	}
	os.Exit(code)
}

// savedGraph builds (once per test binary) and saves the 10k offline graph.
func savedGraph(b *testing.B) string {
	saved.once.Do(func() {
		g, err := (&graph.Builder{Embedder: &fake.Embedder{Dim: 768}, Concurrency: runtime.GOMAXPROCS(0)}).
			Build(context.Background(), synthCollection(100, 100))
		if err != nil {
			saved.err = err
			return
		}
		dir, err := os.MkdirTemp("", "graphbench")
		if err != nil {
			saved.err = err
			return
		}
		saved.path = filepath.Join(dir, "g.flowgraph")
		saved.err = graph.Save(saved.path, g)
	})
	if saved.err != nil {
		b.Fatal(saved.err)
	}
	return saved.path
}

// BenchmarkLoad10k compares Load of the saved 10k graph with os.ReadFile of
// the same file (the goal is Load ≤ 2× ReadFile).
func BenchmarkLoad10k(b *testing.B) {
	p := savedGraph(b)
	st, _ := os.Stat(p)
	b.Run("Load", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		c0 := cputime.Now()
		for i := 0; i < b.N; i++ {
			if _, err := graph.Load(p); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, c0)
	})
	// Ratio alternates the two so that both see the same machine load, and
	// reports Load time / ReadFile time, in wall time and in the CPU time of
	// the process (all threads: Load's reader and decoder, and the GC). On a
	// busy machine Load's two goroutines get less than two cores, and the
	// wall ratio drifts towards the CPU ratio.
	b.Run("Ratio", func(b *testing.B) {
		var tl, tr, cl, cr time.Duration
		for i := 0; i < b.N; i++ {
			c0, t0 := cputime.Now(), time.Now()
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
			c1, t1 := cputime.Now(), time.Now()
			if _, err := graph.Load(p); err != nil {
				b.Fatal(err)
			}
			tl += time.Since(t1)
			cl += cputime.Now() - c1
			tr += t1.Sub(t0)
			cr += c1 - c0
		}
		b.ReportMetric(float64(tl)/float64(tr), "load/readfile")
		if cr > 0 {
			b.ReportMetric(float64(cl)/float64(cr), "cpu-load/cpu-readfile")
		}
	})
	b.Run("ReadFile", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		c0 := cputime.Now()
		for i := 0; i < b.N; i++ {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, c0)
	})
}

// reportCPU reports the process CPU time per op since c0 (all threads,
// the GC included), when the platform tells it.
func reportCPU(b *testing.B, c0 time.Duration) {
	if c := cputime.Now(); c0 > 0 && c > c0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}
