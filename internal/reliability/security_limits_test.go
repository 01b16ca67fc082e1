package reliability

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/llm/openai"
)

// endless serves a body that never ends (JSON white space after an opening
// brace) with the given status, counting the bytes it managed to write.
func endless(status int, written *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		chunk := append([]byte("{"), bytes.Repeat([]byte(" "), 64<<10)...)
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
			chunk = chunk[1:]
		}
	}
}

// A server answering with an endless body, successful or not, cannot make
// the client read more than its limit: the call fails with
// llm.ErrInvalidOutput (or an API error whose message is truncated) long
// before the body ends, which it never does.
func TestSecurityResponseBodiesAreLimited(t *testing.T) {
	const limit = 1 << 20
	for _, status := range []int{200, 500} {
		for _, endpoint := range []string{"chat", "embeddings"} {
			var written atomic.Int64
			srv := httptest.NewServer(endless(status, &written))
			cfg := openai.Config{BaseURL: srv.URL, Model: "m", EmbedModel: "e", MaxResponseBytes: limit}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			var err error
			if endpoint == "chat" {
				c, _ := openai.NewChat(cfg)
				_, err = c.Generate(ctx, llmfunc.UserText("hello"))
			} else {
				e, _ := openai.NewEmbedder(cfg)
				_, err = e.Embed(ctx, []string{"hello"}, llm.KindDocument)
			}
			timedOut := ctx.Err() != nil
			cancel()
			srv.CloseClientConnections()
			srv.Close()
			var api *llm.APIError
			switch {
			case timedOut:
				t.Fatalf("%s %d: the client kept reading until the deadline", endpoint, status)
			case status == 200 && !errors.Is(err, llm.ErrInvalidOutput):
				t.Fatalf("%s %d: error %v", endpoint, status, err)
			case status != 200 && (!errors.As(err, &api) || len(api.Message) > 1024):
				t.Fatalf("%s %d: error %.200v", endpoint, status, err)
			}
			// The server may have pushed some megabytes into socket buffers;
			// it never got to push much more than the limit.
			if n := written.Load(); n > 64*limit {
				t.Fatalf("%s %d: server wrote %d bytes before the client gave up", endpoint, status, n)
			}
		}
	}
}

// Images above the size cap are not sent, neither by graph analysis nor by
// the reader's workers; an image under the cap is.
func TestSecurityImagesAreLimited(t *testing.T) {
	ctx := ctxTimeout(t, time.Minute)
	root := t.TempDir()
	small := pngBytes(t, 0x33)
	big := append(pngBytes(t, 0x44), make([]byte, 9<<20)...)
	os.WriteFile(filepath.Join(root, "small.png"), small, 0o644)
	os.WriteFile(filepath.Join(root, "big.png"), big, 0o644)
	docs := []graph.Document{{ID: "doc", Root: root, Items: []graph.Item{
		{Text: "The ridge survey counted 42 kestrels at the north ridge."},
		{Modality: graph.ModalityFigure, Caption: "Figure 1: kestrels at the north ridge", Image: &graph.ImageRef{Path: "big.png", MIME: "image/png"}},
		{Modality: graph.ModalityFigure, Caption: "Figure 2: kestrels at the north ridge", Image: &graph.ImageRef{Path: "small.png", MIME: "image/png"}},
	}}}
	m := &recorder{}
	cfg := flowreader.Classic()
	cfg.Embedder, cfg.Model, cfg.ImageRoot = &fake.Embedder{}, m, root
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if m.sent(big) || !m.sent(small) {
		t.Fatalf("analysis: big image sent %v, small image sent %v", m.sent(big), m.sent(small))
	}
	m.mu.Lock()
	m.images = nil
	m.mu.Unlock()
	res, err := askOn(ctx, p, g, question)
	if err != nil {
		t.Fatal(err)
	}
	if m.sent(big) {
		t.Fatal("a worker was sent an image above the cap")
	}
	for _, d := range res.Drafts {
		for _, n := range d.Nodes {
			if g.Nodes[n].Image != nil && g.Nodes[n].Image.Path == "small.png" && !m.sent(small) {
				t.Fatal("the small image was not sent to its worker: the test does not bite")
			}
		}
	}
}
