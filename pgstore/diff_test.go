package pgstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// diffDoc is document k of the property test's collections in its
// edition e and metadata m: its passages' heading is "Station HarbourX"
// (X a letter from k), which other documents' passages name (so title
// mentions change as documents come and go); it has 1 to 4 passages, as
// many in editions 2j and 2j+1.
func diffDoc(k, e, m int) graph.Document {
	item := func(s, sec string) graph.Item {
		return graph.Item{Modality: graph.ModalityText, Text: s, Section: sec, Page: -1}
	}
	d := graph.Document{ID: "doc" + strconv.Itoa(k), Title: "Station " + strconv.Itoa(k),
		Metadata: map[string]string{"m": strconv.Itoa(m)}}
	sec := fmt.Sprintf("Station Harbour%c", 'A'+rune(k))
	n := 1 + (k+e/2)%4
	for i := range n {
		d.Items = append(d.Items, item(fmt.Sprintf("Passage %d of edition %d: the tide gauge at Station Harbour%c read %d centimetres; the keeper logged lamp %d.",
			i, e, 'A'+rune((k+i+e)%12), 100+7*k+e, i*e), sec))
	}
	return d
}

// TestUpdateDiffMatchesImport: random sequences of added, replaced,
// removed and re-titled documents, each update given the Diff that
// graph.Builder.Update returned, leave the collection as a fresh import
// of the new graph has it (statistics, frequencies, lookups, documents,
// title mentions, and through the store's fetch every node, edge and BM25
// score, and every node's stored adjacency and title mentions). An update
// that ignored a document the Diff names, took a replaced one for kept, or
// left alone a kept node whose edges (the Diff's report) or title
// mentions (the store's own comparison) changed would differ. It runs with
// the default builder, whose mention links change with the title
// mentions, and with one without them, where only the store's comparison
// finds a kept node whose title mentions changed.
func TestUpdateDiffMatchesImport(t *testing.T) {
	t.Parallel()
	for _, mentions := range []bool{true, false} {
		t.Run(fmt.Sprintf("mentions=%v", mentions), func(t *testing.T) {
			t.Parallel()
			updateDiffMatchesImport(t, mentions)
		})
	}
}

