package reliability

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// fuzzDocs are two short documents: three text nodes and a table, enough
// for analysis, an evolution round with neighbours, and kNN edges.
var fuzzDocs = []graph.Document{
	{ID: "a", Items: []graph.Item{
		{Text: "The ridge survey counted 42 kestrels."},
		{Text: "Winds were northerly at the ridge."},
		{Modality: graph.ModalityTable, Caption: "Table 1: counts", Text: "kestrels | 42"},
	}},
	{ID: "b", Items: []graph.Item{{Text: "Harbour terns nested on the mole."}}},
}

// FuzzBuildModelOutput feeds arbitrary model output to the graph builder's
// parsers of P1/P2 analysis answers and P3 linking answers (through the
// real Builder, so that everything downstream of the parse runs too). A
// build with any answers must succeed (an unreadable answer falls back to
// the offline analysis or keeps the node's links), never panic, and give
// a valid graph that survives Write and Read unchanged.
func FuzzBuildModelOutput(f *testing.F) {
	for _, s := range [][2]string{
		{`{"keywords":["Kestrel"],"summary":"Counts.","tags":["survey"]}`, `{"suggested_connections":[0,1],"should_update":true,"new_summary":"New.","new_keywords":["k"]}`},
		{"```json\n{\"keywords\":[\"a\",],\"summary\":\"s\",\"tags\":[]}\n```", `{"suggested_connections":["a#1","0",-1,99,1e400],"should_update":"True","new_summary":"","new_keywords":null}`},
		{`<think>hmm</think>{"summary":"No meaningful information","keywords":[1,2],"tags":"x"}`, `{"suggested_connections":[0,0,0,0,0,0,0,1,2,3],"should_update":True,"new_summary":"x"}`},
		{`{"summary":"` + strings.Repeat("é", 300) + `","text_content":null}`, `not json at all`},
		{``, `{"suggested_connections":{"0":1},"should_update":[],"new_keywords":[""," ",null]}`},
		{`[{"summary":"array"}]`, `{"suggested_connections":["b#0","a#0","\u0000"]}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, analysis, links string) {
		m := &fake.Model{Rules: []fake.Rule{{Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			if req.SchemaName == "node_linking" {
				return &llm.Response{Text: links}, nil
			}
			return &llm.Response{Text: analysis}, nil
		}}}}
		b := &graph.Builder{Embedder: &fake.Embedder{Dim: 8}, Model: m, Concurrency: 1}
		g, err := b.Build(context.Background(), fuzzDocs)
		if err != nil {
			t.Fatalf("build failed on model output %q / %q: %v", analysis, links, err)
		}
		if len(g.Nodes) > 4 {
			t.Fatalf("%d nodes from 4 items", len(g.Nodes))
		}
		for _, e := range g.Edges {
			if e.U < 0 || e.U >= e.V || int(e.V) >= len(g.Nodes) || e.Weight < 0 || e.Weight > 1.0001 {
				t.Fatalf("bad edge %+v", e)
			}
		}
		var buf bytes.Buffer
		if err := graph.Write(&buf, g); err != nil {
			t.Fatal(err)
		}
		h, err := graph.Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("graph from model output %q / %q does not read back: %v", analysis, links, err)
		}
		var again bytes.Buffer
		graph.Write(&again, h)
		if !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Fatal("graph changed across Write and Read")
		}
	})
}

// FuzzIngestText feeds arbitrary bytes to the plain-text ingester (files
// of any encoding, any line ends, headings of any depth). Every item must be
// valid UTF-8, non-blank and within the chunk size.
func FuzzIngestText(f *testing.F) {
	f.Add([]byte("# Title\n\nPara one.\r\nstill one.\n\n## Section\n\nPara two.\n"))
	f.Add([]byte("####### not a heading\n#\n# \n\xff\xfe\x00\r\r\n\n"))
	f.Add([]byte(strings.Repeat("word ", 1000) + "\n\n" + strings.Repeat("x", 4000)))
	dir := f.TempDir()
	cfg := ingest.Config{ChunkSize: 300, ChunkOverlap: 30}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "doc.txt")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		docs, err := ingestOne(cfg, path)
		if errors.Is(err, ingest.ErrEmpty) || errors.Is(err, ingest.ErrUnsupported) {
			return // empty, or binary content: refused, as it should be
		}
		if err != nil || len(docs) != 1 {
			t.Fatal(len(docs), err)
		}
		d := docs[0]
		if !utf8.ValidString(d.Title) {
			t.Fatalf("title %q", d.Title)
		}
		for _, it := range d.Items {
			if !utf8.ValidString(it.Text) || !utf8.ValidString(it.Section) || strings.TrimSpace(it.Text) == "" ||
				utf8.RuneCountInString(it.Text) > 300 {
				t.Fatalf("bad item %q (section %q)", it.Text, it.Section)
			}
		}
	})
}

// badStore answers every Get with the fuzzed bytes, as a corrupted or
// foreign cache folder would.
type badStore struct{ b []byte }

func (s badStore) Get(string) ([]byte, bool) { return s.b, true }
func (s badStore) Put(string, []byte) error  { return nil }

// keyStore records the key of the last Put and never hits.
type keyStore struct{ key string }

func (s *keyStore) Get(string) ([]byte, bool)    { return nil, false }
func (s *keyStore) Put(k string, _ []byte) error { s.key = k; return nil }

// FuzzCacheEntry feeds arbitrary cache entries to the caches of llm.Wrap and
// llm.WrapEmbedder. An entry is either used (it was a valid entry for that
// key) or treated as a miss; a vector taken from the cache is finite and of
// the embedder's dimension, and nothing panics.
func FuzzCacheEntry(f *testing.F) {
	ks := &keyStore{}
	llm.Wrap(&fake.Model{}, llm.Middleware{Cache: ks}).Generate(context.Background(), llmfunc.UserText("q"))
	key := ks.key
	f.Add([]byte(`{"key":"` + key + `","response":{"text":"cached"}}`))
	f.Add([]byte(`{"key":"other","response":{"text":"x"}}`))
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 0, 1, 2, 3, 4})
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, entry []byte) {
		m := &fake.Model{Default: "fresh"}
		resp, err := llm.Wrap(m, llm.Middleware{Cache: badStore{entry}}).Generate(context.Background(), llmfunc.UserText("q"))
		if err != nil || resp == nil {
			t.Fatalf("model: %v", err)
		}
		if resp.Text != "fresh" && len(m.Calls()) != 0 {
			t.Fatal("called the model and answered from the cache")
		}
		e := &fake.Embedder{Dim: 3}
		vecs, err := llm.WrapEmbedder(e, llm.Middleware{Cache: badStore{entry}}).Embed(context.Background(), []string{"a", "b"}, llm.KindDocument)
		if err != nil {
			t.Fatalf("embedder: %v", err)
		}
		if err := llmutil.CheckVectors(vecs, 2, 3); err != nil {
			t.Fatalf("cached vectors: %v", err)
		}
	})
}
