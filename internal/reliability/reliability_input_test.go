package reliability

import (
	"bytes"
	"context"
	"errors"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/faultserver"
	"github.com/flowreader/flowreader/internal/israce"
	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/score"
)

// offline is the facade with the fake hashing embedder and, when model is
// set, the VLM reader over it; otherwise the extractive reader.
func offline(t testing.TB, model llm.Model) *flowreader.Pipeline {
	t.Helper()
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// scriptedModel answers every prompt family of build and read.
func scriptedModel() *fake.Model {
	return &fake.Model{Rules: []fake.Rule{{Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Text: respond(&faultserver.ChatRequest{Schema: req.SchemaName, Messages: []faultserver.Message{{Text: fake.Prompt(req)}}})}, nil
	}}}}
}

// roundTrip saves g to a file, loads it back and checks the bytes agree.
func roundTrip(t *testing.T, g *graph.Graph) *graph.Graph {
	t.Helper()
	path := filepath.Join(t.TempDir(), "g.flwg")
	if err := graph.Save(path, g); err != nil {
		t.Fatal(err)
	}
	h, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, g), encode(t, h)) {
		t.Fatal("graph changed across Save and Load")
	}
	return h
}

// checkAnswer asserts what every successful Ask must give, whatever the
// input: valid UTF-8 text and citations that point into the graph.
func checkAnswer(t *testing.T, g *graph.Graph, res *flowreader.Result) {
	t.Helper()
	if !utf8.ValidString(res.Text) {
		t.Fatalf("answer is not valid UTF-8: %q", res.Text)
	}
	for _, c := range res.Citations {
		if c.Node < 0 || c.Node >= len(g.Nodes) || g.Nodes[c.Node].ID != c.NodeID {
			t.Fatalf("citation %+v does not point into the graph", c)
		}
	}
}

