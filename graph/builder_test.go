package graph_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

const (
	p1Marker = "Your task is to extract ALL concrete entities"
	p2Marker = "Generate a structured analysis of the visual elements"
	p3Marker = "You are an AI memory evolution agent"
)

// fixtureDocs ingests the shared fixture collection.
func fixtureDocs(t testing.TB) []graph.Document {
	t.Helper()
	docs, err := ingest.Path("ingest/testdata/collection")
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// newFakeModel answers P1, P2 and P3 deterministically from the prompt.
func newFakeModel() *fake.Model {
	m := &fake.Model{Strict: true}
	m.Rules = []fake.Rule{
		{Contains: p1Marker, Respond: func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			p := fake.Prompt(req)
			in := p[strings.LastIndex(p, "Input Text: \"")+len("Input Text: \""):]
			in = strings.TrimSuffix(strings.TrimSpace(in), "\"\nOutput JSON:")
			if strings.Contains(in, "battery lasted") {
				return &llm.Response{Text: `{"keywords":[],"summary":"No meaningful information.","tags":[]}`}, nil
			}
			words := strings.Fields(in)
			sum := "Summary: " + strings.Join(words[:min(6, len(words))], " ")
			return &llm.Response{Text: fmt.Sprintf("Here you go:\n```json\n{\"keywords\":[%q,%q],\"summary\":%q,\"tags\":[\"Test\"],}\n```",
				words[0], words[len(words)-1], sum)}, nil
		}},
		{Contains: p2Marker, Respond: func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			p := fake.Prompt(req)
			cap := p[strings.LastIndex(p, "and caption: ")+len("and caption: "):]
			if i := strings.Index(cap, "\n"); i >= 0 {
				cap = cap[:i]
			}
			return &llm.Response{Text: fmt.Sprintf(`{"keywords":["visual"],"summary":%q,"tags":["A","B","C"],"text_content":%q}`,
				"Visual — "+strings.TrimSpace(cap), cap)}, nil
		}},
		{Contains: p3Marker, Respond: func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			p := fake.Prompt(req)
			if strings.Contains(p, "The memory note content: Field Notes: Camp Ridge") {
				return &llm.Response{Text: `{"suggested_connections": [1, "0", 99], "should_update": True, "new_summary": "Camp Ridge station set-up (evolved).", "new_keywords": ["Camp Ridge", "Mara Lind"]}`}, nil
			}
			return &llm.Response{Text: `{"suggested_connections":[0,1],"should_update":false,"new_summary":"","new_keywords":[]}`}, nil
		}},
	}
	return m
}

