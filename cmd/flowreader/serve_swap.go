package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/pgstore"
)

// fileCheckInterval is how often serve -g looks at its graph file: a
// replaced file is served within about this long plus its load time.
const fileCheckInterval = 250 * time.Millisecond

// fileIndex is serve -g's index: the graph file's, replaced as a whole
// when the file is replaced. A call takes the current index once and keeps
// it to its end, so calls in flight finish on the old graph while new
// calls get the new one.
type fileIndex struct {
	path string
	load func(context.Context) (*flowreader.Index, error)
	cur  atomic.Pointer[flowreader.Index]
	// seen is the file as last loaded (or last failed to load): a change
	// of identity (a rename over it), size or modification time is a new
	// file.
	seen os.FileInfo
}

// openFileIndex loads the file's index.
func openFileIndex(ctx context.Context, path string, load func(context.Context) (*flowreader.Index, error)) (*fileIndex, error) {
	fi := &fileIndex{path: path, load: load}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	ix, err := load(ctx)
	if err != nil {
		return nil, err
	}
	fi.seen = st
	fi.cur.Store(ix)
	return fi, nil
}

// index is server.Options.Collections: the current index, for requests
// that name no collection.
func (fi *fileIndex) index(_ context.Context, name string) (*flowreader.Index, error) {
	if name != "" {
		return nil, fmt.Errorf("%w: this server serves one graph file, not collections: leave \"collection\" out", flowreader.ErrNoGraph)
	}
	return fi.cur.Load(), nil
}

// changed reports whether the file differs from the one last seen.
func (fi *fileIndex) changed() (os.FileInfo, bool) {
	st, err := os.Stat(fi.path)
	if err != nil {
		return nil, false // gone for now (mid-replace by a non-atomic writer): keep serving
	}
	return st, !os.SameFile(st, fi.seen) || st.Size() != fi.seen.Size() || !st.ModTime().Equal(fi.seen.ModTime())
}

// watch checks the file every interval until ctx ends, and swaps in the
// index of a replaced file. A file that fails to load (half written by a
// writer that does not rename, or another embedder's) is reported once
// and the old index kept until the file changes again.
func (fi *fileIndex) watch(ctx context.Context, interval time.Duration, stderr io.Writer) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st, ok := fi.changed()
		if !ok {
			continue
		}
		fi.seen = st
		start := time.Now()
		ix, err := fi.load(ctx)
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(stderr, "serve: %s changed but does not load (still serving the previous graph): %v\n", termsafe.Text(fi.path), err)
			}
			continue
		}
		fi.cur.Store(ix)
		fmt.Fprintf(stderr, "serve: reloaded %s: %d nodes (loaded in %s)\n", termsafe.Text(fi.path), len(ix.Graph().Nodes), time.Since(start).Round(time.Millisecond))
	}
}

// maxCollectionName bounds a requested collection's name (the store's
// names are shorter; a longer one is unknown without asking).
const maxCollectionName = 256

// storeCollections is serve --store's server.Options.Collections: an
// index over the named collection of st, made per call (it holds nothing
// but the name; the store's connections and caches are shared). An
// unknown collection is the question's error, which wraps
// flowreader.ErrNoGraph.
func storeCollections(p *flowreader.Pipeline, st *pgstore.Store) func(context.Context, string) (*flowreader.Index, error) {
	return func(ctx context.Context, name string) (*flowreader.Index, error) {
		switch {
		case name == "":
			return nil, fmt.Errorf("%w: this server serves a store's collections: name one (\"collection\": \"NAME\")", flowreader.ErrNoGraph)
		case len(name) > maxCollectionName:
			return nil, fmt.Errorf("%w: a collection name of %d bytes", flowreader.ErrNoGraph, len(name))
		}
		return p.OpenStore(ctx, st, name)
	}
}