// Nasty documents and questions through the facade: each either works
// (a graph that saves and loads, an answer in valid UTF-8) or fails with a
// sentinel error, never a panic.
func TestReliabilityNastyInput(t *testing.T) {
	ctx := ctxTimeout(t, 3*time.Minute)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(10, 10))
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	invalid := "Survey of the \xff\xfe ridge: 42 kestrels \xc3\x28 counted \xed\xa0\x80 in May.\n\nSecond \x00 paragraph."

	type tc struct {
		name     string
		docs     func(t *testing.T) []graph.Document
		question string
		// wantErr, when set, is the sentinel Ask must fail with.
		wantErr error
	}
	cases := []tc{
		{name: "no documents", docs: func(*testing.T) []graph.Document { return nil }, question: question, wantErr: flowreader.ErrNoGraph},
		{name: "document without items", docs: func(*testing.T) []graph.Document { return []graph.Document{{ID: "empty"}} }, question: question, wantErr: flowreader.ErrNoGraph},
		{name: "empty text file", docs: func(t *testing.T) []graph.Document {
			docs, err := ingest.Path(write("empty.txt", nil))
			if !errors.Is(err, ingest.ErrEmpty) {
				t.Fatalf("empty file: %v, want ErrEmpty", err)
			}
			return docs
		}, question: question, wantErr: flowreader.ErrNoGraph},
		{name: "blank items", docs: func(*testing.T) []graph.Document {
			return []graph.Document{{ID: "blank", Items: []graph.Item{{Text: ""}, {Text: " \n\t "}, {Modality: graph.ModalityFigure}}}}
		}, question: question},
		{name: "binary garbage as text", docs: func(t *testing.T) []graph.Document {
			// Ingest refuses binary content; the pipeline must still
			// survive it when a caller builds the document by hand.
			if _, err := ingest.Path(write("garbage.txt", garbage)); !errors.Is(err, ingest.ErrUnsupported) {
				t.Fatalf("binary file: %v, want ErrUnsupported", err)
			}
			return []graph.Document{{ID: "garbage.txt", Items: []graph.Item{{Text: string(garbage)}}}}
		}, question: question},
		{name: "binary garbage as markdown", docs: func(t *testing.T) []graph.Document {
			// Ingest refuses binary content; the pipeline must still
			// survive it when a caller builds the document by hand.
			if _, err := ingest.Path(write("garbage.md", garbage)); !errors.Is(err, ingest.ErrUnsupported) {
				t.Fatalf("binary file: %v, want ErrUnsupported", err)
			}
			return []graph.Document{{ID: "garbage.md", Items: []graph.Item{{Text: string(garbage)}}}}
		}, question: question},
		{name: "invalid UTF-8 document and question", docs: func(t *testing.T) []graph.Document {
			return []graph.Document{{ID: "bad\xffid", Items: []graph.Item{{Text: invalid, Section: "\xff"}, {Modality: graph.ModalityTable, Text: "a | \xfe\nb | 42", Caption: "\xc0"}}}}
		}, question: "How many \xff kestrels \xc3\x28?"},
		{name: "question of only stop words", docs: func(*testing.T) []graph.Document { return corpus() }, question: "what is the of and to which"},
		{name: "question of punctuation", docs: func(*testing.T) []graph.Document { return corpus() }, question: "?!... ,,, ---"},
		{name: "empty question", docs: func(*testing.T) []graph.Document { return corpus() }, question: " \n\t", wantErr: flowreader.ErrQuestion},
	}
	for _, c := range cases {
		for _, withModel := range []bool{false, true} {
			name := c.name + "/extractive"
			var model llm.Model
			if withModel {
				name, model = c.name+"/vlm", scriptedModel()
			}
			t.Run(name, func(t *testing.T) {
				p := offline(t, model)
				g, err := p.Build(ctx, c.docs(t))
				if err != nil {
					t.Fatalf("build: %v", err)
				}
				g = roundTrip(t, g)
				res, err := askOn(ctx, p, g, c.question)
				if c.wantErr != nil {
					if !errors.Is(err, c.wantErr) {
						t.Fatalf("Ask: %v, want %v", err, c.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("Ask: %v", err)
				}
				checkAnswer(t, g, res)
			})
		}
	}
}

// Other ingesters refuse garbage with their sentinel errors.
func TestReliabilityGarbageIngest(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	garbage := make([]byte, 16<<10)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	mineru := filepath.Join(dir, "doc")
	os.MkdirAll(mineru, 0o755)
	os.WriteFile(filepath.Join(mineru, "content_list.json"), garbage, 0o644)
	if _, err := ingest.Path(mineru); !errors.Is(err, ingest.ErrFormat) {
		t.Fatalf("MinerU on garbage: %v", err)
	}
	os.WriteFile(filepath.Join(mineru, "content_list.json"), []byte(`{"type":"text"}`), 0o644)
	if _, err := ingest.Path(mineru); !errors.Is(err, ingest.ErrFormat) {
		t.Fatalf("MinerU on an object: %v", err)
	}
	pdf := filepath.Join(dir, "x.pdf")
	os.WriteFile(pdf, append([]byte("%PDF-1.7\n"), garbage...), 0o644)
	if _, err := ingestOne(ingest.Config{PDFReader: "go"}, pdf); !errors.Is(err, ingest.ErrFormat) {
		t.Fatalf("PDF on garbage: %v", err)
	}
	other := filepath.Join(dir, "x.bin")
	os.WriteFile(other, garbage, 0o644)
	if _, err := ingest.Path(other); !errors.Is(err, ingest.ErrUnsupported) {
		t.Fatalf("Path on a .bin file: %v", err)
	}
	if _, err := graph.Load(other); !errors.Is(err, graph.ErrFormat) {
		t.Fatalf("graph.Load on garbage: %v", err)
	}
}

// A 10 MB single paragraph: ingest chunks it within the chunk size, and the
// facade builds and answers over its first 2 MB of chunks (about 700
// nodes; the offline build of all 3,900 takes tens of seconds). Under -race
// (or -short) the build covers 256 KB and the paragraph without white space
// is 1 MB, which keeps the suite fast; the ingest always covers all 10 MB.
func TestReliabilityTenMegabyteParagraph(t *testing.T) {
	const chunkSize = 3000 // ingest's default, G2-Reader's
	ctx := ctxTimeout(t, 5*time.Minute)
	var b strings.Builder
	rng := rand.New(rand.NewPCG(5, 6))
	words := []string{"ridge", "kestrel", "survey", "wind", "north", "counted", "42", "May", "observers", "weather"}
	for b.Len() < 10<<20 {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	b.WriteString("The ridge survey counted 42 kestrels at the north ridge.")
	path := filepath.Join(t.TempDir(), "one-paragraph.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := ingest.Path(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := docs[0]
	total := 0
	for _, it := range doc.Items {
		if n := utf8.RuneCountInString(it.Text); n > chunkSize || n == 0 {
			t.Fatalf("chunk of %d runes", n)
		}
		total += len(it.Text)
	}
	if len(doc.Items) < (10<<20)/chunkSize || total < 10<<20 {
		t.Fatalf("%d chunks, %d bytes: text lost", len(doc.Items), total)
	}
	// The same paragraph with no white space at all falls through every
	// separator to single characters.
	solidSize, buildSize := 10<<20, 2<<20
	if israce.Enabled || testing.Short() {
		solidSize, buildSize = 1<<20, 256<<10
	}
	solid := strings.Repeat("x", solidSize)
	solidPath := filepath.Join(t.TempDir(), "solid.txt")
	if err := os.WriteFile(solidPath, []byte(solid), 0o644); err != nil {
		t.Fatal(err)
	}
	if ds, err := ingest.Path(solidPath); err != nil || len(ds) != 1 || len(ds[0].Items) < solidSize/chunkSize {
		t.Fatalf("chunks of a solid paragraph of %d bytes: %v", solidSize, err)
	}
	if n := buildSize / chunkSize; n < len(doc.Items) {
		doc.Items = append(doc.Items[:n], doc.Items[len(doc.Items)-1])
	}
	p := offline(t, nil)
	g, err := p.Build(ctx, []graph.Document{doc})
	if err != nil {
		t.Fatal(err)
	}
	res, err := askOn(ctx, p, g, question)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, g, res)
	t.Logf("%d chunks built into %d nodes; answer %.80q", len(doc.Items), len(g.Nodes), res.Text)
}

// vectors returns an in-process embedder backend whose vectors come from f.
func vectors(f func(i int, text string) []float32) llm.Embedder {
	return llmfunc.Embedder(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = f(i, t)
		}
		return out, nil
	})
}