func build(t testing.TB, b *graph.Builder, docs []graph.Document) *graph.Graph {
	t.Helper()
	g, err := b.Build(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func encoded(t testing.TB, g *graph.Graph) []byte {
	var buf bytes.Buffer
	if err := graph.Write(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBuildGolden(t *testing.T) {
	docs := fixtureDocs(t)
	m, e := newFakeModel(), named{&fake.Embedder{Dim: 32}}
	g := build(t, &graph.Builder{Embedder: e, Model: m, Cache: llmutil.NewMemoryStore()}, docs)

	// 5 + 8 + 1 items, minus the chunk the model calls meaningless.
	if len(g.Nodes) != 13 {
		t.Fatalf("%d nodes", len(g.Nodes))
	}
	count := map[graph.Modality]int{}
	for _, n := range g.Nodes {
		count[n.Modality]++
		if strings.Contains(n.Content, "battery lasted") {
			t.Errorf("meaningless node %s kept", n.ID)
		}
		if n.Modality == graph.ModalityText && !strings.HasPrefix(n.Summary, "Summary: ") && n.Summary != "Camp Ridge station set-up (evolved)." {
			t.Errorf("node %s summary %q", n.ID, n.Summary)
		}
	}
	if count[graph.ModalityText] != 8 || count[graph.ModalityTable] != 2 || count[graph.ModalityFigure] != 3 {
		t.Fatalf("modalities %v", count)
	}
	byID := map[string]*graph.Node{}
	for i := range g.Nodes {
		byID[g.Nodes[i].ID] = &g.Nodes[i]
	}
	tab := byID["report#2"]
	if tab == nil || tab.Summary != "Visual — Table 3: Mean meltwater flow per station (litres per second). Values averaged over the trial." ||
		tab.Image == nil || tab.Image.Path != "ingest/testdata/collection/report/images/flow_table.png" {
		t.Fatalf("table node %+v", tab)
	}
	if n := byID["notes/field-notes.md#0"]; n.Summary != "Camp Ridge station set-up (evolved)." || strings.Join(n.Keywords, ",") != "Camp Ridge,Mara Lind" {
		t.Fatalf("evolved node %+v", n)
	}
	if g.Dim != 32 || g.Embedder != "hash-32" {
		t.Fatalf("dim %d embedder %q", g.Dim, g.Embedder)
	}
	// Edges: reading order only between text nodes of one document.
	kinds := map[graph.EdgeKind]int{}
	for _, ed := range g.Edges {
		u, v := g.Nodes[ed.U], g.Nodes[ed.V]
		for _, k := range []graph.EdgeKind{graph.EdgeOrder, graph.EdgeKNN, graph.EdgeLink} {
			if ed.Kind&k != 0 {
				kinds[k]++
			}
		}
		if ed.Kind&graph.EdgeOrder != 0 && (u.Doc != v.Doc || u.Modality != graph.ModalityText || v.Modality != graph.ModalityText || v.Order-u.Order > 6) {
			t.Errorf("bad order edge %s-%s", u.ID, v.ID)
		}
		if ed.Weight < 0 || ed.Weight > 1.0001 {
			t.Errorf("weight %v", ed.Weight)
		}
	}
	if kinds[graph.EdgeOrder] == 0 || kinds[graph.EdgeKNN] == 0 || kinds[graph.EdgeLink] == 0 {
		t.Fatalf("edge kinds %v", kinds)
	}
	k := min(max(int(math.Ceil(math.Log2(float64(len(g.Nodes))))), 3), 32) // v3 App. A.1
	for i := 0; i < len(g.Nodes); i++ {
		if nb, _ := g.Neighbors(i); len(nb) < k {
			t.Errorf("node %d degree %d < k=%d", i, len(nb), k)
		}
	}
	// Report nodes in reading order: text(0) text(1) table(2) text(3).
	if !hasEdge(g, "report#0", "report#1", graph.EdgeOrder) || !hasEdge(g, "report#1", "report#3", graph.EdgeOrder) {
		t.Error("missing reading-order edges")
	}
	if hasEdge(g, "report#2", "report#3", graph.EdgeOrder) {
		t.Error("visual node has a reading-order edge")
	}
}

func hasEdge(g *graph.Graph, a, b string, k graph.EdgeKind) bool {
	ia, ib := -1, -1
	for i, n := range g.Nodes {
		switch n.ID {
		case a:
			ia = i
		case b:
			ib = i
		}
	}
	if ia < 0 || ib < 0 {
		return false
	}
	nb, eids := g.Neighbors(ia)
	for t, j := range nb {
		if int(j) == ib && g.Edges[eids[t]].Kind&k != 0 {
			return true
		}
	}
	return false
}

func TestBuildDeterministic(t *testing.T) {
	docs := fixtureDocs(t)
	var prev []byte
	for run := 0; run < 2; run++ {
		g := build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 32}, Model: newFakeModel(), Concurrency: 1 + 3*run}, docs)
		b := encoded(t, g)
		if prev != nil && !bytes.Equal(prev, b) {
			t.Fatal("two builds differ")
		}
		prev = b
	}
	off1 := encoded(t, build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 16}}, docs))
	off2 := encoded(t, build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 16}, Concurrency: 3}, docs))
	if !bytes.Equal(off1, off2) {
		t.Fatal("offline builds differ")
	}
}

func TestRebuildMakesNoCalls(t *testing.T) {
	docs := fixtureDocs(t)
	store := llm.DirStore(t.TempDir())
	m := newFakeModel()
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 32}, Model: m, Cache: store}
	g1 := build(t, b, docs)
	if len(m.Calls()) == 0 {
		t.Fatal("first build made no model calls")
	}
	// The rebuild's embedder fails every call, and its model is a fresh one
	// that records them: the cache must answer everything.
	m2 := &fake.Model{Strict: true}
	b.Model, b.Embedder = m2, &fake.Embedder{Dim: 32, Err: errors.New("embedder called")}
	g2 := build(t, b, docs)
	if n := len(m2.Calls()); n != 0 {
		t.Fatalf("rebuild made %d model calls", n)
	}
	if !bytes.Equal(encoded(t, g1), encoded(t, g2)) {
		t.Fatal("cached rebuild differs")
	}
}

// failingModel fails every call after the first `after` successes.
type failingModel struct {
	m     llm.Model
	after int64
	ok    atomic.Int64
}

// Name is the wrapped model's, so both builds share cache keys.
func (f *failingModel) Name() string {
	if n, ok := f.m.(llm.Namer); ok {
		return n.Name()
	}
	return ""
}

func (f *failingModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if f.ok.Load() >= f.after {
		return nil, errors.New("injected failure")
	}
	r, err := f.m.Generate(ctx, req)
	if err == nil {
		f.ok.Add(1)
	}
	return r, err
}

