//go:build linux

package graph

import (
	"os"
	"path/filepath"
	"testing"
)

// Load allocates up front for any payload only when the file's bytes are
// on disk: a sparse file announcing 8 GB is not (it takes the growing
// read), a written one is.
func TestOnDiskSparseAndDense(t *testing.T) {
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse.flwg")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(forgedHeader(8 << 30)); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(headerSize + 8<<30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	st, err := os.Stat(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if onDisk(st) >= st.Size() {
		t.Fatalf("sparse file: %d of %d bytes on disk, want fewer", onDisk(st), st.Size())
	}
	dense := filepath.Join(dir, "dense")
	if err := os.WriteFile(dense, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err = os.Stat(dense); err != nil {
		t.Fatal(err)
	}
	if onDisk(st) < st.Size() {
		t.Fatalf("written file: %d of %d bytes on disk", onDisk(st), st.Size())
	}
}
