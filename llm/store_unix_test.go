//go:build unix

package llm_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/flowreader/flowreader/llm"
)

// A cache entry that is a symbolic link to /dev/zero, a FIFO, or a regular
// file larger than any entry DirStore writes is a miss, answered at once:
// before, the link made Get read /dev/zero until the process ran out of
// memory and the FIFO made it wait for a writer forever.
func TestDirStoreRefusesSpecialEntries(t *testing.T) {
	dir := t.TempDir()
	s := llm.DirStore(dir)
	key := func(c byte) string {
		b := make([]byte, 64)
		for i := range b {
			b[i] = c
		}
		return string(b)
	}
	entry := func(k string) string {
		p := filepath.Join(dir, k[:2], k)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	zero, fifo, big, good, link := key('a'), key('b'), key('c'), key('d'), key('e')
	if err := os.Symlink("/dev/zero", entry(zero)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(entry(fifo), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(entry(big))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil { // sparse: no disk used
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	if err := s.Put(good, []byte("value")); err != nil {
		t.Fatal(err)
	}
	// A link to a valid entry is refused too: DirStore never writes one.
	if err := os.Symlink(entry(good), entry(link)); err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]string{"link to /dev/zero": zero, "FIFO": fifo, "1 TiB sparse file": big, "link to an entry": link} {
		done := make(chan bool, 1)
		go func() {
			_, ok := s.Get(k)
			done <- ok
		}()
		select {
		case ok := <-done:
			if ok {
				t.Errorf("%s: Get reported a hit", name)
			}
		case <-time.After(2 * time.Minute): // a hang detector: a blocked read never returns
			t.Fatalf("%s: Get still blocked after 2 minutes", name)
		}
	}
	if v, ok := s.Get(good); !ok || string(v) != "value" {
		t.Fatalf("Get of a good entry = %q, %v", v, ok)
	}
}
