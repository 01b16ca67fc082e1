//go:build !linux

package graph

import "os"

// release is a no-op where Load does not return pages early (see
// release_linux.go).
func release([]byte) {}

// onDisk is 0 (unknown) where block counts are not read: Load then
// allocates up front only up to loadEager.
func onDisk(os.FileInfo) int64 { return 0 }
