package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// textServer is an OpenAI-compatible /v1/embeddings endpoint (feature-hash
// vectors of dimension dim) that records every text it embeds.
type textServer struct {
	*httptest.Server
	mu    sync.Mutex
	texts []string
}

func newTextServer(t *testing.T, dim int) *textServer {
	ts := &textServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ts.mu.Lock()
		ts.texts = append(ts.texts, req.Input...)
		ts.mu.Unlock()
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var resp struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			resp.Data = append(resp.Data, item{i, hashVector(s, dim)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *textServer) take() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := ts.texts
	ts.texts = nil
	return out
}

// writeCollection writes files (name → text) under dir.
func writeCollection(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func noteText(title string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	for i := range n {
		fmt.Fprintf(&b, "## Part %d of %s\n\nThe survey of %s found %d nests near Kestrel Bay in year %d. Storm Elda flooded the East Arm.\n\n", i, title, title, 10*i+n, 2000+i)
	}
	return b.String()
}

// build --update on a real folder: change one file, add one, delete one;
// the updated file equals a fresh build's byte for byte, the changes are
// printed, and only the changed and new documents' nodes are embedded.
func TestBuildUpdate(t *testing.T) {
	for _, remote := range []bool{false, true} {
		t.Run(fmt.Sprint("remote=", remote), func(t *testing.T) {
			dir := t.TempDir()
			docs := filepath.Join(dir, "docs")
			files := map[string]string{}
			for i, name := range []string{"alpha.md", "beta.md", "gamma.txt", "notes/delta.md", "notes/epsilon.md"} {
				files[name] = noteText(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)), 3+i)
			}
			writeCollection(t, docs, files)
			var ts *textServer
			e := env{}
			if remote {
				ts = newTextServer(t, 24)
				e = env{envEmbedURL: ts.URL + "/v1", envEmbedModel: "hash-embed"}
			}
			out := filepath.Join(dir, "c.frg")
			if _, se, code := cli(t, e, "build", "--quiet", "-o", out, docs); code != 0 {
				t.Fatalf("build: %s", se)
			}
			// Change one file, add one (sorting between two others), delete one.
			writeCollection(t, docs, map[string]string{
				"beta.md":        noteText("beta", 4) + "A new closing paragraph about Halvard Glacier.\n",
				"notes/carol.md": noteText("carol", 2),
			})
			if err := os.Remove(filepath.Join(docs, "gamma.txt")); err != nil {
				t.Fatal(err)
			}
			if ts != nil {
				ts.take()
			}
			so, se, code := cli(t, e, "build", "--quiet", "--update", "-o", out, docs)
			if code != 0 {
				t.Fatalf("build --update: %s", se)
			}
			for _, want := range []string{"added notes/carol.md\n", "replaced beta.md\n", "removed gamma.txt\n", "(1 added, 1 replaced, 1 removed, 3 unchanged)"} {
				if !strings.Contains(so, want) {
					t.Errorf("stdout lacks %q:\n%s", want, so)
				}
			}
			var embedded []string
			if ts != nil {
				embedded = ts.take()
			}
			fresh := filepath.Join(dir, "fresh.frg")
			if _, se, code := cli(t, e, "build", "--quiet", "-o", fresh, docs); code != 0 {
				t.Fatalf("fresh build: %s", se)
			}
			a, _ := os.ReadFile(out)
			b, _ := os.ReadFile(fresh)
			if !bytes.Equal(a, b) {
				t.Fatalf("updated file (%d bytes) differs from a fresh build (%d bytes)", len(a), len(b))
			}
			if ts != nil {
				all := ts.take() // the fresh build embeds every node
				if len(embedded) == 0 || len(embedded) >= len(all) {
					t.Fatalf("update embedded %d texts, the fresh build %d", len(embedded), len(all))
				}
				for _, s := range embedded {
					if !strings.Contains(s, "beta") && !strings.Contains(s, "carol") {
						t.Errorf("update embedded %q, which is not of a changed document", s)
					}
				}
			}
			// Nothing changed: the file is rewritten identically.
			so, se, code = cli(t, e, "build", "--quiet", "--update", "-o", out, docs)
			if code != 0 || !strings.Contains(so, "no document changed") {
				t.Fatalf("second update: exit %d\n%s\n%s", code, so, se)
			}
			if ts != nil && len(ts.take()) != 0 {
				t.Error("an update with no change embedded texts")
			}
			if a, _ = os.ReadFile(out); !bytes.Equal(a, b) {
				t.Error("an update with no change changed the file")
			}
		})
	}
}

