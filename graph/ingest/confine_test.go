//go:build unix

package ingest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// confineFixture is a collection root beside an outside folder holding a
// secret, with a plain document inside the root.
type confineFixture struct {
	root, outside string
	secret        string
}

func newConfineFixture(t *testing.T) *confineFixture {
	t.Helper()
	base := t.TempDir()
	f := &confineFixture{
		root:    filepath.Join(base, "collection"),
		outside: filepath.Join(base, "outside"),
		secret:  "SECRET-9c1e outside the collection",
	}
	for _, d := range []string{filepath.Join(f.root, "sub"), f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.write(t, filepath.Join(f.outside, "secret.txt"), f.secret+"\n")
	f.write(t, filepath.Join(f.outside, "secret.md"), "# Secret\n\n"+f.secret+"\n")
	f.write(t, filepath.Join(f.root, "notes.md"), "# Notes\n\nKestrels nest on the north ridge.\n")
	return f
}

func (f *confineFixture) write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *confineFixture) link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(f.root, name)); err != nil {
		t.Fatal(err)
	}
}

// ingestRoot runs Read over the root and returns the document IDs, the
// skipped paths (relative to the root) with their reasons from the
// report, and Read's error.
func (f *confineFixture) ingestRoot(t *testing.T) (ids []string, skipped map[string]error, err error) {
	t.Helper()
	skipped = map[string]error{}
	done := make(chan struct{})
	var docsErr error
	var texts []string
	go func() {
		defer close(done)
		docs, rep, err := Config{}.Read(context.Background(), f.root)
		for _, fr := range rep.Files {
			if fr.Err != nil {
				rel, _ := filepath.Rel(f.root, fr.Path)
				skipped[filepath.ToSlash(rel)] = fr.Err
			}
		}
		docsErr = err
		for _, d := range docs {
			ids = append(ids, d.ID)
			for _, it := range d.Items {
				texts = append(texts, it.Text, it.Context)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a blocked open never returns; 2 minutes spare a loaded machine
		t.Fatal("Path blocked (a FIFO was opened?)")
	}
	for _, s := range texts {
		if strings.Contains(s, "SECRET-9c1e") {
			t.Errorf("a file outside the collection was read: %q", s)
		}
	}
	sort.Strings(ids)
	return ids, skipped, docsErr
}

// A file symlink that leaves the collection is not read, not fatal, and
// reported with ErrPathEscape; the rest of the collection is ingested.
func TestPathSkipsEscapingFileSymlink(t *testing.T) {
	f := newConfineFixture(t)
	f.link(t, filepath.Join(f.outside, "secret.txt"), "leak.txt")
	f.link(t, filepath.Join(f.outside, "secret.md"), filepath.Join("sub", "leak.md"))
	// Through a relative target too.
	f.link(t, filepath.Join("..", "..", "outside", "secret.txt"), filepath.Join("sub", "rel.txt"))
	ids, skipped, err := f.ingestRoot(t)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, " ") != "notes.md" {
		t.Errorf("documents %v, want only notes.md", ids)
	}
	for _, p := range []string{"leak.txt", "sub/leak.md", "sub/rel.txt"} {
		if !errors.Is(skipped[p], ErrPathEscape) {
			t.Errorf("%s: skipped with %v, want ErrPathEscape (skipped: %v)", p, skipped[p], skipped)
		}
	}
}

// Files under /proc and /etc are outside any collection: a link to them is
// skipped like any other escape (the /proc/self/environ case puts every
// environment variable into the graph otherwise).
func TestPathSkipsSystemFileSymlinks(t *testing.T) {
	f := newConfineFixture(t)
	t.Setenv("INGEST_TEST_SECRET", "sk-ingest-77aa")
	for name, target := range map[string]string{"env.txt": "/proc/self/environ", "sub/passwd.txt": "/etc/passwd"} {
		if _, err := os.Stat(target); err != nil {
			continue
		}
		f.link(t, target, name)
	}
	ids, skipped, err := f.ingestRoot(t)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, " ") != "notes.md" {
		t.Errorf("documents %v, want only notes.md", ids)
	}
	for p, reason := range skipped {
		if !errors.Is(reason, ErrPathEscape) {
			t.Errorf("%s: %v, want ErrPathEscape", p, reason)
		}
	}
}

// A dangling symlink is skipped and reported; it does not abort the walk.
func TestPathSkipsDanglingSymlink(t *testing.T) {
	f := newConfineFixture(t)
	f.link(t, filepath.Join(f.root, "gone.md"), "dangling.md")
	f.link(t, "nowhere.txt", filepath.Join("sub", "dangling.txt"))
	ids, skipped, err := f.ingestRoot(t)
	if err != nil {
		t.Fatalf("a dangling symlink aborted the walk: %v", err)
	}
	if strings.Join(ids, " ") != "notes.md" {
		t.Errorf("documents %v, want only notes.md", ids)
	}
	for _, p := range []string{"dangling.md", "sub/dangling.txt"} {
		if !errors.Is(skipped[p], fs.ErrNotExist) {
			t.Errorf("%s: skipped with %v, want fs.ErrNotExist", p, skipped[p])
		}
	}
}