func TestResumeAfterFailure(t *testing.T) {
	docs := fixtureDocs(t)
	// A full build from scratch gives the total number of distinct model
	// calls (the cache also answers repeats within one build, for example a
	// P3 prompt that did not change between rounds).
	full := newFakeModel()
	build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 32}, Model: full, Cache: llmutil.NewMemoryStore()}, docs)
	total := len(full.Calls())
	for _, conc := range []int{1, 4} {
		for _, after := range []int64{5, int64(total) - 7} { // in analysis; in round 3
			store := llmutil.NewMemoryStore()
			fm := &failingModel{m: newFakeModel(), after: after}
			_, err := (&graph.Builder{Embedder: &fake.Embedder{Dim: 32}, Model: fm, Cache: store, Concurrency: conc}).Build(context.Background(), docs)
			if err == nil || !strings.Contains(err.Error(), "injected failure") {
				t.Fatalf("conc %d after %d: err = %v", conc, after, err)
			}
			m := newFakeModel()
			build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 32}, Model: m, Cache: store, Concurrency: conc}, docs)
			if got, want := len(m.Calls()), total-int(fm.ok.Load()); got != want {
				t.Errorf("conc %d after %d: resume made %d calls, want %d (total %d)", conc, after, got, want, total)
			}
		}
	}
}

func TestBuildOffline(t *testing.T) {
	docs := fixtureDocs(t)
	var mu sync.Mutex
	stages := map[string]bool{}
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 16}, Progress: func(done, total int, stage string) {
		mu.Lock()
		stages[stage] = true
		mu.Unlock()
	}}
	g := build(t, b, docs)
	if len(g.Nodes) != 14 {
		t.Fatalf("%d nodes", len(g.Nodes))
	}
	for _, s := range []string{"analyse", "embed", "knn"} {
		if !stages[s] {
			t.Errorf("no progress for stage %q", s)
		}
	}
	var tab, txt *graph.Node
	for i := range g.Nodes {
		switch g.Nodes[i].ID {
		case "report#2":
			tab = &g.Nodes[i]
		case "report#3":
			txt = &g.Nodes[i]
		}
	}
	if tab.Summary != "Table 3: Mean meltwater flow per station (litres per second)." {
		t.Errorf("table summary %q", tab.Summary)
	}
	kw := strings.Join(tab.Keywords, "|")
	for _, want := range []string{"Table 3", "Camp North", "41.5"} {
		if !strings.Contains(kw, want) {
			t.Errorf("table keywords %q lack %q", kw, want)
		}
	}
	if !strings.HasPrefix(txt.Summary, "Camp North recorded the highest flow in July") {
		t.Errorf("text summary %q", txt.Summary)
	}
	// Offline, the only links are the mention links: no model suggested any.
	mention := map[[2]int32]bool{}
	for _, ed := range graph.MentionLinks(g.Nodes, true) {
		mention[[2]int32{ed.U, ed.V}] = true
	}
	for _, ed := range g.Edges {
		if ed.Kind&graph.EdgeLink != 0 && !mention[[2]int32{ed.U, ed.V}] {
			t.Fatalf("offline build has an LLM link %+v", ed)
		}
	}
	nb := &graph.Builder{Embedder: &fake.Embedder{Dim: 32}, NoMentionLinks: true}
	g2, err2 := nb.Build(context.Background(), fixtureDocs(t))
	if err2 != nil {
		t.Fatal(err2)
	}
	for _, ed := range g2.Edges {
		if ed.Kind&graph.EdgeLink != 0 {
			t.Fatal("NoMentionLinks build has links")
		}
	}
}

