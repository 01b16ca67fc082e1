package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// copyDoc is document k of TestUpdateCopiesMatchImport's collections in
// edition e: two to four passages under the heading "Topic k", or, for
// copy c > 0, that document exported again (ID "docK~cC"): every passage
// with a typo in one long word, and for odd c a boilerplate line added.
func copyDoc(k, e, c int) graph.Document {
	words := []string{"harbour", "lighthouse", "keeper", "ferry", "timetable", "winter", "station", "rainfall", "seabirds", "nests",
		"shoreline", "gauge", "records", "channel", "dredging", "survey"}
	id := "doc" + strconv.Itoa(k)
	if c > 0 {
		id += "~c" + strconv.Itoa(c)
	}
	d := graph.Document{ID: id, Title: "Topic " + strconv.Itoa(k)}
	n := 2 + (k+e)%3
	for i := range n {
		var w []string
		for j := range 9 {
			w = append(w, words[(k*7+i*5+j*3+e)%len(words)])
		}
		text := fmt.Sprintf("Passage %d of topic %d (edition %d): the %s.", i, k, e, strings.Join(w, " "))
		if c > 0 {
			text = strings.Replace(text, "lighthouse", "lighthosue", 1)
			text = strings.Replace(text, "timetable", "timetabel", 1)
			if c%2 == 1 {
				text += "\nEdit this page on GitHub"
			}
		}
		d.Items = append(d.Items, graph.Item{Modality: graph.ModalityText, Text: text, Section: fmt.Sprintf("Topic %d", k), Page: -1})
	}
	return d
}

// copySeq is a collection of copyDoc documents that random changes edit
// (TestUpdateCopiesMatchImport, TestUpdateCopiesWithoutDiff): documents
// 0–3 and a copy of document 1 to begin with.
type copySeq struct {
	order   []copySeqKey
	edition map[copySeqKey]int
	next    int
	ops     map[string]int // the changes made, by kind
}

// copySeqKey is document k, or its copy c > 0.
type copySeqKey struct{ k, c int }

func newCopySeq() *copySeq {
	q := &copySeq{edition: map[copySeqKey]int{}, next: 4, ops: map[string]int{}}
	for k := range 4 {
		q.order = append(q.order, copySeqKey{k, 0})
	}
	q.order = append(q.order, copySeqKey{1, 1})
	return q
}

func (q *copySeq) docs() []graph.Document {
	var ds []graph.Document
	for _, x := range q.order {
		ds = append(ds, copyDoc(x.k, q.edition[x], x.c))
	}
	return ds
}

// change makes one random change: a copy removed, a document added, a
// copy of a document added anywhere, a document removed, or a new edition
// of one (its copies stay).
func (q *copySeq) change(rng *rand.Rand) {
	switch op := rng.IntN(6); {
	case op == 5: // remove a copy
		for at, x := range q.order {
			if x.c > 0 {
				q.order = slices.Delete(q.order, at, at+1)
				q.ops["copy removed"]++
				break
			}
		}
	case op == 0: // a new document
		q.order = slices.Insert(q.order, rng.IntN(len(q.order)+1), copySeqKey{q.next, 0})
		q.next++
		q.ops["added"]++
	case op == 1 || op == 2: // a copy of a document, anywhere
		x := q.order[rng.IntN(len(q.order))]
		c := copySeqKey{x.k, 1 + rng.IntN(3)}
		if !slices.Contains(q.order, c) {
			q.edition[c] = q.edition[copySeqKey{x.k, 0}]
			q.order = slices.Insert(q.order, rng.IntN(len(q.order)+1), c)
			q.ops["copy added"]++
		}
	case op == 3 && len(q.order) > 2: // remove one
		at := rng.IntN(len(q.order))
		q.order = slices.Delete(q.order, at, at+1)
		q.ops["removed"]++
	default: // a new edition of one document (its copies stay)
		x := q.order[rng.IntN(len(q.order))]
		q.edition[x]++
		q.ops["new edition"]++
	}
}

