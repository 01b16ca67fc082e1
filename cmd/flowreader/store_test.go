package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/internal/pgtest"
)

// TestBuildStore runs the real command: build into a store, inspect it,
// refuse a second build without --update, update after a document
// changed.
func TestBuildStore(t *testing.T) {
	url := pgtest.Start(t).URL()
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "# Harbour\n\nThe harbour wall was repaired after the storm surge of May.\n")
	write("b.md", "# Lighthouse\n\nThe lighthouse keeper lit the lamp every evening.\n")

	out, errs, code := flowreaderProcess(t, dir, "build", "--quiet", "--store", url, "--collection", "harbour", "docs")
	if code != 0 || !strings.Contains(out, "stored collection harbour") {
		t.Fatalf("build --store: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = flowreaderProcess(t, dir, "inspect", "--store", url)
	if code != 0 || !strings.Contains(out, "collection harbour: version 1, 2 nodes in 2 documents") {
		t.Fatalf("inspect --store: exit %d\n%s\n%s", code, out, errs)
	}
	_, errs, code = flowreaderProcess(t, dir, "build", "--quiet", "--store", url, "--collection", "harbour", "docs")
	if code != 2 || !strings.Contains(errs, "--update") {
		t.Fatalf("a second build without --update: exit %d, want 2 (usage)\n%s", code, errs)
	}
	write("b.md", "# Lighthouse\n\nThe lighthouse keeper lit the lamp every evening.\n\nIn winter the lamp burned all night.\n")
	write("c.md", "# Ferry\n\nThe ferry runs twice a day in summer.\n")
	out, errs, code = flowreaderProcess(t, dir, "build", "--quiet", "--update", "--store", url, "--collection", "harbour", "docs")
	if code != 0 || !strings.Contains(out, "updated collection harbour to version 2") {
		t.Fatalf("build --update --store: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = flowreaderProcess(t, dir, "inspect", "--store", url, "--collection", "harbour")
	if code != 0 || !strings.Contains(out, "collection harbour: version 2,") || !strings.Contains(out, "in 3 documents") {
		t.Fatalf("inspect --collection: exit %d\n%s\n%s", code, out, errs)
	}
	_, errs, code = flowreaderProcess(t, dir, "inspect", "--store", url, "--collection", "nope")
	if code == 0 || !strings.Contains(errs, "no such collection") {
		t.Fatalf("inspect of a missing collection: exit %d\n%s", code, errs)
	}
	for _, args := range [][]string{
		{"build", "--store", url, "docs"},
		{"build", "--collection", "x", "docs"},
		{"build", "--store", url, "--collection", "x", "-o", "g.frg", "docs"},
		{"inspect", "--store", url, "-g", "g.frg"},
	} {
		if _, errs, code := flowreaderProcess(t, dir, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errs)
		}
	}
}