// build --update without a file builds it; with a graph it cannot update
// (built with a model, hence evolution rounds) it fails and says what to do,
// leaving the file alone.
func TestBuildUpdateErrors(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	writeCollection(t, docs, map[string]string{"a.md": noteText("a", 3), "b.md": noteText("b", 2)})
	out := filepath.Join(dir, "new.frg")
	so, se, code := cli(t, nil, "build", "--quiet", "--update", "-o", out, docs)
	if code != 0 || !strings.Contains(se, "does not exist yet") || !strings.Contains(so, "wrote") {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}

	var calls atomic.Int64
	srv := embeddingServer(t, 16, &calls)
	e := env{envAPIKey: "sekret", envLLMURL: srv.URL + "/v1", envLLMModel: "m", envEmbedURL: srv.URL + "/v1", envEmbedModel: "hash"}
	evolved := filepath.Join(dir, "evolved.frg")
	if _, se, code := cli(t, e, "build", "--quiet", "-o", evolved, docs); code != 0 {
		t.Fatalf("build with a model: %s", se)
	}
	before, _ := os.ReadFile(evolved)
	writeCollection(t, docs, map[string]string{"c.md": noteText("c", 2)})
	_, se, code = cli(t, e, "build", "--quiet", "--update", "-o", evolved, docs)
	if code != 1 || !strings.Contains(se, "evolution rounds") || !strings.Contains(se, "without --update") {
		t.Fatalf("update of an evolved graph: exit %d: %s", code, se)
	}
	if after, _ := os.ReadFile(evolved); !bytes.Equal(before, after) {
		t.Error("a failed update changed the file")
	}
	// A file that is not a graph is an error, not a fresh build over it.
	bad := filepath.Join(dir, "bad.frg")
	os.WriteFile(bad, []byte("not a graph"), 0o644)
	if _, se, code := cli(t, nil, "build", "--quiet", "--update", "-o", bad, docs); code != 1 || !strings.Contains(se, "invalid graph") {
		t.Fatalf("update of a bad file: exit %d: %s", code, se)
	}
}

// build --update given only some of the collection's files refuses to
// drop the others silently: it names them and asks for --prune.
func TestBuildUpdateSubsetNeedsPrune(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	files := map[string]string{}
	for i, name := range []string{"alpha.md", "beta.md", "gamma.md"} {
		files[name] = noteText(strings.TrimSuffix(name, ".md"), 3+i)
	}
	writeCollection(t, docs, files)
	out := filepath.Join(dir, "c.frg")
	if _, se, code := cli(t, nil, "build", "--quiet", "-o", out, docs); code != 0 {
		t.Fatalf("build: %s", se)
	}
	before, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	writeCollection(t, docs, map[string]string{"beta.md": noteText("beta", 4) + "An edited closing paragraph.\n"})
	_, se, code := cli(t, nil, "build", "--quiet", "--update", "-o", out, filepath.Join(docs, "beta.md"))
	if code == 0 || !strings.Contains(se, "--prune") || !strings.Contains(se, "alpha.md") {
		t.Fatalf("update with one file: exit %d: %s", code, se)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("the refused update changed the graph file")
	}
	so, se, code := cli(t, nil, "build", "--quiet", "--update", "--prune", "-o", out, filepath.Join(docs, "beta.md"))
	if code != 0 || !strings.Contains(so, "removed alpha.md") || !strings.Contains(so, "removed gamma.md") {
		t.Fatalf("update --prune: exit %d: %s %s", code, so, se)
	}
}
