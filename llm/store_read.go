package llm

import (
	"io"
	"os"
	"syscall"
)

// maxEntryBytes bounds a cache entry read back: model answers and
// embedding batches are far smaller, and a forged entry must not exhaust
// memory.
const maxEntryBytes = 64 << 20

// readEntry reads the cache entry p when it is a regular file (Put only
// ever renames regular files into place) of at most maxEntryBytes: a
// symbolic link (to /dev/zero, say), a FIFO (whose open would block) or a
// device planted in a cache folder reads as a miss.
func readEntry(p string) ([]byte, bool) {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxEntryBytes {
		return nil, false
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !os.SameFile(st, now) {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxEntryBytes+1))
	if err != nil || len(b) > maxEntryBytes {
		return nil, false
	}
	return b, true
}
