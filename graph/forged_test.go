//go:build unix

package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// forgedHeader is a valid header announcing a payload of n bytes.
func forgedHeader(n uint64) []byte {
	h := make([]byte, headerSize)
	copy(h, magic)
	binary.LittleEndian.PutUint32(h[8:], formatVersion)
	binary.LittleEndian.PutUint64(h[16:], n)
	binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
	return h
}

// zeros yields n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	clear(p[:k])
	z.n -= int64(k)
	return k, nil
}

// A header announcing 8 GB in a file whose size says 8 GB too (a sparse
// file) makes Load allocate as the bytes arrive, not 8 GB up front: here
// the file ends after 64 MB, and Load fails having allocated a small
// multiple of that.
func TestLoadForgedHeaderDoesNotAllocateUpFront(t *testing.T) {
	const claimed = 8 << 30
	r := io.MultiReader(bytes.NewReader(forgedHeader(claimed)), &zeros{n: 64 << 20})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := loadFrom(r, headerSize+claimed, loadChunk)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("err = %v, want ErrFormat", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<30 {
		t.Fatalf("allocated %d MB for 64 MB of input", got>>20)
	}
}

// Load of a device (/dev/zero) or a FIFO fails at the header instead of
// reading without end first.
func TestLoadDeviceFailsAtTheHeader(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	done := make(chan error, 1)
	go func() { _, err := Load("/dev/zero"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("Load(/dev/zero) = %v, want ErrFormat", err)
		}
	case <-time.After(2 * time.Minute): // a hang detector: the header check fails at once
		t.Fatal("Load(/dev/zero) still reading after 2 minutes")
	}
	fifo := filepath.Join(t.TempDir(), "g.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write(forgedHeader(8 << 30))
			w.Write(make([]byte, 1<<20))
			w.Close()
		}
	}()
	if _, err := Load(fifo); !errors.Is(err, ErrFormat) {
		t.Fatalf("Load(FIFO) = %v, want ErrFormat", err)
	}
}
