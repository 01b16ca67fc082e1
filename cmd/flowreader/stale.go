package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader/internal/termsafe"
)

// removeStaleTemps removes the temporary files that graph.Save left next to
// path in a process that died before renaming them (".NAME.tmp-PID-RANDOM",
// as large as the graph), and says so. Files of processes still running
// are left alone: they may be saving the same graph now.
func removeStaleTemps(path string, stderr io.Writer) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + ".tmp-"
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(strings.TrimPrefix(name, prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if os.Remove(filepath.Join(dir, name)) == nil {
			fmt.Fprintf(stderr, "build: removed %s, left by an interrupted save (process %d)\n", termsafe.Text(name), pid)
		}
	}
}