func updateDiffMatchesImport(t *testing.T, mentions bool) {
	s, _ := openTest(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	edition, meta := map[int]int{}, map[int]int{}
	var order []int // the collection's documents, in order
	for k := range 5 {
		edition[k], order = 0, append(order, k)
	}
	docsOf := func() []graph.Document {
		var ds []graph.Document
		for _, k := range order {
			ds = append(ds, diffDoc(k, edition[k], meta[k]))
		}
		return ds
	}
	docs := docsOf()
	p, g := buildDocs(t, docs)
	update := p.Update
	if !mentions {
		b := &graph.Builder{Embedder: p.Embedder(), NoMentionLinks: true}
		var err error
		if g, err = b.Build(ctx, docs); err != nil {
			t.Fatal(err)
		}
		update = b.Update
	}
	if err := s.Import(ctx, "p", g, docs...); err != nil {
		t.Fatal(err)
	}
	v := version(t, s, "p")
	next := 5
	seen, sameCount, meta0 := map[string]int{}, 0, 0
	for round := range 16 {
		for range 1 + rng.IntN(3) {
			switch op := rng.IntN(5); {
			case op == 0 || len(order) < 3: // add, anywhere
				at := rng.IntN(len(order) + 1)
				order = slices.Insert(order, at, next)
				edition[next] = rng.IntN(3)
				next++
			case op == 1: // remove
				at := rng.IntN(len(order))
				order = slices.Delete(order, at, at+1)
			case op == 2: // metadata only
				k := order[rng.IntN(len(order))]
				meta[k]++
				meta0++
			default: // replace
				k := order[rng.IntN(len(order))]
				edition[k]++
			}
		}
		docs2 := docsOf()
		g2, diff, err := update(ctx, g, docs2)
		if err != nil {
			t.Fatal(err)
		}
		seen["added"] += len(diff.Added)
		seen["replaced"] += len(diff.Replaced)
		for _, d := range diff.Replaced {
			if nodesOf(g, d) == nodesOf(g2, d) {
				sameCount++
			}
		}
		seen["removed"] += len(diff.Removed)
		given := g2
		if round%4 == 3 {
			// A copy read back from its bytes: the Diff's report of the
			// kept nodes' edges is of g2, not of this graph, so every
			// kept node's links are compared instead.
			var buf bytes.Buffer
			if err := graph.Write(&buf, g2); err != nil {
				t.Fatal(err)
			}
			if given, err = graph.Read(&buf); err != nil {
				t.Fatal(err)
			}
		}
		if v, err = s.Update(ctx, "p", v, given, &diff, docs2...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		fresh := "fresh" + strconv.Itoa(round)
		if err := s.Import(ctx, fresh, g2, docs2...); err != nil {
			t.Fatal(err)
		}
		got, gotEmb := storedState(t, s, "p")
		want, wantEmb := storedState(t, s, fresh)
		if got != want {
			t.Fatalf("round %d (diff %+v): the updated collection differs from a fresh import:\nupdated\n%s\nimported\n%s", round, diff, got, want)
		}
		for j := range wantEmb {
			if math.Abs(gotEmb[j]-wantEmb[j]) > 1e-9 {
				t.Fatalf("round %d: idf and embedding sums [%d] %v, fresh %v", round, j, gotEmb[j], wantEmb[j])
			}
		}
		sameCollection(t, s, "p", p, g2)
		checkLinkHashes(t, s, "p")
		if err := s.Drop(ctx, fresh); err != nil {
			t.Fatal(err)
		}
		g = g2
	}
	t.Logf("documents added %d, replaced %d (%d with as many nodes), removed %d; metadata changed %d times", seen["added"], seen["replaced"], sameCount, seen["removed"], meta0)
	if seen["added"] == 0 || sameCount == 0 || sameCount == seen["replaced"] || seen["removed"] == 0 || meta0 == 0 {
		t.Fatalf("the sequence did not exercise every kind of change: %v", seen)
	}
}

// TestUpdateDiffRefused: a Diff that does not describe the change from
// the collection to the new graph (a removed, added or resized document it
// does not name, one it names wrongly) is refused with ErrInput and
// nothing is written; the true Diff then commits.
func TestUpdateDiffRefused(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	da, db := versionDocs(false), versionDocs(true) // x: 3 → 5 passages, gone → new
	p, ga := buildDocs(t, da)
	if err := s.Import(ctx, "c", ga, da...); err != nil {
		t.Fatal(err)
	}
	gb, diff, err := p.Update(ctx, ga, db)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(diff.Added, diff.Replaced, diff.Removed), fmt.Sprint([]string{"new"}, []string{"x"}, []string{"gone"}); got != want {
		t.Fatalf("diff %+v, want %+v", diff, want)
	}
	before, _ := storedState(t, s, "c")
	v := version(t, s, "c")
	if v != 1 {
		t.Fatalf("an imported collection is at version %d, want 1", v)
	}
	for _, lie := range []graph.Diff{
		{Added: []string{"new"}, Replaced: []string{"x"}},                                    // misses a removed document
		{Replaced: []string{"x"}, Removed: []string{"gone"}},                                 // misses an added one
		{Added: []string{"new"}, Removed: []string{"gone"}},                                  // misses a replaced one whose node count changed
		{Added: []string{"new", "x"}, Removed: []string{"gone"}},                             // adds a stored one
		{Added: []string{"new"}, Replaced: []string{"x"}, Removed: []string{"gone", "same"}}, // removes one the graph has
		{Added: []string{"new"}, Replaced: []string{"x", "nowhere"}, Removed: []string{"gone"}},
		{Added: []string{"new"}, Replaced: []string{"x"}, Removed: []string{"gone", "x"}},
		{},
	} {
		_, err := s.Update(ctx, "c", v, gb, &lie, db...)
		if !errors.Is(err, ErrInput) {
			t.Fatalf("Diff %+v: err %v, want ErrInput", lie, err)
		}
		if after, _ := storedState(t, s, "c"); after != before || version(t, s, "c") != v {
			t.Fatalf("Diff %+v was refused but the collection changed", lie)
		}
	}
	if v, err = s.Update(ctx, "c", v, gb, &diff, db...); err != nil || v != 2 {
		t.Fatalf("update: version %d, %v; want version 2", v, err)
	}
	sameCollection(t, s, "c", p, gb)
}

// nodesOf counts document d's nodes in g.
func nodesOf(g *graph.Graph, d string) int {
	n := 0
	for i := range g.Nodes {
		if g.Nodes[i].Doc == d {
			n++
		}
	}
	return n
}

// checkLinkHashes checks that every document's stored link hashes are
// those of its nodes' stored links (seq, title mentions, adjacency as
// stored), in seq order: what an update that has no report of the
// changed links compares the new graph's with. An update that rewrote a
// node's links but not its hash would fail it.
func checkLinkHashes(t *testing.T, s *Store, name string) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.pool.Query(ctx, `SELECT d.id, d.links, array_agg(n.seq ORDER BY n.seq), array_agg(n.adj ORDER BY n.seq), array_agg(array_to_string(n.names, ' ') ORDER BY n.seq)
FROM flowreader.documents d JOIN flowreader.collections c ON c.id = d.coll JOIN flowreader.cands n ON n.coll = d.coll AND n.doc = d.id
WHERE c.name = $1 GROUP BY d.id, d.links`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	docs := 0
	for rows.Next() {
		var id string
		var links, seqs []int64
		var adjs [][]byte
		var names []string
		if err := rows.Scan(&id, &links, &seqs, &adjs, &names); err != nil {
			t.Fatal(err)
		}
		if links == nil {
			continue // unknown: rewritten by the next update without a report
		}
		docs++
		if len(links) != len(seqs) {
			t.Fatalf("document %s: %d link hashes for %d nodes", id, len(links), len(seqs))
		}
		for k, seq := range seqs {
			b := binary.AppendVarint(nil, seq)
			ns := strings.Fields(names[k])
			b = binary.AppendUvarint(b, uint64(len(ns)))
			for _, v := range ns {
				x, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				b = binary.AppendVarint(b, x)
			}
			if h := fnv64(append(b, adjs[k]...)); h != links[k] {
				t.Fatalf("document %s: node %d's stored link hash %x, its stored links hash to %x", id, seq, links[k], h)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if docs == 0 {
		t.Fatal("no document has link hashes")
	}
}
