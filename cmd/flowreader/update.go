package main

import (
	"errors"
	"fmt"
	"github.com/flowreader/flowreader/internal/termsafe"
	"io"
	"io/fs"

	"github.com/flowreader/flowreader/graph"
)

// loadForUpdate loads the graph that build --update updates: nil (a fresh
// build, said on stderr) when the file does not exist yet.
func loadForUpdate(path string, stderr io.Writer) (*graph.Graph, error) {
	g, err := graph.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "build: --update: %s does not exist yet: building it from scratch\n", path)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--update: %w", err)
	}
	return g, nil
}

// printDiff prints one line per added, replaced and removed document and
// returns the counts for the summary line.
func printDiff(w io.Writer, d graph.Diff, docs int) string {
	for _, c := range []struct {
		what string
		ids  []string
	}{{"added", d.Added}, {"replaced", d.Replaced}, {"removed", d.Removed}} {
		for _, id := range c.ids {
			fmt.Fprintf(w, "%s %s\n", c.what, termsafe.Text(id))
		}
	}
	if len(d.Added)+len(d.Replaced)+len(d.Removed) == 0 {
		return " (no document changed)"
	}
	kept := docs - len(d.Added) - len(d.Replaced)
	return fmt.Sprintf(" (%d added, %d replaced, %d removed, %d unchanged)", len(d.Added), len(d.Replaced), len(d.Removed), kept)
}
