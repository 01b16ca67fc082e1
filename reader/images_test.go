package reader

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

func TestReadRooted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.png"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readRooted(dir, "a.png", 10); err != nil || string(b) != "0123456789" {
		t.Errorf("read: %q %v", b, err)
	}
	if _, err := readRooted(dir, "a.png", 9); !errors.Is(err, errImageTooLarge) {
		t.Errorf("size limit: %v", err)
	}
	for _, p := range []string{"../a.png", "/etc/passwd", "x/../../a.png"} {
		if _, err := readRooted(dir, p, 100); !errors.Is(err, errImagePath) {
			t.Errorf("%q: %v", p, err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "link")); err == nil {
		if _, err := readRooted(dir, "link/hostname", 1<<20); err == nil {
			t.Error("symlink escaped the root")
		}
	}
	if _, err := readRooted(dir, "missing.png", 100); err == nil {
		t.Error("missing file read")
	}
}

func TestImageFallsBackToText(t *testing.T) {
	m := defaultScript().Model()
	m.Images = true
	v := &VLM{Model: m, ImageRoot: t.TempDir()} // nests.png is not there
	r := newTestRun(t, v, nil)
	req, n := r.workerRequest(chainsN(1)[0])
	if n != 0 {
		t.Errorf("%d images sent for a missing file", n)
	}
	if got := renderRequest(req); !contains(got, "Text in image: North Mole 212 248") {
		t.Error("text rendering missing")
	}
	v = &VLM{Model: m, Images: func(graph.ImageRef) ([]byte, error) { return make([]byte, 100), nil }, maxImageBytes: 10}
	r = newTestRun(t, v, nil)
	if _, n := r.workerRequest(chainsN(1)[0]); n != 0 {
		t.Error("oversized image sent")
	}
}

func contains(s, sub string) bool { return indexFold(s, sub) >= 0 }
