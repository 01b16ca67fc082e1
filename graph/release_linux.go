//go:build linux

package graph

import (
	"os"
	"syscall"
	"unsafe"
)

// release gives the whole pages inside b back to the operating system: Load
// calls it on the edge records of its file buffer once they are decoded,
// since they are never read again but share one allocation with the node
// strings and the embeddings, which stay. The pages read back as zeros if
// touched; nothing touches them. It is best effort: an error leaves them
// resident.
func release(b []byte) {
	ps := os.Getpagesize()
	if len(b) < 2*ps {
		return
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (int(-start) & (ps - 1)) // bytes to the first page boundary
	hi := lo + (len(b)-lo)&^(ps-1)
	if hi > lo {
		syscall.Madvise(b[lo:hi], syscall.MADV_DONTNEED)
	}
}

// onDisk is the bytes of st's file that the file system holds (allocated
// blocks), or 0 when unknown.
func onDisk(st os.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Blocks * 512
	}
	return 0
}