func TestBuildErrors(t *testing.T) {
	docs := fixtureDocs(t)
	ctx := context.Background()
	if _, err := (&graph.Builder{}).Build(ctx, docs); err == nil {
		t.Errorf("no embedder: %v", err)
	}
	dup := []graph.Document{{ID: "a"}, {ID: "a"}}
	if _, err := (&graph.Builder{Embedder: &fake.Embedder{}}).Build(ctx, dup); !errors.Is(err, graph.ErrDocument) {
		t.Errorf("duplicate: %v", err)
	}
	evil := []graph.Document{{ID: "x", Root: "r", Items: []graph.Item{{Modality: graph.ModalityFigure, Caption: "c", Image: &graph.ImageRef{Path: "../../etc/passwd"}}}}}
	if _, err := (&graph.Builder{Embedder: &fake.Embedder{}}).Build(ctx, evil); !errors.Is(err, graph.ErrDocument) {
		t.Errorf("traversal: %v", err)
	}
	nan := llmfunc.Embedder(func(_ context.Context, texts []string, _ llm.Kind) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, float32(math.NaN())}
		}
		return out, nil
	})
	if _, err := (&graph.Builder{Embedder: nan}).Build(ctx, docs); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Errorf("NaN vectors: %v", err)
	}
	short := llmfunc.Embedder(func(_ context.Context, texts []string, _ llm.Kind) ([][]float32, error) {
		return make([][]float32, len(texts)-1), nil
	})
	if _, err := (&graph.Builder{Embedder: short}).Build(ctx, docs); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Errorf("missing vectors: %v", err)
	}
	// Dimension 0: taken from the vectors.
	var calls atomic.Int32
	free := llmfunc.Embedder(func(_ context.Context, texts []string, _ llm.Kind) ([][]float32, error) {
		calls.Add(1)
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = hashVector(t, 5)
		}
		return out, nil
	})
	g, err := (&graph.Builder{Embedder: batchOf4{free}}).Build(ctx, docs)
	if err != nil || g.Dim != 5 || calls.Load() != 4 {
		t.Errorf("dimension from vectors: %v dim %d calls %d", err, g.Dim, calls.Load())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (&graph.Builder{Embedder: &fake.Embedder{}, Model: newFakeModel()}).Build(cctx, docs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestBuildTiny(t *testing.T) {
	one := []graph.Document{{ID: "d", Items: []graph.Item{{Modality: graph.ModalityText, Text: "Only one chunk about Camp North."}}}}
	for _, docs := range [][]graph.Document{nil, {{ID: "empty"}}, one} {
		for _, m := range []llm.Model{nil, newFakeModel()} {
			b := &graph.Builder{Embedder: &fake.Embedder{Dim: 8}}
			if m != nil {
				b.Model = m
			}
			g, err := b.Build(context.Background(), docs)
			if err != nil {
				t.Fatalf("%d docs, model %v: %v", len(docs), m != nil, err)
			}
			if len(g.Edges) != 0 || len(g.Nodes) != len(one[0].Items)*min(len(docs), 1)*btoi(len(docs) > 0 && docs[0].ID == "d") {
				t.Fatalf("%d nodes %d edges", len(g.Nodes), len(g.Edges))
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// batchOf4 is an embedder that takes at most four texts per call.
type batchOf4 struct{ llmfunc.Embedder }

func (batchOf4) MaxBatch() int { return 4 }

// hashVector is fake.Embedder's vector of text with dim components.
func hashVector(text string, dim int) []float32 {
	v, _ := (&fake.Embedder{Dim: dim}).Embed(context.Background(), []string{text}, llm.KindDocument)
	return v[0]
}

// named is a fake embedder with the name a graph header records.
type named struct{ *fake.Embedder }

func (named) Name() string { return "hash-32" }

// TestBuildApproxDeterministic forces the HNSW path: builds with one and
// with three workers give the same bytes, the model's evolution rounds
// included, and the kNN edges match the exact path's almost everywhere.
func TestBuildApproxDeterministic(t *testing.T) {
	var docs []graph.Document
	for d := 0; d < 12; d++ {
		doc := graph.Document{ID: fmt.Sprintf("d%d", d)}
		for i := 0; i < 50; i++ {
			doc.Items = append(doc.Items, graph.Item{Modality: graph.ModalityText, Text: fmt.Sprintf("topic %d passage %d about item %d", d%4, i, (i*7+d)%13)})
		}
		docs = append(docs, doc)
	}
	a := encoded(t, build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 16}, ApproxKNN: 1, Concurrency: 1}, docs))
	b := encoded(t, build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 16}, ApproxKNN: 1, Concurrency: 3}, docs))
	if !bytes.Equal(a, b) {
		t.Fatal("approximate builds with 1 and 3 workers differ")
	}
	ex := build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 16}, ApproxKNN: -1}, docs)
	ap := build(t, &graph.Builder{Embedder: &fake.Embedder{Dim: 16}, ApproxKNN: 1}, docs)
	knn := func(g *graph.Graph) map[[2]int32]bool {
		m := map[[2]int32]bool{}
		for _, e := range g.Edges {
			if e.Kind&graph.EdgeKNN != 0 {
				m[[2]int32{e.U, e.V}] = true
			}
		}
		return m
	}
	me, ma := knn(ex), knn(ap)
	hit := 0
	for e := range me {
		if ma[e] {
			hit++
		}
	}
	if r := float64(hit) / float64(len(me)); r < 0.95 {
		t.Fatalf("approximate kNN edges cover %.3f of the exact ones", r)
	}
}
