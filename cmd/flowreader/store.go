package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/pgstore"
)

// storeTarget is build's --store and --collection: a collection in a
// PostgreSQL database instead of a graph file.
type storeTarget struct {
	s      *pgstore.Store
	name   string
	base   int64 // the version the update is made from
	exists bool
}

// openTarget opens the store and reads the collection's version before
// the build, so that a writer that commits while this one builds makes
// this one's update fail rather than be undone by it.
func openTarget(ctx context.Context, url, name string, update bool) (*storeTarget, error) {
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	t := &storeTarget{s: s, name: name}
	cs, err := s.Collections(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	for _, c := range cs {
		if c.Name == name {
			t.base, t.exists = c.Version, true
		}
	}
	if t.exists && !update {
		s.Close()
		return nil, fmt.Errorf("collection %q exists in the store: build --update to update it: %w", name, errUsage)
	}
	return t, nil
}

// write imports g as the collection, or updates the collection to it.
func (t *storeTarget) write(ctx context.Context, g *graph.Graph, docs []graph.Document, stdout io.Writer) error {
	if !t.exists {
		if err := t.s.Import(ctx, t.name, g, docs...); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "stored collection %s: %d nodes, %d edges from %d documents\n", termsafe.Text(t.name), len(g.Nodes), len(g.Edges), len(docs))
		return nil
	}
	v, err := t.s.Update(ctx, t.name, t.base, g, nil, docs...)
	if errors.Is(err, pgstore.ErrConflict) {
		return fmt.Errorf("%w: another writer updated collection %q during this build; nothing was written, build again", err, t.name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "updated collection %s to version %d: %d nodes, %d edges from %d documents\n", termsafe.Text(t.name), v, len(g.Nodes), len(g.Edges), len(docs))
	return nil
}

// inspectStore prints the store's collections, or one.
func inspectStore(ctx context.Context, url, name string, stdout io.Writer) error {
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		return err
	}
	defer s.Close()
	cs, err := s.Collections(ctx)
	if err != nil {
		return err
	}
	found := false
	for _, c := range cs {
		if name != "" && c.Name != name {
			continue
		}
		found = true
		format := "float32"
		if c.Int8 {
			format = "int8"
		}
		fmt.Fprintf(stdout, "collection %s: version %d, %d nodes in %d documents, embeddings %s dimension %d, embedder %s\n",
			termsafe.Text(c.Name), c.Version, c.Nodes, c.Documents, format, c.Dim, termsafe.Text(orUnknown(c.Embedder)))
	}
	if name != "" && !found {
		return fmt.Errorf("collection %q: no such collection: %w", name, flowreader.ErrNoGraph)
	}
	if name == "" && len(cs) == 0 {
		fmt.Fprintln(stdout, "no collections")
	}
	return nil
}

// askOutput is how ask prints: --json, --explain, --stream.
type askOutput struct{ json, explain, stream bool }

// askStore answers a question from a collection of a store (ask --store):
// as over a graph file, with citations placed by their pages alone (the
// store keeps no graph here) and --explain's chains in the candidate
// subgraph the question was scored on.
func askStore(ctx context.Context, p *flowreader.Pipeline, url, coll, question string, opt flowreader.Options, out askOutput, stdout, stderr io.Writer) error {
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := p.OpenStore(ctx, s, coll)
	if err != nil {
		return err
	}
	none := &graph.Graph{} // citations: no node's pages known beyond its citation's
	var sp *streamPrinter
	if out.stream {
		sp = &streamPrinter{out: stdout, log: stderr, json: out.json, g: none}
		if !out.json {
			fmt.Fprintf(stdout, "Q: %s\nA: ", termsafe.Text(question))
		}
		opt.Stream = sp.event
	}
	res, err := ix.Ask(ctx, question, opt)
	if sp != nil && !out.json && sp.answer.Len() > 0 {
		fmt.Fprintln(stdout)
	}
	if err != nil {
		return err
	}
	sub := none
	if res.Scores != nil && res.Scores.Graph != nil {
		sub = res.Scores.Graph
	}
	switch {
	case sp != nil:
		if sp.err != nil {
			return sp.err
		}
		if !out.json {
			sp.finish(res)
		}
	case out.json:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
		return noAnswer(res)
	default:
		printAnswer(stdout, none, question, res)
	}
	if out.explain && !out.json {
		printExplain(stdout, sub, res)
	}
	return noAnswer(res)
}

// parseFilter reads --filter's JSON: a flowreader.Filter, no other field.
func parseFilter(s string) (flowreader.Filter, error) {
	var f flowreader.Filter
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf(`--filter %q: want {"ids": [...], "metadata": {"key": "value"}}: %v: %w`, s, err, errUsage)
	}
	if dec.More() {
		return f, fmt.Errorf("--filter %q: data after the object: %w", s, errUsage)
	}
	if slices.Contains(f.IDs, "") {
		return f, fmt.Errorf("--filter %q: an empty document ID: %w", s, errUsage)
	}
	if _, ok := f.Metadata[""]; ok {
		return f, fmt.Errorf("--filter %q: an empty metadata key: %w", s, errUsage)
	}
	return f, nil
}