func unit(dim int, text string) []float32 {
	v := hashVector(text, dim)
	if v[0] == 0 && v[1] == 0 {
		v[0] = 1
	}
	return v
}

var (
	nan = float32(math.NaN())
	inf = float32(math.Inf(1))
)

// Broken embedding backends, in process and over HTTP, make Build fail with
// a sentinel error instead of storing NaN in a graph; a broken query
// embedding makes Ask fail the same way.
func TestReliabilityBadEmbeddings(t *testing.T) {
	ctx := ctxTimeout(t, time.Minute)
	build := []struct {
		name string
		emb  llm.Embedder
		want []error
	}{
		{"NaN", vectors(func(i int, s string) []float32 { v := unit(8, s); v[3] = nan; return v }), []error{llm.ErrInvalidOutput, graph.ErrFormat}},
		{"+Inf", vectors(func(i int, s string) []float32 { v := unit(8, s); v[0] = inf; return v }), []error{llm.ErrInvalidOutput, graph.ErrFormat}},
		{"-Inf", vectors(func(i int, s string) []float32 { v := unit(8, s); v[7] = -inf; return v }), []error{llm.ErrInvalidOutput, graph.ErrFormat}},
		{"ragged dimensions", vectors(func(i int, s string) []float32 { return unit(8+i%2, s) }), []error{llm.ErrInvalidOutput, graph.ErrDimension}},
		{"declared dimension differs", fixedDim{vectors(func(i int, s string) []float32 { return unit(8, s) }), 16}, []error{llm.ErrInvalidOutput, graph.ErrDimension}},
		{"too few vectors", llmfunc.Embedder(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
			return [][]float32{unit(8, "x")}, nil
		}), []error{llm.ErrInvalidOutput}},
		{"empty vectors", vectors(func(i int, s string) []float32 { return nil }), []error{llm.ErrInvalidOutput, graph.ErrDimension}},
	}
	for _, c := range build {
		t.Run("build/"+c.name, func(t *testing.T) {
			for _, cache := range []llm.Store{nil, llmutil.NewMemoryStore()} {
				p, err := flowreader.New(flowreader.Config{Embedder: c.emb, Cache: cache})
				if err != nil {
					t.Fatal(err)
				}
				g, err := p.Build(ctx, corpus())
				if !matchesAny(err, c.want) {
					t.Fatalf("cache %v: graph %v, error %v; want one of %v", cache != nil, g != nil, err, c.want)
				}
			}
		})
	}

	// Over HTTP: a Python server writes NaN and Infinity literals; a server
	// whose dimension changes between batches.
	httpCases := []struct {
		name  string
		embed func(model, text string) []float32
		want  []error
	}{
		{"NaN literal", func(_, s string) []float32 { v := faultserver.Hash(s, 8); v[2] = nan; return v }, []error{llm.ErrInvalidOutput}},
		{"Infinity literal", func(_, s string) []float32 { v := faultserver.Hash(s, 8); v[1] = -inf; return v }, []error{llm.ErrInvalidOutput}},
		{"dimension changes", func(_, s string) []float32 { return faultserver.Hash(s, 8+len(s)%2) }, []error{llm.ErrInvalidOutput}},
	}
	for _, c := range httpCases {
		t.Run("http/"+c.name, func(t *testing.T) {
			s := serve(t, faultserver.Config{Embed: c.embed, Chat: respond})
			st := newStack(t, s, "", 0)
			p := st.pipeline(t, nil)
			_, err := p.Build(ctx, corpus())
			if !matchesAny(err, c.want) {
				t.Fatalf("error %v; want one of %v", err, c.want)
			}
		})
	}

	// At question time: the graph is fine, the query vector is not.
	g, err := offline(t, nil).Build(ctx, corpus())
	if err != nil {
		t.Fatal(err)
	}
	query := []struct {
		name string
		emb  llm.Embedder
		want error
	}{
		{"NaN query", vectors(func(i int, s string) []float32 { v := unit(g.Dim, s); v[1] = nan; return v }), score.ErrEmbedding},
		{"Inf query", vectors(func(i int, s string) []float32 { v := unit(g.Dim, s); v[1] = inf; return v }), score.ErrEmbedding},
		{"wrong dimension", vectors(func(i int, s string) []float32 { return unit(g.Dim/2, s) }), score.ErrEmbedding},
		{"no vector", llmfunc.Embedder(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) { return nil, nil }), nil},
	}
	for _, c := range query {
		t.Run("query/"+c.name, func(t *testing.T) {
			p, err := flowreader.New(flowreader.Config{Embedder: c.emb})
			if err != nil {
				t.Fatal(err)
			}
			_, err = askOn(ctx, p, g, question)
			if err == nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
}

func matchesAny(err error, want []error) bool {
	if err == nil {
		return false
	}
	for _, w := range want {
		if errors.Is(err, w) {
			return true
		}
	}
	return false
}

// hashVector is fake.Embedder's vector of text with dim components.
func hashVector(text string, dim int) []float32 {
	v, _ := (&fake.Embedder{Dim: dim}).Embed(context.Background(), []string{text}, llm.KindDocument)
	return v[0]
}
