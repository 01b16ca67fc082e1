//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package pgstore

import (
	"syscall"
	"unsafe"
)

// mapWords returns a zeroed slice of n 8-byte words in an anonymous
// private mapping, outside the Go heap, and the mapping (to unmap when
// nothing reads the words any more); on failure, a heap slice and nil.
func mapWords(n int) ([]uint64, []byte) {
	if n <= 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(-1, 0, 8*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]uint64, n), nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n), b
}

// unmap releases mappings made by mapWords.
func unmap(ms [][]byte) {
	for _, b := range ms {
		syscall.Munmap(b) //nolint:errcheck // nothing to do on failure but leak
	}
}
