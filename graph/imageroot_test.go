//go:build unix

package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// The image root is recorded relative to the graph file and resolved back
// by Load, so that a graph moved with its images still finds them; every
// way of reading gives the same graph.
func TestImageRootRoundTrip(t *testing.T) {
	base := t.TempDir()
	images := filepath.Join(base, "docs")
	p := filepath.Join(base, "out", "g.frg")
	os.MkdirAll(filepath.Dir(p), 0o755)
	for _, n := range []int{0, 3, 200} { // 200 nodes: Load streams the payload
		g := randomGraph(t, n, 8, uint64(n))
		for _, root := range []string{"x", "abc", images} { // every padding length
			g.ImageRoot = root
			if err := Save(p, g); err != nil {
				t.Fatal(err)
			}
			want, _ := filepath.Abs(root)
			h, err := Load(p)
			if err != nil {
				t.Fatalf("n=%d root=%q: %v", n, root, err)
			}
			if got, _ := filepath.Abs(h.ImageRoot); got != want {
				t.Errorf("n=%d: Load gives image root %q, want %q", n, h.ImageRoot, want)
			}
			data, _ := os.ReadFile(p)
			r, err := Read(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(filepath.Dir(p), want)
			if r.ImageRoot != filepath.ToSlash(rel) {
				t.Errorf("file records %q, want %q", r.ImageRoot, rel)
			}
			if !reflect.DeepEqual(r.Emb, h.Emb) && n > 0 || !reflect.DeepEqual(r.Nodes, h.Nodes) && n > 0 {
				t.Errorf("n=%d: Read and Load differ", n)
			}
		}
	}
	// Moved together, graph and images still meet.
	g := randomGraph(t, 3, 8, 9)
	g.ImageRoot = images
	if err := Save(p, g); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(base, moved); err != nil {
		t.Fatal(err)
	}
	h, err := Load(filepath.Join(moved, "out", "g.frg"))
	if err != nil || h.ImageRoot != filepath.Join(moved, "docs") {
		t.Fatalf("after a move: %q, %v", h.ImageRoot, err)
	}
}

// A graph without an image root is written exactly as before (flags zero),
// so old files and new ones without a root are the same bytes.
func TestNoImageRootIsTheOldFormat(t *testing.T) {
	g := randomGraph(t, 5, 8, 1)
	data := encode(t, g)
	if flags := binary.LittleEndian.Uint32(data[12:]); flags != 0 {
		t.Fatalf("flags %d", flags)
	}
	g.ImageRoot = "docs"
	with := encode(t, g)
	if binary.LittleEndian.Uint32(with[12:]) != flagImageRoot || len(with) != len(data)+8 {
		t.Fatalf("with a root: flags %d, %d bytes (old %d)", binary.LittleEndian.Uint32(with[12:]), len(with), len(data))
	}
	// A bad root prefix (length beyond the payload) is ErrFormat, not a panic.
	bad := append([]byte(nil), with...)
	bad[headerSize] = 0x7f
	rechecksum(bad)
	if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrFormat) {
		t.Fatalf("bad root: %v", err)
	}
}

// Save creates files with mode 0666 less the umask, as other tools do.
func TestSaveHonoursUmask(t *testing.T) {
	dir := t.TempDir()
	for umask, want := range map[int]os.FileMode{0o022: 0o644, 0o077: 0o600, 0o002: 0o664} {
		old := syscall.Umask(umask)
		p := filepath.Join(dir, "g.frg")
		err := Save(p, randomGraph(t, 2, 4, 1))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(p)
		if st.Mode().Perm() != want {
			t.Errorf("umask %03o: mode %v, want %v", umask, st.Mode().Perm(), want)
		}
		os.Remove(p)
	}
}
