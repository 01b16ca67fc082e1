package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/termsafe"
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

// checkPrune refuses an update that would drop documents of old when a path
// given is a file: the user most likely updates the files named, not the
// collection down to them. Folders given are the collection, so documents
// missing from them were deleted and are dropped.
func checkPrune(old *graph.Graph, docs []graph.Document, paths []string) error {
	files := false
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			files = true
		}
	}
	if !files {
		return nil
	}
	given := map[string]bool{}
	for _, d := range docs {
		given[d.ID] = true
	}
	var gone []string
	seen := map[string]bool{}
	for i := range old.Nodes {
		id := old.Nodes[i].Doc
		if !given[id] && !seen[id] {
			seen[id] = true
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	sort.Strings(gone)
	return fmt.Errorf("--update would drop %d of the graph's %d documents not among the paths given (first: %s): give the whole collection's folder, or pass --prune to drop them: %w",
		len(gone), len(gone)+countGiven(old, given), termsafe.Text(gone[0]), errUsage)
}

// countGiven counts the graph's documents among the given ones.
func countGiven(g *graph.Graph, given map[string]bool) int {
	seen := map[string]bool{}
	for i := range g.Nodes {
		if id := g.Nodes[i].Doc; given[id] {
			seen[id] = true
		}
	}
	return len(seen)
}
