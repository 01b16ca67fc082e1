//go:build unix

package llm

import (
	"os"
	"syscall"
)

// openEntry opens a cache entry for reading without following a symbolic
// link in its last element and without waiting for a FIFO's writer
// (O_NONBLOCK does nothing to a regular file).
func openEntry(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
