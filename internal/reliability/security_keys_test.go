package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/faultserver"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// A build and an ask with a secret API key, against a server that fails
// often and quotes the Authorization header in every error message, never
// let the key reach anything the run writes or returns: slog and log
// output (including a user's retry logging of every error), returned
// errors, the answer and its trace as JSON, the saved graph file and every
// file of the cache folder, and the printed configuration.
func TestSecurityAPIKeyNeverLeaks(t *testing.T) {
	const secret = "sk-live-SECRET-d41d8cd98f00b204e9800998ecf8427e"
	ctx := ctxTimeout(t, 3*time.Minute)
	dir := t.TempDir()

	var logs syncBuffer
	prevSlog, prevLog := slog.Default(), log.Writer()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.SetOutput(&logs)
	t.Cleanup(func() { slog.SetDefault(prevSlog); log.SetOutput(prevLog) })

	s := serve(t, faultserver.Config{
		Seed: 4, Rates: askRates, APIKey: secret, EchoAuth: true, Chat: respond, Label: label,
		RetryAfter: 10 * time.Millisecond, MaxFaultsPerKey: 2,
	})
	hc := s.Client()
	hc.Timeout = perAttempt
	t.Cleanup(hc.CloseIdleConnections)
	cfg := openai.Config{BaseURL: s.BaseURL(), APIKey: secret, Model: "vlm-test", EmbedModel: "embed-test", HTTPClient: hc}
	chat, err := openai.NewChat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := openai.NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc := retryConfig()
	rc.OnRetry = func(attempt int, err error, d time.Duration) {
		slog.Warn("model call failed, retrying", "attempt", attempt, "err", err, "delay", d)
		log.Printf("retry %d: %v (%+v)", attempt, err, err)
	}
	var outputs []string
	outputs = append(outputs, fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg))

	pc := flowreader.Classic()
	pc.Model, pc.Embedder, pc.Cache = llm.Wrap(chat, rc), llm.WrapEmbedder(emb, rc), llm.DirStore(filepath.Join(dir, "cache"))
	pc.Progress = func(done, total int, stage string) {
		slog.Info("progress", "done", done, "total", total, "stage", stage)
	}
	p, err := flowreader.New(pc)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, fmt.Sprintf("%v %+v %v %+v", pc, pc, p, p))
	var g *graph.Graph
	for run := 0; run < 20 && g == nil; run++ {
		g, err = p.Build(ctx, corpus())
		if err != nil {
			outputs = append(outputs, err.Error(), fmt.Sprintf("%+v %#v", err, err))
			slog.Error("build failed", "err", err)
		}
	}
	if g == nil {
		t.Fatalf("no build completed in 20 runs; the last: %v", err)
	}
	if err := graph.Save(filepath.Join(dir, "collection.flwg"), g); err != nil {
		t.Fatal(err)
	}
	asked := 0
	for seed := 0; seed < 6; seed++ {
		res, err := askOn(ctx, p, g, loadQuestions[seed%len(loadQuestions)])
		if err != nil {
			outputs = append(outputs, err.Error(), fmt.Sprintf("%+v", err))
			slog.Error("ask failed", "err", err)
			continue
		}
		asked++
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, string(b), fmt.Sprintf("%+v", res.Trace))
	}
	// A client with a wrong key gets a 401 whose body quotes that key.
	wrong := "sk-wrong-SECRET-0cc175b9c0f1b6a831c399e269772661"
	bad := cfg
	bad.APIKey = wrong
	badChat, _ := openai.NewChat(bad)
	_, err = badChat.Generate(ctx, llmfunc.UserText("hello"))
	if err == nil {
		t.Fatal("wrong key accepted")
	}
	outputs = append(outputs, err.Error(), fmt.Sprintf("%+v %#v", err, err))

	if !bytes.Contains(logs.Bytes(), []byte("retrying")) || !strings.Contains(strings.Join(outputs, "\n"), "flowreader:") {
		t.Fatal("no failure was logged or returned: the faults did not happen and the test does not bite")
	}
	// The server did quote the key; the client redacted it.
	if !bytes.Contains(logs.Bytes(), []byte("request authorization: Bearer [REDACTED]")) {
		t.Fatal("no echoed key was redacted: the test does not bite")
	}
	if c := s.Counts(); c[faultserver.OK] == len(s.Log()) {
		t.Fatal("no fault injected")
	}
	haystacks := map[string][]byte{"logs": logs.Bytes(), "outputs": []byte(strings.Join(outputs, "\n"))}
	files := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, rerr := os.ReadFile(p)
			if rerr != nil {
				t.Fatal(rerr)
			}
			haystacks[p] = b
			files++
		}
		return nil
	})
	for where, b := range haystacks {
		for _, key := range []string{secret, wrong} {
			// The whole key, or its distinctive middle, in any form.
			for _, needle := range []string{key, key[8:28]} {
				if bytes.Contains(b, []byte(needle)) {
					i := bytes.Index(b, []byte(needle))
					t.Errorf("%s contains the key: …%s…", where, b[max(0, i-80):min(len(b), i+len(needle)+20)])
				}
			}
		}
	}
	t.Logf("checked %d bytes of logs, %d outputs, %d files; %d asks answered; faults %v",
		len(logs.Bytes()), len(outputs), files, asked, s.Counts())
}
