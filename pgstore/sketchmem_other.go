//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package pgstore

// mapWords returns a zeroed heap slice of n words: this platform's
// sketches stay on the Go heap.
func mapWords(n int) ([]uint64, []byte) { return make([]uint64, n), nil }

func unmap([][]byte) {}
