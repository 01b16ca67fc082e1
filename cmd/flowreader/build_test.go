package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// quickstartDocs is the example collection the CLI tests run on.
var quickstartDocs = filepath.Join("..", "..", "examples", "quickstart", "docs")

// env is a fake environment for the commands.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// cli runs one command through the dispatcher with environment e and
// returns its stdout, stderr and exit code.
func cli(t *testing.T, e env, args ...string) (string, string, int) {
	t.Helper()
	cmds := []command{
		{name: "build", run: func(ctx context.Context, a []string, so, se io.Writer) error { return runBuild(ctx, a, so, se, e.get) }},
		{name: "ask", run: func(ctx context.Context, a []string, so, se io.Writer) error { return runAsk(ctx, a, so, se, e.get) }},
	}
	var so, se bytes.Buffer
	code := run(context.Background(), args, cmds, &so, &se)
	return so.String(), se.String(), code
}

// buildQuickstart builds the quickstart collection with the embedded
// defaults into a temporary graph file.
func buildQuickstart(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "quickstart.frg")
	so, se, code := cli(t, nil, "build", "-o", out, quickstartDocs)
	if code != 0 {
		t.Fatalf("build exit %d: %s", code, se)
	}
	if !strings.Contains(so, "13 nodes") {
		t.Errorf("build stdout: %q", so)
	}
	return out
}

func TestBuildQuickstart(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.frg")
	so, se, code := cli(t, nil, "build", "-o", out, quickstartDocs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	for _, want := range []string{"embedded default embedder glove", "no model configured", "ingested", "embed 13/13", "knn 13/13"} {
		if !strings.Contains(se, want) {
			t.Errorf("stderr lacks %q:\n%s", want, se)
		}
	}
	if strings.Contains(se, "\r") {
		t.Error("progress bar drawn on a non-terminal")
	}
	g, err := graph.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 13 || g.Dim != 100 || !strings.HasPrefix(g.Embedder, "glove") {
		t.Errorf("graph: %d nodes, dim %d, embedder %q", len(g.Nodes), g.Dim, g.Embedder)
	}
	if !strings.Contains(so, out) {
		t.Errorf("stdout %q does not name the file", so)
	}
	// No temporary file is left next to the graph.
	ents, _ := os.ReadDir(filepath.Dir(out))
	if len(ents) != 1 {
		t.Errorf("%d files in the output folder, want 1", len(ents))
	}
	// Image paths are relative to the image root (here the docs folder:
	// the test's working folder does not hold it) and name real files.
	root, _ := filepath.Abs(quickstartDocs)
	images := 0
	for _, n := range g.Nodes {
		if n.Image == nil {
			continue
		}
		images++
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(n.Image.Path))); err != nil {
			t.Errorf("node %s: image %s: %v", n.ID, n.Image.Path, err)
		}
	}
	if images == 0 {
		t.Error("no node has an image")
	}
	// The image root is recorded in the graph file (relative to it) and
	// Load resolves it back: ask needs no --images.
	if got, _ := filepath.Abs(g.ImageRoot); got != root {
		t.Errorf("graph image root %q (%q), want %q", g.ImageRoot, got, root)
	}
	if !strings.Contains(se, "image paths are relative to "+root) {
		t.Errorf("stderr does not say where the images are:\n%s", se)
	}
}

