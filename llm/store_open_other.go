//go:build !unix

package llm

import (
	"fmt"
	"os"
)

// openEntry opens a cache entry for reading, refusing anything that is not
// a regular file before opening it (a symbolic link included).
func openEntry(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("llm: cache entry %s is not a regular file", path)
	}
	return os.Open(path)
}
