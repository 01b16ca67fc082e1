//go:build unix

package reliability

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm/fake"
)

// A collection holding symbolic links out of it (env.txt to
// /proc/self/environ, sub/passwd.txt to /etc/passwd, a link to a secret
// file beside the collection), a dangling link and a FIFO builds without
// error from what is inside it, and the saved graph file holds neither the
// environment's secret nor the outside files: ingest reads only regular
// files whose real path stays inside the collection root, and reports the
// rest.
func TestSecurityCollectionSymlinksStayInside(t *testing.T) {
	const envSecret = "sk-env-SECRET-0f9e8d7c6b5a"
	t.Setenv("FLOWREADER_TEST_API_KEY", envSecret)
	f := newEscapeFixture(t)
	ctx := ctxTimeout(t, time.Minute)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(f.root, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(f.root, "notes.md"), []byte("# Notes\n\nKestrels nest on the north ridge.\n"), 0o644))
	must(os.Symlink("/proc/self/environ", filepath.Join(f.root, "env.txt")))
	must(os.Symlink("/etc/passwd", filepath.Join(f.root, "sub", "passwd.txt")))
	must(os.Symlink(filepath.Join(f.outside, "secret.md"), filepath.Join(f.root, "sub", "secret.md")))
	must(os.Symlink(filepath.Join(f.root, "missing.md"), filepath.Join(f.root, "dangling.md")))
	fifo := syscall.Mkfifo(filepath.Join(f.root, "pipe.txt"), 0o644) == nil

	var skipped []string
	docs, rep, err := ingest.Config{}.Read(ctx, f.root)
	for _, fr := range rep.Files {
		// Files of other types (the images beside a document) are listed
		// as not read; the refused documents are the ones counted here.
		if fr.Err != nil && fr.Format != "" {
			skipped = append(skipped, fr.Path)
			t.Logf("skipped %s: %v", fr.Path, fr.Err)
		}
	}
	if err != nil {
		t.Fatalf("ingest aborted: %v", err)
	}
	want := 4
	if fifo {
		want++
	}
	if len(skipped) != want {
		t.Errorf("%d files reported skipped, want %d: %v", len(skipped), want, skipped)
	}
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}, ImageRoot: f.root})
	must(err)
	g, err := p.Build(ctx, docs)
	must(err)
	path := filepath.Join(t.TempDir(), "collection.flwg")
	must(graph.Save(path, g))
	data, err := os.ReadFile(path)
	must(err)
	passwd, _ := os.ReadFile("/etc/passwd")
	firstLine, _, _ := strings.Cut(string(passwd), "\n")
	for name, s := range map[string]string{"environment secret": envSecret, "outside file": f.secretText, "/etc/passwd": firstLine} {
		if s != "" && bytes.Contains(data, []byte(s)) {
			t.Errorf("the graph file holds the %s %q", name, s)
		}
	}
	if !bytes.Contains(data, []byte("Kestrels nest on the north ridge")) {
		t.Error("the graph file misses the collection's own document: the test does not bite")
	}
}
