package openai

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
)

// echoEmbeddings answers each input with a vector derived from its length
// and first byte, so the test can tell inputs apart after reordering.
func echoEmbeddings(w http.ResponseWriter, r *http.Request, body map[string]any) {
	in := body["input"].([]any)
	vecs := make([][]float64, len(in))
	for i, s := range in {
		str := s.(string)
		vecs[i] = []float64{float64(len(str)), float64(str[len(str)-1]), 3, 4}
	}
	writeEmbeddings(w, vecs, true)
}

func TestEmbedPrefixesBatchesOrder(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.Path != "/v1/embeddings" || body["encoding_format"] != "float" {
			writeErr(w, 404, "no")
			return
		}
		echoEmbeddings(w, r, body)
	})
	cfg := Config{EmbedURL: srv.URL, EmbedKey: testKey, EmbedModel: "nomic-ai/nomic-embed-text-v1.5", EmbedBatch: 2}
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, err := e.Embed(context.Background(), texts, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	if srv.requests.Load() != 3 {
		t.Fatalf("%d requests for 5 texts in batches of 2", srv.requests.Load())
	}
	for i, v := range vecs {
		n := float64(len(nomicDocumentPrefix) + len(texts[i]))
		want := l2([]float32{float32(n), float32(texts[i][0]), 3, 4})
		for j := range v {
			if math.Abs(float64(v[j]-want[j])) > 1e-6 {
				t.Fatalf("vector %d = %v, want %v (order or normalisation wrong)", i, v, want)
			}
		}
	}
	if e.Dimension() != 4 {
		t.Fatalf("learnt dimension %d", e.Dimension())
	}
	e.Embed(context.Background(), []string{"q"}, llm.KindQuery)
	if got := srv.last()["input"].([]any)[0]; got != nomicQueryPrefix+"q" {
		t.Fatalf("query input %q", got)
	}
	if srv.last()["model"] != "nomic-ai/nomic-embed-text-v1.5" {
		t.Fatal("model not sent")
	}
	for _, tc := range []struct {
		cfg        Config
		doc, query string
	}{
		{Config{EmbedModel: "BAAI/bge-m3"}, "", ""},
		{Config{EmbedModel: "nomic-embed-text", NoPrefixes: true}, "", ""},
		{Config{EmbedModel: "x", DocumentPrefix: "passage: ", QueryPrefix: "query: "}, "passage: ", "query: "},
		{Config{EmbedModel: "nomic-embed-text", QueryPrefix: "q: "}, "", "q: "},
	} {
		tc.cfg.EmbedURL, tc.cfg.EmbedKey = srv.URL, testKey
		e, err := NewEmbedder(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.Embed(context.Background(), []string{"t"}, llm.KindDocument)
		if got := srv.last()["input"].([]any)[0]; got != tc.doc+"t" {
			t.Errorf("%+v: document input %q", tc.cfg, got)
		}
		e.Embed(context.Background(), []string{"t"}, llm.KindQuery)
		if got := srv.last()["input"].([]any)[0]; got != tc.query+"t" {
			t.Errorf("%+v: query input %q", tc.cfg, got)
		}
	}
	if v, err := e.Embed(context.Background(), nil, llm.KindQuery); err != nil || len(v) != 0 {
		t.Fatal("empty batch", v, err)
	}
}

func TestEmbedMatryoshka(t *testing.T) {
	raw := []float64{1, -2, 3, 0.5, -1, 2, 0, 4}
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeEmbeddings(w, [][]float64{raw}, false)
	})
	e, _ := NewEmbedder(Config{EmbedURL: srv.URL, EmbedKey: testKey, EmbedModel: "nomic-embed-text-v1.5", Matryoshka: 3})
	if e.Dimension() != 3 || e.(llm.Namer).Name() != "nomic-embed-text-v1.5@3" {
		t.Fatal(e.Dimension(), e.(llm.Namer).Name())
	}
	v, err := e.Embed(context.Background(), []string{"x"}, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	// Oracle: mean 0.9375, population variance, eps 1e-5, first 3, L2.
	mean := 0.0
	for _, x := range raw {
		mean += x
	}
	mean /= 8
	vr := 0.0
	for _, x := range raw {
		vr += (x - mean) * (x - mean)
	}
	vr /= 8
	want := make([]float64, 3)
	norm := 0.0
	for i := range want {
		want[i] = (raw[i] - mean) / math.Sqrt(vr+1e-5)
		norm += want[i] * want[i]
	}
	for i := range want {
		if math.Abs(float64(v[0][i])-want[i]/math.Sqrt(norm)) > 1e-6 {
			t.Fatalf("got %v, want %v/‖·‖", v[0], want)
		}
	}
}

func TestEmbedBadOutput(t *testing.T) {
	for name, body := range map[string]string{
		"not json":     "<html>",
		"count":        `{"data":[]}`,
		"dup index":    `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`,
		"ragged":       `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`,
		"inf":          `{"data":[{"index":0,"embedding":[1e300,1]},{"index":1,"embedding":[1,1]}]}`,
		"empty vector": `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`,
	} {
		srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) { w.Write([]byte(body)) })
		e, _ := NewEmbedder(Config{EmbedURL: srv.URL, EmbedKey: testKey, EmbedModel: "m"})
		_, err := e.Embed(context.Background(), []string{"a", "b"}, llm.KindDocument)
		if !errors.Is(err, llm.ErrInvalidOutput) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// A declared dimension is enforced: the server's 4 components cannot
	// be truncated to 768.
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, b map[string]any) { echoEmbeddings(w, r, b) })
	e, _ := NewEmbedder(Config{EmbedURL: srv.URL, EmbedKey: testKey, EmbedModel: "m", Matryoshka: 768})
	if _, err := e.Embed(context.Background(), []string{"a"}, llm.KindDocument); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatalf("dimension mismatch: %v", err)
	}
}

func TestEmbedCacheNoSecondRequest(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, b map[string]any) { echoEmbeddings(w, r, b) })
	e, _ := NewEmbedder(Config{EmbedURL: srv.URL, EmbedKey: testKey, EmbedModel: "m"})
	ce := llm.WrapEmbedder(e, llm.Middleware{Cache: llmutil.NewMemoryStore()})
	a, _ := ce.Embed(context.Background(), []string{"x", "yy"}, llm.KindDocument)
	b, err := ce.Embed(context.Background(), []string{"yy", "x"}, llm.KindDocument)
	if err != nil || srv.requests.Load() != 1 {
		t.Fatalf("requests %d, err %v", srv.requests.Load(), err)
	}
	if a[0][0] != b[1][0] {
		t.Fatal("cached vectors out of order")
	}
}

func TestEmbedErrorKeyRedacted(t *testing.T) {
	srv := newVLLM(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		writeOldErr(w, 400, "bad token "+testKey)
	})
	e, _ := NewEmbedder(Config{EmbedURL: srv.URL, EmbedKey: testKey, EmbedModel: "m"})
	_, err := e.Embed(context.Background(), []string{"a"}, llm.KindDocument)
	var api *llm.APIError
	if !errors.As(err, &api) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
}