// Several PATHs give the same documents (IDs, image paths) as their
// common folder, and the build is deterministic byte for byte.
func TestBuildSeveralPaths(t *testing.T) {
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one.frg"), filepath.Join(dir, "two.frg")
	if _, se, code := cli(t, nil, "build", "--quiet", "-o", one, quickstartDocs); code != 0 {
		t.Fatal(se)
	}
	_, se, code := cli(t, nil, "build", "-o", two,
		filepath.Join(quickstartDocs, "fieldnotes"), filepath.Join(quickstartDocs, "station-report"), "--quiet")
	if code != 0 {
		t.Fatal(se)
	}
	a, _ := os.ReadFile(one)
	b, _ := os.ReadFile(two)
	if !bytes.Equal(a, b) {
		t.Error("building the two sub-folders differs from building their parent")
	}
	// The same path twice is refused rather than silently duplicated.
	_, se, code = cli(t, nil, "build", "-o", filepath.Join(dir, "dup.frg"), quickstartDocs, quickstartDocs)
	if code != 1 || !strings.Contains(se, "give each PATH once") {
		t.Errorf("duplicate PATH: exit %d, %q", code, se)
	}
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(quickstartDocs, "fieldnotes", "nests.png")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no output", []string{"build", quickstartDocs}, 2, "-o GRAPHFILE is required"},
		{"no path", []string{"build", "-o", filepath.Join(dir, "x")}, 2, "no PATH"},
		{"bad flag", []string{"build", "--nope", "-o", "x", quickstartDocs}, 2, "flag provided but not defined"},
		{"bad preset", []string{"build", "--preset", "fast", "-o", "x", quickstartDocs}, 2, "unknown --preset"},
		{"missing path", []string{"build", "-o", filepath.Join(dir, "x"), filepath.Join(dir, "nothing-here")}, 1, "cannot read"},
		{"unsupported file", []string{"build", "-o", filepath.Join(dir, "x"), png}, 1, "unsupported"},
		{"url without model", []string{"build", "--llm-url", "http://localhost:1", "-o", "x", quickstartDocs}, 2, "no model"},
		{"root not holding path", []string{"build", "--root", dir, "-o", filepath.Join(dir, "x"), quickstartDocs}, 2, "outside --root"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, se, code := cli(t, nil, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (%s)", code, c.code, se)
			}
			lines := strings.Split(strings.TrimSpace(se), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "flowreader build: ") || !strings.Contains(last, c.want) {
				t.Errorf("last stderr line %q, want a one-line message with %q", last, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a failed build wrote its output")
	}
}

func TestHelp(t *testing.T) {
	for _, name := range []string{"build", "ask"} {
		so, se, code := cli(t, nil, name, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d", name, code)
		}
		if !strings.Contains(so+se, "usage: flowreader "+name) {
			t.Errorf("%s --help printed %q", name, so+se)
		}
		so, _, code = cli(t, nil, "help", name)
		if code != 0 || !strings.Contains(so, "usage: flowreader "+name) {
			t.Errorf("help %s: exit %d, %q", name, code, so)
		}
	}
	// The real command list registers both.
	for _, name := range []string{"build", "ask"} {
		if _, ok := find(commands(), name); !ok {
			t.Errorf("%s is not registered in commands()", name)
		}
	}
}

func TestProgressBar(t *testing.T) {
	var plain bytes.Buffer
	b := newProgressBar(&plain)
	for i := 0; i <= 8; i++ {
		b.update(i, 8, "embed")
	}
	b.update(0, 1, "knn")
	b.update(1, 1, "knn")
	b.finish()
	want := "build: embed 0/8\nbuild: embed 2/8\nbuild: embed 4/8\nbuild: embed 6/8\nbuild: embed 8/8\nbuild: knn 0/1\nbuild: knn 1/1\n"
	if plain.String() != want {
		t.Errorf("plain progress:\n%q\nwant\n%q", plain.String(), want)
	}

	var tty bytes.Buffer
	b = &progressBar{w: &tty, tty: true}
	b.update(0, 4, "analyse")
	b.update(2, 4, "analyse")
	b.update(3, 4, "analyse")
	b.update(1, 3, "embed") // a new stage ends the unfinished bar
	b.finish()
	s := tty.String()
	if !strings.Contains(s, "\rbuild: analyse    [###############...............] 2/4") {
		t.Errorf("no half bar in %q", s)
	}
	if strings.Count(s, "\n") != 2 || !strings.HasSuffix(s, ")\n") {
		t.Errorf("bars not ended once per stage: %q", s)
	}
}

// embeddingServer is an OpenAI-compatible /v1/embeddings endpoint returning
// feature-hash vectors of dimension dim.
func embeddingServer(t *testing.T, dim int, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sekret" {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		calls.Add(1)
		if r.URL.Path == "/v1/chat/completions" {
			chatReply(w, r)
			return
		}
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		resp := struct {
			Data []item `json:"data"`
		}{}
		for i, s := range req.Input {
			resp.Data = append(resp.Data, item{i, hashVector(s, dim)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// chatReply answers every chat request: JSON with the fields of the
// analysis, evolution and worker schemas when a schema is asked for, else
// a reasoner-style answer.
func chatReply(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	text := "<thought>The table and the paragraph agree.</thought><output>131 km/h, during Storm Elda.</output>"
	if _, ok := req["response_format"]; ok {
		b, _ := json.Marshal(map[string]any{
			"summary": "A node about storms and nests.", "keywords": []string{"storm", "nests"}, "tags": []string{"weather"},
			"links": []any{}, "status": "supported", "answer": "131 km/h", "evidence": "peak gust of 131 km/h",
		})
		text = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5},
	})
}

// With a chat model configured through the environment, build analyses
// nodes with it and ask answers with the VLM reader: no embedded-default
// notes, model calls in the trace.
func TestRemoteModel(t *testing.T) {
	var calls atomic.Int64
	srv := embeddingServer(t, 32, &calls)
	e := env{envAPIKey: "sekret", envLLMURL: srv.URL, envLLMModel: "qwen3-vl", envEmbedModel: "hash-embed"}
	out := filepath.Join(t.TempDir(), "vlm.frg")
	_, se, code := cli(t, e, "build", "--quiet", "-o", out, "--cache", filepath.Join(t.TempDir(), "cache"), quickstartDocs)
	if code != 0 {
		t.Fatalf("build exit %d: %s", code, se)
	}
	if !strings.Contains(se, "remote model qwen3-vl") || strings.Contains(se, "note:") {
		t.Errorf("build stderr:\n%s", se)
	}
	built := calls.Load()
	so, se, code := cli(t, e, "ask", "-g", out, "--images", t.TempDir(), "--json", gustQuestion)
	if code != 0 && code != exitNotSure {
		t.Fatalf("ask exit %d: %s", code, se)
	}
	if !strings.Contains(se, "images not found under --images") {
		t.Errorf("no warning for a wrong --images: %q", se)
	}
	var res struct {
		Answer string
		Notes  []string
		Trace  struct {
			Reader string
			Calls  int
		}
	}
	if err := json.Unmarshal([]byte(so), &res); err != nil {
		t.Fatal(err)
	}
	if res.Trace.Reader != "vlm" || res.Trace.Calls == 0 || len(res.Notes) != 0 || !strings.Contains(res.Answer, "131") {
		t.Errorf("answer %q, notes %q, trace %+v", res.Answer, res.Notes, res.Trace)
	}
	if calls.Load() == built {
		t.Error("ask made no server calls")
	}
	// The right image root gives no warning.
	root, _ := filepath.Abs(quickstartDocs)
	_, se, code = cli(t, e, "ask", "-g", out, "--images", root, gustQuestion)
	if code != 0 || strings.Contains(se, "warning") {
		t.Errorf("exit %d, stderr %q", code, se)
	}
	// No --images at all: the graph file knows where its images are.
	_, se, code = cli(t, e, "ask", "-g", out, gustQuestion)
	if code != 0 || strings.Contains(se, "warning") {
		t.Errorf("without --images: exit %d, stderr %q", code, se)
	}
}

// A build and an ask against a remote embeddings server (flags or
// environment, key from the environment only); asking that graph with the
// embedded default embedder is refused for its dimension.
func TestRemoteEmbedder(t *testing.T) {
	var calls atomic.Int64
	srv := embeddingServer(t, 32, &calls)
	out := filepath.Join(t.TempDir(), "remote.frg")
	e := env{envAPIKey: "sekret"}
	_, se, code := cli(t, e, "build", "-o", out, "--embed-url", srv.URL, "--embed-model", "hash-embed", quickstartDocs)
	if code != 0 {
		t.Fatalf("build exit %d: %s", code, se)
	}
	if !strings.Contains(se, "remote embedder hash-embed") || strings.Contains(se, "embedded default embedder") {
		t.Errorf("build stderr:\n%s", se)
	}
	if g, err := graph.Load(out); err != nil || g.Dim != 32 || g.Embedder != "hash-embed" {
		t.Fatalf("graph: %v %+v", err, g)
	}

	e = env{envAPIKey: "sekret", envEmbedURL: srv.URL + "/v1", envEmbedModel: "hash-embed"}
	before := calls.Load()
	so, se, code := cli(t, e, "ask", "-g", out, "--json", "Which breakwater lost most nests?")
	if code != 0 && code != exitNotSure {
		t.Fatalf("ask exit %d: %s", code, se)
	}
	if calls.Load() == before {
		t.Error("ask did not call the embeddings server")
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(so), &got); err != nil {
		t.Fatalf("ask --json: %v", err)
	}
	if notes, _ := got["notes"].([]any); len(notes) != 1 || !strings.Contains(notes[0].(string), "extractive") {
		t.Errorf("notes %v: want only the extractive-reader note", got["notes"])
	}

	_, se, code = cli(t, nil, "ask", "-g", out, "Which breakwater lost most nests?")
	if code != 1 {
		t.Fatalf("ask with the default embedder on a 32-d graph: exit %d", code)
	}
	for _, want := range []string{"dimension mismatch", "dimension 32", "hash-embed", "dimension 100", "rebuild"} {
		if !strings.Contains(se, want) {
			t.Errorf("mismatch message lacks %q: %s", want, se)
		}
	}
	if strings.Count(strings.TrimSpace(se), "\n") != 0 {
		t.Errorf("error is not one line: %q", se)
	}
	if strings.Contains(so+se, "sekret") {
		t.Error("the API key was printed")
	}
}

// A collection holding a link to /proc/self/environ, a link out of it and a
// dangling link builds from the rest, says on stderr (even with --quiet)
// which files it skipped, and writes none of the outside content.
func TestBuildSkipsLinksOutOfTheCollection(t *testing.T) {
	t.Setenv("FLOWREADER_BUILD_TEST_SECRET", "sk-build-SECRET-5e6f")
	base := t.TempDir()
	col := filepath.Join(base, "col")
	if err := os.MkdirAll(col, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(col, "notes.md"), []byte("# Notes\n\nKestrels nest on the north ridge.\n"), 0o644)
	os.WriteFile(filepath.Join(base, "secret.txt"), []byte("OUTSIDE-SECRET-1a2b\n"), 0o644)
	links := map[string]string{"env.txt": "/proc/self/environ", "leak.txt": filepath.Join(base, "secret.txt"), "gone.md": filepath.Join(col, "missing.md")}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(col, name)); err != nil {
			t.Skip("symlinks unsupported:", err)
		}
	}
	out := filepath.Join(base, "g.frg")
	_, se, code := cli(t, nil, "build", "--quiet", "-o", out, col)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	for name := range links {
		if !strings.Contains(se, "build: skipped "+filepath.Join(col, name)+":") {
			t.Errorf("stderr does not report %s as skipped:\n%s", name, se)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"sk-build-SECRET-5e6f", "OUTSIDE-SECRET-1a2b"} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("graph file holds %q", s)
		}
	}
}

// hashVector is fake.Embedder's vector of text with dim components.
func hashVector(text string, dim int) []float32 {
	v, _ := (&fake.Embedder{Dim: dim}).Embed(context.Background(), []string{text}, llm.KindDocument)
	return v[0]
}