// A symlink to a file inside the collection is read like the file itself,
// and nothing is reported.
func TestPathReadsSymlinkInsideRoot(t *testing.T) {
	f := newConfineFixture(t)
	f.write(t, filepath.Join(f.root, "sub", "real.txt"), "Falcons hunt over the south marsh.\n")
	f.link(t, filepath.Join("sub", "real.txt"), "alias.txt")
	f.link(t, filepath.Join(f.root, "notes.md"), filepath.Join("sub", "notes-link.md"))
	ids, skipped, err := f.ingestRoot(t)
	if err != nil {
		t.Fatal(err)
	}
	if want := "alias.txt notes.md sub/notes-link.md sub/real.txt"; strings.Join(ids, " ") != want {
		t.Errorf("documents %v, want %s", ids, want)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %v, want nothing", skipped)
	}
	// The collection root may itself be reached through a symlink.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(f.root, alias); err != nil {
		t.Fatal(err)
	}
	docs, rep, err := Config{}.Read(context.Background(), alias)
	for _, fr := range rep.Files {
		if fr.Err != nil {
			t.Errorf("skipped %s: %v", fr.Path, fr.Err)
		}
	}
	if err != nil || len(docs) != 4 {
		t.Fatalf("root through a symlink: %d documents, %v", len(docs), err)
	}
}

// A FIFO (or any non-regular file) is never opened: opening a FIFO blocks
// until a writer appears.
func TestPathSkipsFIFO(t *testing.T) {
	f := newConfineFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.root, "pipe.txt"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	f.link(t, filepath.Join("..", "pipe.txt"), filepath.Join("sub", "pipe-link.md"))
	ids, skipped, err := f.ingestRoot(t)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, " ") != "notes.md" {
		t.Errorf("documents %v, want only notes.md", ids)
	}
	for _, p := range []string{"pipe.txt", "sub/pipe-link.md"} {
		if !errors.Is(skipped[p], ErrUnsupported) {
			t.Errorf("%s: skipped with %v, want ErrUnsupported", p, skipped[p])
		}
	}
}

// A MinerU content list that is a symlink out of the collection is not
// read: the folder is skipped and reported.
func TestPathSkipsEscapingContentList(t *testing.T) {
	f := newConfineFixture(t)
	f.write(t, filepath.Join(f.outside, "content_list.json"), `[{"type":"text","text":"`+f.secret+`","page_idx":0}]`)
	if err := os.MkdirAll(filepath.Join(f.root, "report"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.link(t, filepath.Join(f.outside, "content_list.json"), filepath.Join("report", "content_list.json"))
	ids, skipped, err := f.ingestRoot(t)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, " ") != "notes.md" {
		t.Errorf("documents %v, want only notes.md", ids)
	}
	if !errors.Is(skipped["report/content_list.json"], ErrPathEscape) {
		t.Errorf("skipped %v, want report/content_list.json with ErrPathEscape", skipped)
	}
	// Given directly, the MinerU folder is refused with the same error.
	if _, err := Path(filepath.Join(f.root, "report")); !errors.Is(err, ErrPathEscape) {
		t.Errorf("MinerU folder given directly: %v, want ErrPathEscape", err)
	}
}

// A single file given to Path obeys the rule within its own folder: a link
// out of it, or a FIFO, is an error (there is nothing else to ingest).
func TestPathSingleFileConfined(t *testing.T) {
	f := newConfineFixture(t)
	f.link(t, filepath.Join(f.outside, "secret.txt"), "leak.txt")
	if _, err := Path(filepath.Join(f.root, "leak.txt")); !errors.Is(err, ErrPathEscape) {
		t.Errorf("escaping file given directly: %v, want ErrPathEscape", err)
	}
	if err := syscall.Mkfifo(filepath.Join(f.root, "pipe.md"), 0o644); err == nil {
		if _, err := Path(filepath.Join(f.root, "pipe.md")); !errors.Is(err, ErrUnsupported) {
			t.Errorf("FIFO given directly: %v, want ErrUnsupported", err)
		}
	}
	f.link(t, "notes.md", "ok.md")
	if docs, err := Path(filepath.Join(f.root, "ok.md")); err != nil || len(docs) != 1 {
		t.Errorf("link inside the folder given directly: %d documents, %v", len(docs), err)
	}
}