// storedClasses is the collection's content classes as groups of node
// IDs, each sorted, the groups sorted.
func storedClassIDs(t *testing.T, s *Store, name string) []string {
	t.Helper()
	ctx := context.Background()
	rows, err := s.pool.Query(ctx, `SELECT c.seq, c.id, c.copies FROM flowreader.cands c JOIN flowreader.collections k ON k.id = c.coll WHERE k.name = $1`, name)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]string{}
	classes := map[int64][]int64{}
	for rows.Next() {
		var seq int64
		var id string
		var cp []int64
		if err := rows.Scan(&seq, &id, &cp); err != nil {
			t.Fatal(err)
		}
		ids[seq] = id
		if len(cp) > 0 {
			if !slices.Contains(cp, seq) {
				t.Fatalf("%s: node %s's class %v lacks it", name, id, cp)
			}
			classes[seq] = cp
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// A class's lowest member's row holds the whole class, another
	// member's its lowest seq and its own.
	for seq, cp := range classes {
		if cp[0] == seq {
			continue
		}
		whole := classes[cp[0]]
		if len(cp) != 2 || len(whole) == 0 || whole[0] != cp[0] || !slices.Contains(whole, seq) {
			t.Fatalf("%s: node %s's row holds %v, its lowest member's %v", name, ids[seq], cp, whole)
		}
	}
	for seq, cp := range classes {
		if cp[0] != seq {
			classes[seq] = classes[cp[0]]
		}
	}
	var out []string
	for seq, cp := range classes {
		var g []string
		for _, v := range cp {
			id, ok := ids[v]
			if !ok {
				t.Fatalf("%s: node %s's class %v names seq %d, which the collection does not hold", name, ids[seq], cp, v)
			}
			if !slices.Equal(classes[v], cp) {
				t.Fatalf("%s: node %s's class %v, its member %s's %v", name, ids[seq], cp, id, classes[v])
			}
			g = append(g, id)
		}
		slices.Sort(g)
		if cp[0] == seq {
			out = append(out, strings.Join(g, " "))
		}
	}
	slices.Sort(out)
	return out
}

// graphClassIDs is g's content classes (graph.Graph.Copies) as
// storedClassIDs lists them.
func graphClassIDs(g *graph.Graph) []string {
	var out []string
	for i := range g.Nodes {
		cs := g.Copies(i)
		if len(cs) == 0 || int(cs[0]) != i {
			continue
		}
		var ids []string
		for _, c := range cs {
			ids = append(ids, g.Nodes[c].ID)
		}
		slices.Sort(ids)
		out = append(out, strings.Join(ids, " "))
	}
	slices.Sort(out)
	return out
}

// TestUpdateCopiesMatchImport: random sequences of documents and their
// copies added, replaced and removed, each update given the Diff of
// graph.Builder.Update, leave the collection's content classes those of
// the whole new graph (graph.Graph.Copies, what Import stores): the
// region an update recomputes holds every class it changes. Questions
// over the updated collection read each content once and name its
// copies.
func TestUpdateCopiesMatchImport(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 5))
	q := newCopySeq()
	docs := q.docs()
	p, g := buildDocs(t, docs)
	if err := s.Import(ctx, "c", g, docs...); err != nil {
		t.Fatal(err)
	}
	if got, want := storedClassIDs(t, s, "c"), graphClassIDs(g); !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("imported classes %q, want %q (and some)", got, want)
	}
	checkContents(t, s, "c")
	// The counts are tested only if copies hold keywords.
	var held int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM flowreader.cands WHERE copies <> '{}' AND copies[1] <> seq AND cardinality(kwnorm) > 0`).Scan(&held); err != nil || held == 0 {
		t.Fatalf("%d copies of a lower node hold keywords (%v): the keyword counts are not tested", held, err)
	}
	v := version(t, s, "c")
	classesSeen := 0
	for round := range 24 {
		for range 1 + rng.IntN(2) {
			q.change(rng)
		}
		docs2 := q.docs()
		g2, diff, err := p.Update(ctx, g, docs2)
		if err != nil {
			t.Fatal(err)
		}
		if v, err = s.Update(ctx, "c", v, g2, &diff, docs2...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		want := graphClassIDs(g2)
		if got := storedClassIDs(t, s, "c"); !slices.Equal(got, want) {
			t.Fatalf("round %d (diff %+v): classes after the update\n%q\nwant (the whole graph's)\n%q", round, diff, got, want)
		}
		classesSeen += len(want)
		checkContents(t, s, "c")
		// Each content read once over the store, its copies named.
		ix, err := p.OpenStore(ctx, s, "c")
		if err != nil {
			t.Fatal(err)
		}
		ev, err := ix.Retrieve(ctx, "the lighthouse keeper and the ferry timetable in winter", flowreader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var read []string
		for _, c := range ev.Chains {
			for _, n := range c.Nodes {
				read = append(read, n.ID)
			}
		}
		for _, c := range ev.Chains {
			for _, n := range c.Nodes {
				for _, o := range n.AlsoIn {
					if slices.Contains(read, o) {
						t.Fatalf("round %d: %s and its copy %s both read", round, n.ID, o)
					}
				}
				var cp []string
				for _, c := range g2.Copies(nodeIndex(g2, n.ID)) {
					if id := g2.Nodes[c].ID; id != n.ID {
						cp = append(cp, id)
					}
				}
				slices.Sort(cp)
				also := slices.Sorted(slices.Values(n.AlsoIn))
				if !slices.Equal(also, cp) {
					t.Fatalf("round %d: %s also in %v, want %v", round, n.ID, also, cp)
				}
			}
		}
		g = g2
	}
	t.Logf("%v; %d classes over the rounds", q.ops, classesSeen)
	if len(q.ops) < 5 || classesSeen < 20 {
		t.Fatalf("%v, %d classes over the rounds: the sequence did not exercise every change", q.ops, classesSeen)
	}
}

// nodeIndex is the index of the node id in g.
func nodeIndex(g *graph.Graph, id string) int {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return i
		}
	}
	return -1
}

// checkContents checks the collection's counts of contents against its
// rows: collections.contents is the nodes that hold no lower node's
// content (their class's lowest seq is their own), and every keyword's
// frequency counts those nodes holding it, as the router over a whole
// graph counts a class once.
func checkContents(t *testing.T, s *Store, name string) {
	t.Helper()
	ctx := context.Background()
	var contents, reps int64
	if err := s.pool.QueryRow(ctx, `SELECT k.contents, (SELECT count(*) FROM flowreader.cands c WHERE c.coll = k.id AND (c.copies = '{}' OR c.copies[1] = c.seq))
FROM flowreader.collections k WHERE k.name = $1`, name).Scan(&contents, &reps); err != nil {
		t.Fatal(err)
	}
	if contents != reps {
		t.Fatalf("%s: contents %d, the rows hold %d", name, contents, reps)
	}
	rows, err := s.pool.Query(ctx, `WITH k AS (SELECT id FROM flowreader.collections WHERE name = $1),
want AS (SELECT kw, count(*) AS df FROM flowreader.cands c CROSS JOIN LATERAL unnest(c.kwnorm) kw WHERE c.coll = (SELECT id FROM k) AND (c.copies = '{}' OR c.copies[1] = c.seq) GROUP BY kw),
got AS (SELECT kw, df FROM flowreader.keywords WHERE coll = (SELECT id FROM k))
SELECT coalesce(want.kw, got.kw), coalesce(want.df, 0), coalesce(got.df, 0) FROM want FULL JOIN got ON want.kw = got.kw WHERE want.df IS DISTINCT FROM got.df`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kw string
		var want, got int64
		if err := rows.Scan(&kw, &want, &got); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s: keyword %q: frequency %d, the representative rows hold it %d times", name, kw, got, want)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
