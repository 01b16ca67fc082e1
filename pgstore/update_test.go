package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// versionDocs is a small collection in two versions: document "x" has 3
// "alpha" passages in version a and 5 "beta" ones in b; "gone" is only in
// a and "new" only in b; "same" is in both.
func versionDocs(b bool) []graph.Document {
	item := func(s string) graph.Item { return graph.Item{Modality: graph.ModalityText, Text: s, Page: -1} }
	same := graph.Document{ID: "same", Title: "Same", Metadata: map[string]string{"kind": "stable"}}
	for i := 0; i < 6; i++ {
		same.Items = append(same.Items, item(fmt.Sprintf("The harbour wall number %d was repaired after the storm surge of May.", i)))
	}
	x := graph.Document{ID: "x", Title: "X"}
	word, k := "alpha", 3
	if b {
		word, k = "beta", 5
	}
	for i := 0; i < k; i++ {
		x.Items = append(x.Items, item(fmt.Sprintf("Passage %d of the %s edition describes the lighthouse keeper and the %s lamp.", i, word, word)))
	}
	docs := []graph.Document{same, x}
	if b {
		docs = append(docs, graph.Document{ID: "new", Items: []graph.Item{item("A new report on rainfall in November and the river levels.")}})
	} else {
		docs = append(docs, graph.Document{ID: "gone", Items: []graph.Item{item("An old note about the ferry timetable in winter.")}})
	}
	return docs
}

func buildDocs(t *testing.T, docs []graph.Document) (*flowreader.Pipeline, *graph.Graph) {
	t.Helper()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return p, g
}

func version(t *testing.T, s *Store, name string) int64 {
	t.Helper()
	cs, err := s.Collections(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Name == name {
			return c.Version
		}
	}
	t.Fatalf("no collection %q", name)
	return 0
}

