//go:build !linux

package graph

// release is a no-op where Load does not return pages early (see
// release_linux.go).
func release([]byte) {}
