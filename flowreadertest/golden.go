package flowreadertest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Golden compares got with the golden file at path and reports a mismatch
// (the first differing line, with both versions) or a missing file with
// t.Errorf. With update set it writes got to path instead (creating its
// folder; a temporary file renamed into place, so an interrupted update
// leaves the old file whole) and reports only a failed write. It returns
// whether got matched or was written. update is the caller's flag (see the
// package doc): Golden registers none.
func Golden(t TB, path string, got []byte, update bool) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	if update {
		if err := writeAtomic(path, got); err != nil {
			t.Errorf("flowreadertest: Golden: update %s: %v", path, err)
			return false
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("flowreadertest: Golden: %v (run the test with -update to create it)", err)
		return false
	}
	if bytes.Equal(got, want) {
		return true
	}
	t.Errorf("flowreadertest: Golden: output differs from %s (run the test with -update to accept it)\n%s", path, firstDiff(string(want), string(got)))
	return false
}

// firstDiff describes the first line where want and got differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g || i >= len(wl) || i >= len(gl) {
			return fmt.Sprintf("line %d:\n\twant %q\n\tgot  %q\n(want %d lines, got %d)", i+1, w, g, len(wl), len(gl))
		}
	}
	return "(same lines, different bytes)"
}

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	// CreateTemp makes the file 0600; give it the mode of the file it
	// replaces, or the usual 0644 of a checked-in file.
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