// sameCollection checks that the collection holds g: every node with its
// payload and edges (by node ID), and BM25 as the in-process index over g
// gives it.
func sameCollection(t *testing.T, s *Store, name string, p *flowreader.Pipeline, g *graph.Graph) {
	t.Helper()
	ctx := context.Background()
	question := "lighthouse keeper lamp storm"
	vs, err := p.Embedder().Embed(ctx, []string{question}, 1)
	if err != nil {
		t.Fatal(err)
	}
	q := score.Query{Text: question, Embedding: vs[0]}
	f, err := s.fetch(ctx, name, q, len(g.Nodes), score.Config{}, fetchOptions{exact: true, text: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.seqs) != len(g.Nodes) || f.n != int64(len(g.Nodes)) {
		t.Fatalf("store has %d nodes (fetched %d), graph %d", f.n, len(f.seqs), len(g.Nodes))
	}
	want := map[string]string{}
	for i := range g.Nodes {
		want[g.Nodes[i].ID] = nodeString(g.Nodes[i])
	}
	for i := range f.nodes {
		if want[f.nodes[i].ID] != nodeString(f.nodes[i]) {
			t.Fatalf("node %s differs:\nstore %s\ngraph %s", f.nodes[i].ID, nodeString(f.nodes[i]), want[f.nodes[i].ID])
		}
	}
	edges := func(ids func(int32) string, es []graph.Edge) map[string]bool {
		out := map[string]bool{}
		for _, e := range es {
			a, b := ids(e.U), ids(e.V)
			if a > b {
				a, b = b, a
			}
			out[fmt.Sprintf("%s %s %v %v", a, b, e.Kind, e.Weight)] = true
		}
		return out
	}
	ge := edges(func(v int32) string { return g.Nodes[v].ID }, g.Edges)
	// The subgraph's edges, as a question gets them (their weights are
	// computed there, from the stored embeddings).
	cs, err := f.candidates()
	if err != nil {
		t.Fatal(err)
	}
	fe := edges(func(v int32) string { return f.nodes[v].ID }, cs.Graph.Edges)
	if len(ge) != len(fe) {
		t.Fatalf("%d edges in the store, %d in the graph", len(fe), len(ge))
	}
	for e := range ge {
		if !fe[e] {
			t.Fatalf("edge %s missing from the store", e)
		}
	}
	sc, err := score.NewIndex(g).Score(score.Config{}, q)
	if err != nil {
		t.Fatal(err)
	}
	bm := map[string]float64{}
	for i := range g.Nodes {
		bm[g.Nodes[i].ID] = sc.BM25[i]
	}
	for i := range f.nodes {
		if d := math.Abs(f.bm25[i] - bm[f.nodes[i].ID]); d > 1e-9 {
			t.Fatalf("node %s: BM25 %v, in-process %v", f.nodes[i].ID, f.bm25[i], bm[f.nodes[i].ID])
		}
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	da, db := versionDocs(false), versionDocs(true)
	p, ga := buildDocs(t, da)
	_, gb := buildDocs(t, db)
	if err := s.Import(ctx, "c", ga, da...); err != nil {
		t.Fatal(err)
	}
	sameCollection(t, s, "c", p, ga)
	v := version(t, s, "c")

	// A stale base is refused and changes nothing.
	if _, err := s.Update(ctx, "c", v-1, gb, nil, db...); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale base: %v, want ErrConflict", err)
	}
	sameCollection(t, s, "c", p, ga)

	v2, err := s.Update(ctx, "c", v, gb, nil, db...)
	if err != nil {
		t.Fatal(err)
	}
	if v2 <= v {
		t.Fatalf("version %d after %d", v2, v)
	}
	sameCollection(t, s, "c", p, gb)
	// And back: the kept document's nodes keep their rows.
	if _, err := s.Update(ctx, "c", v2, ga, nil, da...); err != nil {
		t.Fatal(err)
	}
	sameCollection(t, s, "c", p, ga)
	if _, err := s.Update(ctx, "missing", 1, ga, nil); !errors.Is(err, errNotFound) {
		t.Fatalf("missing collection: %v", err)
	}
}

// TestConcurrentWriters: two writers from one base, at once: one commits,
// the other is refused; neither is lost silently.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	da, db := versionDocs(false), versionDocs(true)
	_, ga := buildDocs(t, da)
	_, gb := buildDocs(t, db)
	if err := s.Import(ctx, "c", ga); err != nil {
		t.Fatal(err)
	}
	v := version(t, s, "c")
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for k, g := range []*graph.Graph{ga, gb} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[k] = s.Update(ctx, "c", v, g, nil)
			}()
		}
		wg.Wait()
		ok, refused := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrConflict):
				refused++
			default:
				t.Fatal(err)
			}
		}
		if ok != 1 || refused != 1 {
			t.Fatalf("round %d: %d committed, %d refused; want 1 and 1", round, ok, refused)
		}
		v = version(t, s, "c")
	}
}

// TestReadsOneVersion: questions fetched while a writer flips the
// collection between two versions each see one version whole.
func TestReadsOneVersion(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	da, db := versionDocs(false), versionDocs(true)
	p, ga := buildDocs(t, da)
	_, gb := buildDocs(t, db)
	if err := s.Import(ctx, "c", ga); err != nil {
		t.Fatal(err)
	}
	question := "lighthouse keeper lamp"
	vs, err := p.Embedder().Embed(ctx, []string{question}, 1)
	if err != nil {
		t.Fatal(err)
	}
	q := score.Query{Text: question, Embedding: vs[0]}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var seen [2]int
	var mu sync.Mutex
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				f, err := s.fetch(ctx, "c", q, 64, score.Config{}, fetchOptions{exact: true, text: true})
				if err != nil {
					t.Error(err)
					return
				}
				alpha, beta := 0, 0
				for _, nd := range f.nodes {
					alpha += strings.Count(nd.Content, "alpha edition")
					beta += strings.Count(nd.Content, "beta edition")
				}
				switch {
				case alpha == 3 && beta == 0 && f.n == int64(len(ga.Nodes)):
					mu.Lock()
					seen[0]++
					mu.Unlock()
				case alpha == 0 && beta == 5 && f.n == int64(len(gb.Nodes)):
					mu.Lock()
					seen[1]++
					mu.Unlock()
				default:
					t.Errorf("a mixed version: %d alpha and %d beta passages, %d nodes", alpha, beta, f.n)
					return
				}
			}
		}()
	}
	v := version(t, s, "c")
	for i := 0; i < 10; i++ {
		g := gb
		if i%2 == 1 {
			g = ga
		}
		if v, err = s.Update(ctx, "c", v, g, nil); err != nil {
			t.Error(err)
			break
		}
	}
	close(done)
	wg.Wait()
	t.Logf("questions answered from version a: %d, from b: %d", seen[0], seen[1])
	if seen[0]+seen[1] == 0 {
		t.Fatal("no question was answered")
	}
}

