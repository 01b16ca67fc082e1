// Package memstore is a flowreader.Store over in-memory graphs, one per
// collection: what a store returns for a question, computed from the whole
// graph (score's candidate set, with the routing statistics a router
// opened on the whole graph reads, and the content classes). Tests of the index over a store use
// it, and the conformance suite compares other stores with it. A
// collection's positions are its graph's node indexes.
package memstore

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/flowhook"
	"github.com/flowreader/flowreader/internal/scorehook"
	"github.com/flowreader/flowreader/score"
)

// Store holds collections; it is safe for concurrent use.
type Store struct {
	// KeepText leaves the candidates' reading text in (by default it is
	// left out, as a store that reads it only for the nodes read does).
	KeepText bool

	mu    sync.Mutex
	colls map[string]*coll
}

// coll is one collection: its graph, scoring index and routing statistics.
type coll struct {
	g        *graph.Graph
	ix       *score.Index
	rank     []int32          // node → position in its document's reading order
	df       map[string]int32 // normalised keyword → contents holding it
	contents int              // nodes less those that copy a lower one
	version  int64
}

// ErrNotFound is a collection the store does not hold; it wraps
// flowreader.ErrNoGraph, as the Store interface asks.
var ErrNotFound = fmt.Errorf("memstore: no such collection: %w", flowreader.ErrNoGraph)

// Put makes g the collection name's (a new version when it exists).
func (s *Store) Put(name string, g *graph.Graph) {
	c := &coll{g: g, ix: score.NewIndex(g), rank: make([]int32, len(g.Nodes)), df: map[string]int32{}, version: 1}
	// Reading order as the router has it: by document, then Order, then
	// index.
	idx := make([]int, len(g.Nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := &g.Nodes[a], &g.Nodes[b]
		switch {
		case x.Doc != y.Doc:
			if x.Doc < y.Doc {
				return -1
			}
			return 1
		case x.Order != y.Order:
			return x.Order - y.Order
		}
		return 0
	})
	next := map[string]int32{}
	for _, v := range idx {
		d := g.Nodes[v].Doc
		c.rank[v] = next[d]
		next[d]++
	}
	c.contents = len(g.Nodes)
	for v := range g.Nodes {
		// A content class counts once, by its lowest node (as the
		// router over the whole graph counts it).
		if cp := g.Copies(v); cp != nil && int(cp[0]) != v {
			c.contents--
			continue
		}
		var seen []string
		for _, k := range g.Nodes[v].Keywords {
			if k = flowhook.NormKeyword(k); k != "" && !slices.Contains(seen, k) {
				seen = append(seen, k)
				c.df[k]++
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.colls == nil {
		s.colls = map[string]*coll{}
	}
	if old, ok := s.colls[name]; ok {
		c.version = old.version + 1
	}
	s.colls[name] = c
}

func (s *Store) get(name string) (*coll, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.colls[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return c, nil
}

// Candidates implements flowreader.Store.
func (s *Store) Candidates(ctx context.Context, name string, q score.Query, m int, cfg score.Config, f flowreader.Filter) (*score.Candidates, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := s.get(name)
	if err != nil {
		return nil, err
	}
	if len(f.IDs) > 0 || len(f.Metadata) > 0 {
		q.Nodes = []int{}
		for v := range c.g.Nodes {
			if passes(f, c.g.Nodes[v].Doc, c.g.Metadata) {
				q.Nodes = append(q.Nodes, v)
			}
		}
	}
	x, err := scorehook.Candidates(c.ix, cfg, q, m)
	if err != nil {
		return nil, err
	}
	cs := x.(*score.Candidates)
	cs.Version = c.version
	cs.Rank = make([]int32, len(cs.Nodes))
	cs.KeywordDF = map[string]int32{}
	cs.Contents = c.contents
	cs.Copies = make([][]int, len(cs.Nodes))
	for i, v := range cs.Nodes {
		cs.Rank[i] = c.rank[v]
		if cp := c.g.Copies(v); cp != nil {
			for _, u := range cp {
				cs.Copies[i] = append(cs.Copies[i], int(u))
			}
		}
		for _, k := range c.g.Nodes[v].Keywords {
			if k = flowhook.NormKeyword(k); k != "" {
				cs.KeywordDF[k] = c.df[k]
			}
		}
	}
	if !s.KeepText {
		for i := range cs.Graph.Nodes {
			n := &cs.Graph.Nodes[i]
			n.Content, n.Caption, n.Footnote, n.Summary, n.Tags, n.ImageText, n.Image, n.Context = "", "", "", "", nil, "", nil, ""
		}
	}
	return cs, nil
}

// passes is the filter's semantics (flowreader.Filter), written out again
// as the reference.
func passes(f flowreader.Filter, doc string, md map[string]map[string]string) bool {
	if len(f.IDs) > 0 && !slices.Contains(f.IDs, doc) {
		return false
	}
	for k, v := range f.Metadata {
		if w, ok := md[doc][k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Nodes implements flowreader.Store.
func (s *Store) Nodes(ctx context.Context, name string, positions []int) ([]graph.Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := s.get(name)
	if err != nil {
		return nil, err
	}
	out := make([]graph.Node, len(positions))
	for i, p := range positions {
		if p >= 0 && p < len(c.g.Nodes) {
			out[i] = c.g.Nodes[p]
		}
	}
	return out, nil
}

var _ flowreader.Store = (*Store)(nil)
