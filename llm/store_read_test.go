//go:build unix

package llm

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A cache entry that is a link to /dev/zero, a FIFO, or a file larger than
// the bound reads as a miss, at once; a regular entry reads back.
func TestDirStoreRefusesNonRegularEntries(t *testing.T) {
	dir := t.TempDir()
	s := DirStore(dir)
	if err := s.Put("abcdef", []byte("value")); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Get("abcdef"); !ok || string(v) != "value" {
		t.Fatalf("regular entry: %q %v", v, ok)
	}
	os.MkdirAll(filepath.Join(dir, "ze"), 0o755)
	os.Symlink("/dev/zero", filepath.Join(dir, "ze", "zero01"))
	os.MkdirAll(filepath.Join(dir, "fi"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, "fi", "fifo01"), 0o644); err != nil {
		t.Log("no FIFO:", err)
	}
	big := filepath.Join(dir, "bi", "big001")
	os.MkdirAll(filepath.Dir(big), 0o755)
	if f, err := os.Create(big); err == nil {
		f.Truncate(maxEntryBytes + 1) // sparse
		f.Close()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, k := range []string{"zero01", "fifo01", "big001"} {
			if v, ok := s.Get(k); ok {
				t.Errorf("%s: read %d bytes, want a miss", k, len(v))
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang detector: a blocked read never returns
		t.Fatal("Get blocked on a FIFO")
	}
}