// A node over several pages keeps its last page through the store: in
// the candidates, in Nodes, and an update that changes only it replaces
// the document.
func TestLastPage(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	docs := versionDocs(false)
	docs[0].Items[1].Page, docs[0].Items[1].LastPage = 2, 4
	p, g := buildDocs(t, docs)
	if err := s.Import(ctx, "c", g); err != nil {
		t.Fatal(err)
	}
	at := -1
	for i := range g.Nodes {
		if g.Nodes[i].LastPage == 4 {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("the build kept no last page")
	}
	ns, err := s.Nodes(ctx, "c", []int{at})
	if err != nil || ns[0].LastPage != 4 || ns[0].Page != 2 {
		t.Fatalf("Nodes: %+v, %v", ns, err)
	}
	sameCollection(t, s, "c", p, g)
	docs[0].Items[1].LastPage = 5
	_, g2 := buildDocs(t, docs)
	if _, err := s.Update(ctx, "c", version(t, s, "c"), g2, nil); err != nil {
		t.Fatal(err)
	}
	sameCollection(t, s, "c", p, g2)
}

// TestUpdateStatistics: an update keeps the statistics, the document and
// keyword frequencies and the lookup tables as a fresh import of the new
// graph has them (the embedding sum, kept incrementally, to 1e-9), and a
// replica's cached keyword frequencies follow the update.
func TestUpdateStatistics(t *testing.T) {
	t.Parallel()
	s, srv := openTest(t)
	ctx := context.Background()
	da, db := versionDocs(false), versionDocs(true)
	p, ga := buildDocs(t, da)
	_, gb := buildDocs(t, db)
	if err := s.Import(ctx, "u", ga, da...); err != nil {
		t.Fatal(err)
	}
	replica, err := Open(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	question := "lighthouse keeper lamp harbour wall"
	vs, err := p.Embedder().Embed(ctx, []string{question}, 1)
	if err != nil {
		t.Fatal(err)
	}
	q := score.Query{Text: question, Embedding: vs[0]}
	// kwSame checks a replica's keyword frequencies of a question's
	// candidates against the table's.
	kwSame := func(r *Store, name string) {
		t.Helper()
		for range 2 { // cold, then from the cache
			f, err := r.fetch(ctx, name, q, 4, score.Config{}, fetchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Exactly the keywords two or more candidates hold are read.
			holders := map[string]int{}
			for _, ks := range f.kwnorm {
				for _, k := range ks {
					holders[k]++
				}
			}
			for k, c := range holders {
				if _, read := f.kwdf[k]; read != (c >= 2) {
					t.Fatalf("keyword %q of %d candidates: read %v", k, c, read)
				}
			}
			if len(f.kwdf) == 0 {
				t.Fatal("no keyword held by two candidates: the check reads nothing")
			}
			for k := range f.kwdf {
				if holders[k] < 2 {
					t.Fatalf("keyword %q of %d candidates read", k, holders[k])
				}
			}
			for _, ks := range f.kwnorm {
				for _, k := range ks {
					if holders[k] < 2 {
						continue
					}
					var df int32
					if err := s.pool.QueryRow(ctx, `SELECT df FROM flowreader.keywords WHERE coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND kw = $2`, name, k).Scan(&df); err != nil {
						t.Fatal(err)
					}
					if f.kwdf[k] != df {
						t.Fatalf("keyword %q: the replica has frequency %d, the collection %d", k, f.kwdf[k], df)
					}
				}
			}
		}
	}
	kwSame(replica, "u")
	v := version(t, s, "u")
	for k, step := range []struct {
		g    *graph.Graph
		docs []graph.Document
	}{{gb, db}, {ga, da}} {
		nv, err := s.Update(ctx, "u", v, step.g, nil, step.docs...)
		if err != nil {
			t.Fatal(err)
		}
		v = nv
		fresh := fmt.Sprintf("fresh%d", k)
		if err := s.Import(ctx, fresh, step.g, step.docs...); err != nil {
			t.Fatal(err)
		}
		got, gotEmb := storedState(t, s, "u")
		want, wantEmb := storedState(t, s, fresh)
		if got != want {
			t.Fatalf("after update %d the collection differs from a fresh import:\nupdated\n%s\nimported\n%s", k, got, want)
		}
		for j := range wantEmb {
			if math.Abs(gotEmb[j]-wantEmb[j]) > 1e-9 {
				t.Fatalf("after update %d: idf and embedding sums [%d] %v, fresh %v", k, j, gotEmb[j], wantEmb[j])
			}
		}
		kwSame(replica, "u")
	}
}

// storedState is what a fresh import of the collection's graph must equal:
// its statistics and every frequency and lookup row, in seq-free form;
// and apart, the sums that equal a fresh import's only to rounding after
// updates: the vocabulary's idf sum (summed in term id order, and an
// update numbers new terms after the others) and the embedding sum (kept
// incrementally).
func storedState(t *testing.T, s *Store, name string) (string, []float64) {
	t.Helper()
	ctx := context.Background()
	var out strings.Builder
	var emb []float64
	var n, vocab int64
	var total, idf float64
	var maxSum int32
	if err := s.pool.QueryRow(ctx, `SELECT nodes, total_len, idf_sum, vocab, max_sum_len, emb_sum FROM flowreader.collections WHERE name = $1`, name).
		Scan(&n, &total, &idf, &vocab, &maxSum, &emb); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "n %d total %v vocab %d maxsum %d\n", n, total, vocab, maxSum)
	emb = append([]float64{idf}, emb...)
	for _, qs := range []string{
		`SELECT term || ' ' || df FROM flowreader.terms WHERE coll = c.id ORDER BY 1`,
		`SELECT kw || ' ' || df FROM flowreader.keywords WHERE coll = c.id ORDER BY 1`,
		`SELECT 'dfs ' || df || ' ' || terms FROM flowreader.dfs WHERE coll = c.id ORDER BY df`,
		// The counts per frequency are the terms' (a mismatch prints).
		`SELECT 'dfs mismatch ' || coalesce(h.df, t.df) || ' ' || coalesce(h.terms, 0) || ' ' || coalesce(t.n, 0) FROM (SELECT df, terms FROM flowreader.dfs WHERE coll = (SELECT id FROM c)) h
FULL JOIN (SELECT df, count(*) AS n FROM flowreader.terms WHERE coll = (SELECT id FROM c) AND df > 0 GROUP BY df) t ON h.df = t.df WHERE h.terms IS DISTINCT FROM t.n ORDER BY 1`,
		`SELECT t.term || ' ' || n.id || ' ' || p.tf || ' ' || p.len FROM flowreader.postings p JOIN flowreader.terms t ON t.coll = p.coll AND t.id = p.term JOIN flowreader.nodes n ON n.coll = p.coll AND n.seq = p.seq WHERE p.coll = c.id ORDER BY 1`,
		`SELECT r.key || ' ' || n.id FROM flowreader.refs r JOIN flowreader.nodes n ON n.coll = r.coll AND n.seq = r.seq WHERE r.coll = c.id ORDER BY 1`,
		`SELECT x.first || ' ' || n.id || ' ' || x.title FROM flowreader.titles x JOIN flowreader.nodes n ON n.coll = x.coll AND n.seq = x.seq WHERE x.coll = c.id ORDER BY 1`,
		`SELECT n.id || ' names ' || coalesce((SELECT string_agg(m.id, ',' ORDER BY m.id) FROM unnest(n.names) x JOIN flowreader.cands m ON m.coll = n.coll AND m.seq = x), '') FROM flowreader.cands n WHERE n.coll = c.id ORDER BY 1`,
		`SELECT d.id || ' ' || d.nodes || ' ' || cardinality(d.links) || ' ' || d.title || ' ' || d.metadata::text || ' ' || encode(d.hash, 'hex') FROM flowreader.documents d WHERE d.coll = c.id ORDER BY 1`,
	} {
		rows, err := s.pool.Query(ctx, `WITH c AS (SELECT id FROM flowreader.collections WHERE name = $1) `+strings.Replace(qs, "WHERE ", "CROSS JOIN c WHERE ", 1), name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			out.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Every node's stored adjacency, by node ID (seqs differ between an
	// updated collection and a fresh import): a kept node whose links an
	// update failed to rewrite shows here even when the fetch finds the
	// edge from its other end.
	// Every edge's stored weight (by its lower seq's row), by the two
	// node IDs: an edge whose weight an update left stale, or stored by
	// the wrong end, shows here.
	// And every node's packed lists (what a question reads) against its
	// arrays: a relinked node whose lists an update left stale shows here.
	rows, err := s.pool.Query(ctx, `SELECT n.seq, n.id, n.adj, n.wts, n.lists, n.keywords, n.refs, n.names FROM flowreader.cands n JOIN flowreader.collections c ON c.id = n.coll WHERE c.name = $1`, name)
	if err != nil {
		t.Fatal(err)
	}
	ids, adjs, wts, seqs := map[int64]string{}, map[string][]byte{}, map[string][]byte{}, map[string]int64{}
	for rows.Next() {
		var seq int64
		var id string
		var adj, wt, ls []byte
		var kws, refs []string
		var names []int64
		if err := rows.Scan(&seq, &id, &adj, &wt, &ls, &kws, &refs, &names); err != nil {
			t.Fatal(err)
		}
		ids[seq], adjs[id], wts[id], seqs[id] = id, adj, wt, seq
		k, r, nm, err := decodeLists(ls)
		if err != nil || !slices.Equal(k, kws) || !slices.Equal(r, refs) || !slices.Equal(nm, names) {
			fmt.Fprintf(&out, "%s lists %q %q %v (%v), arrays %q %q %v\n", id, k, r, nm, err, kws, refs, names)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var weights []string
	for _, id := range slices.Sorted(maps.Keys(adjs)) {
		nbrs, kinds, err := decodeAdj(adjs[id])
		if err != nil {
			t.Fatalf("node %s: %v", id, err)
		}
		first, err := weightsFrom(seqs[id], nbrs, wts[id])
		if err != nil {
			t.Fatalf("node %s: %v", id, err)
		}
		var es []string
		for k, v := range nbrs {
			nb, ok := ids[v]
			if !ok {
				nb = fmt.Sprintf("missing seq %d", v)
			}
			es = append(es, fmt.Sprintf("%s/%d", nb, kinds[k]))
			if k >= first {
				a, b := id, nb
				if a > b {
					a, b = b, a
				}
				weights = append(weights, fmt.Sprintf("weight %s %s %08x", a, b, binary.LittleEndian.Uint32(wts[id][4*(k-first):])))
			}
		}
		slices.Sort(es)
		fmt.Fprintf(&out, "%s adj %s\n", id, strings.Join(es, ","))
	}
	slices.Sort(weights)
	out.WriteString(strings.Join(weights, "\n"))
	return out.String(), emb
}
