package pgstore

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/israce"
	"github.com/flowreader/flowreader/internal/lab/eval"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/memstore"
	"github.com/flowreader/flowreader/internal/pgtest"
)

// The conformance suite asks the same questions of every store and
// compares the evidence with the in-memory index's (the reference: the
// graph, scoring the same number of candidates):
//
//   - memstore, a Store over the graph, and PostgreSQL with exact dense
//     candidates: the same evidence (the same nodes in the same chains,
//     every score and flow equal to 1e-9), and BM25 equal to 1e-9;
//   - PostgreSQL's approximate dense candidates (the sketch pass, and
//     pgvector's HNSW in TestConformancePgvector): the nodes read overlap
//     the reference's by at least 0.98.
//
// Each collection is asked without a filter and under filters.

// confTol is the tolerance of scores and flows between stores.
const confTol = 1e-9

// confCase is one collection and its questions.
type confCase struct {
	name      string
	cfg       flowreader.Config
	docs      []graph.Document
	questions []string
	filters   []flowreader.Filter
}

// validUTF8 replaces the invalid UTF-8 in docs' text (the augmentation's
// edits work on bytes, and PostgreSQL stores text as UTF-8 only).
func validUTF8(docs []graph.Document) []graph.Document {
	for i := range docs {
		for j := range docs[i].Items {
			it := &docs[i].Items[j]
			it.Text, it.Caption = strings.ToValidUTF8(it.Text, "\uFFFD"), strings.ToValidUTF8(it.Caption, "\uFFFD")
		}
	}
	return docs
}

// storeUnderTest is an index over one store, and whether its evidence
// must equal the reference's (else overlap it).
type storeUnderTest struct {
	name  string
	ix    *flowreader.Index
	exact bool
}

// confResult is what one store gave over a case.
type confResult struct {
	shared, read int // nodes read by both, by the reference
	questions    int
	alsoIn       int // nodes read whose content is also elsewhere (also_in)
}

func (r confResult) overlap() float64 {
	if r.read == 0 {
		return 1
	}
	return float64(r.shared) / float64(r.read)
}

// runConformance builds the case's graph, opens the reference and every
// store on it, asks every question under every filter, and checks them.
// It returns each store's result.
func runConformance(t *testing.T, cc confCase, open func(t *testing.T, p *flowreader.Pipeline, g *graph.Graph) []storeUnderTest) map[string]confResult {
	t.Helper()
	ctx := context.Background()
	p, err := flowreader.New(cc.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	g, err := p.Build(ctx, cc.docs)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	mem := &memstore.Store{}
	mem.Put(cc.name, g)
	mx, err := p.OpenStore(ctx, mem, cc.name)
	if err != nil {
		t.Fatal(err)
	}
	stores := append([]storeUnderTest{{"memstore", mx, true}}, open(t, p, g)...)
	t.Logf("%s: %d nodes built and stored in %s", cc.name, len(g.Nodes), time.Since(t0).Round(time.Millisecond))
	out := map[string]confResult{}
	filters := append([]flowreader.Filter{{}}, cc.filters...)
	for _, q := range cc.questions {
		for _, f := range filters {
			want, err := ref.Retrieve(ctx, q, flowreader.Options{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range stores {
				got, err := st.ix.Retrieve(ctx, q, flowreader.Options{Filter: f})
				if err != nil {
					t.Fatalf("%s %s: %q: %v", cc.name, st.name, q, err)
				}
				r := out[st.name]
				r.questions++
				a, b := readIDs(want), readIDs(got)
				r.read += len(a)
				for _, c := range got.Chains {
					for _, n := range c.Nodes {
						if len(n.AlsoIn) > 0 {
							r.alsoIn++
						}
						// One content is read once: no node read is a copy
						// of another node read.
						for _, other := range n.AlsoIn {
							if slices.Contains(b, other) {
								t.Fatalf("%s %s: %q: %s and its copy %s both read", cc.name, st.name, q, n.ID, other)
							}
						}
					}
				}
				for _, id := range a {
					if slices.Contains(b, id) {
						r.shared++
					}
				}
				out[st.name] = r
				if st.exact {
					if err := sameEvidence(want, got); err != nil {
						t.Fatalf("%s %s: %q (filter %+v): %v", cc.name, st.name, q, f, err)
					}
				}
			}
		}
		// BM25 (and every other score) of the unfiltered candidates, to 1e-9.
		ws, err := ref.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range stores {
			if !st.exact {
				continue
			}
			gs, err := st.ix.Score(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ws.Candidates, gs.Candidates) {
				t.Fatalf("%s %s: %q: other candidates", cc.name, st.name, q)
			}
			for i := range ws.R {
				if (ws.BM25 == nil) != (gs.BM25 == nil) || ws.BM25 != nil && math.Abs(ws.BM25[i]-gs.BM25[i]) > confTol ||
					math.Abs(ws.R[i]-gs.R[i]) > confTol || math.Abs(ws.H[i]-gs.H[i]) > confTol || ws.Cos[i] != gs.Cos[i] {
					t.Fatalf("%s %s: %q: candidate %d scores differ", cc.name, st.name, q, ws.Candidates[i])
				}
			}
		}
	}
	for name, r := range out {
		t.Logf("%s %s: %d questions × filters, nodes read overlap %.4f (%d of %d), %d with also_in", cc.name, name, r.questions, r.overlap(), r.shared, r.read, r.alsoIn)
	}
	return out
}

// readIDs is the IDs of the nodes the evidence reads, in reading order,
// each once.
func readIDs(ev *flowreader.Evidence) []string {
	var out []string
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			if !slices.Contains(out, n.ID) {
				out = append(out, n.ID)
			}
		}
	}
	return out
}

// sameEvidence reports how b differs from a: the same chains of the same
// nodes (IDs and positions), scores, flows and costs to confTol, the same
// routing summary and scoring steps.
func sameEvidence(a, b *flowreader.Evidence) error {
	near := func(x, y float64) bool { return x == y || math.Abs(x-y) <= confTol*max(1, math.Abs(x)) }
	if a.Budget != b.Budget || !slices.Equal(a.Scoring, b.Scoring) || len(a.Chains) != len(b.Chains) {
		return fmt.Errorf("budget %d/%d, scoring %v/%v, %d/%d chains", a.Budget, b.Budget, a.Scoring, b.Scoring, len(a.Chains), len(b.Chains))
	}
	for i := range a.Chains {
		x, y := a.Chains[i], b.Chains[i]
		if len(x.Nodes) != len(y.Nodes) || x.Aspect != y.Aspect || !near(x.Flow, y.Flow) || !near(x.Cost, y.Cost) {
			return fmt.Errorf("chain %d: %d/%d nodes, aspect %d/%d, flow %v/%v, cost %v/%v", i, len(x.Nodes), len(y.Nodes), x.Aspect, y.Aspect, x.Flow, y.Flow, x.Cost, y.Cost)
		}
		for j := range x.Nodes {
			u, v := x.Nodes[j], y.Nodes[j]
			if u.ID != v.ID || u.Node != v.Node || u.Doc != v.Doc || u.Text != v.Text || u.Raised != v.Raised || !near(u.Score, v.Score) || !near(u.Flow, v.Flow) {
				return fmt.Errorf("chain %d node %d: %s(%d) score %v flow %v, store %s(%d) score %v flow %v", i, j, u.ID, u.Node, u.Score, u.Flow, v.ID, v.Node, v.Score, v.Flow)
			}
			if !slices.Equal(u.AlsoIn, v.AlsoIn) {
				return fmt.Errorf("chain %d node %d: %s also in %v, store %v", i, j, u.ID, u.AlsoIn, v.AlsoIn)
			}
		}
	}
	r, s := a.Routing, b.Routing
	if r.Router != s.Router || r.Relevant != s.Relevant || r.Distinct != s.Distinct || r.ChainsRouted != s.ChainsRouted || len(r.Aspects) != len(s.Aspects) ||
		!near(r.Demand, s.Demand) || !near(r.Routed, s.Routed) || !near(r.Kappa, s.Kappa) || !near(r.Cost, s.Cost) || !near(r.Saturation, s.Saturation) {
		return fmt.Errorf("routing %+v, store %+v", r, s)
	}
	return nil
}

// pgStores imports g into a fresh PostgreSQL server and opens an index
// over it with exact dense candidates and one with the sketch pass. Above
// 32,768 nodes the in-memory index's dense candidates are a beam search's,
// not exact, so only the sketch pass is compared (by overlap).
func pgStores(name string) func(t *testing.T, p *flowreader.Pipeline, g *graph.Graph) []storeUnderTest {
	return func(t *testing.T, p *flowreader.Pipeline, g *graph.Graph) []storeUnderTest {
		ctx := context.Background()
		srv := pgtest.Start(t)
		var out []storeUnderTest
		modes := []bool{true, false}
		if len(g.Nodes) > 32768 {
			modes = modes[1:]
		}
		for i, exact := range modes {
			s, err := Open(ctx, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			s.exact = exact
			if i == 0 {
				if err := s.Import(ctx, name, g); err != nil {
					t.Fatal(err)
				}
			}
			ix, err := p.OpenStore(ctx, s, name)
			if err != nil {
				t.Fatal(err)
			}
			label := map[bool]string{true: "postgres-exact", false: "postgres-sketch"}[exact]
			out = append(out, storeUnderTest{label, ix, exact})
		}
		return out
	}
}

// checkOverlap fails the test when a store's overlap is below 0.98.
func checkOverlap(t *testing.T, res map[string]confResult) {
	t.Helper()
	checkOverlapAt(t, res, 0.98)
}

// checkOverlapAt fails the test when a store's overlap is below min.
func checkOverlapAt(t *testing.T, res map[string]confResult, min float64) {
	t.Helper()
	for name, r := range res {
		if r.overlap() < min {
			t.Errorf("%s: nodes read overlap the reference's by %.4f, want ≥ %.2f", name, r.overlap(), min)
		}
	}
}

// TestConformanceQuickstart: the quickstart collection, its documents
// given metadata, under the default pipeline scoring 256 candidates.
func TestConformanceQuickstart(t *testing.T) {
	t.Parallel()
	docs, err := ingest.Path("../examples/quickstart/docs")
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		docs[i].Metadata = map[string]string{"kind": []string{"notes", "report"}[i%2]}
	}
	res := runConformance(t, confCase{
		name: "quickstart", cfg: flowreader.Config{Candidates: 256, ImageRoot: "../examples/quickstart/docs"}, docs: docs,
		questions: []string{"What did the station report say about the harbour?", "Which field notes mention birds?",
			"How did rainfall change over the year?", "Table 2 and Figure 1", "How many nests were counted?", "zzz qqq"},
		filters: []flowreader.Filter{{Metadata: map[string]string{"kind": "report"}}, {IDs: []string{docs[0].ID}}, {IDs: []string{"nothing"}}},
	}, pgStores("quickstart"))
	checkOverlap(t, res)
}

// TestConformanceCopies: the quickstart collection with a near-duplicate
// of every document (the evaluation's augmentation: exact copies, light
// edits, re-ordered sentences, a boilerplate line), under the default
// router, which routes each content once: the store keeps the content
// classes found at import, and the evidence, its also_in and the scores
// (the hop step's seeds count contents) equal the in-memory index's.
func TestConformanceCopies(t *testing.T) {
	t.Parallel()
	docs, err := ingest.Path("../examples/quickstart/docs")
	if err != nil {
		t.Fatal(err)
	}
	ds := eval.Augment{}.Apply(&eval.Dataset{Name: "quickstart", Questions: []eval.Question{{ID: "q", Docs: docs, DocSet: "quickstart"}}})
	docs = ds.Questions[0].Docs
	for i := range docs {
		docs[i].Metadata = map[string]string{"kind": []string{"notes", "report"}[i%2]}
	}
	questions := []string{"What did the station report say about the harbour?", "Which field notes mention birds?",
		"How did rainfall change over the year?", "Table 2 and Figure 1", "How many nests were counted?"}
	res := runConformance(t, confCase{
		name: "copies", cfg: flowreader.Config{Candidates: 256, ImageRoot: "../examples/quickstart/docs"}, docs: validUTF8(docs), questions: questions,
		filters: []flowreader.Filter{{Metadata: map[string]string{"kind": "report"}}, {IDs: []string{docs[0].ID, docs[1].ID}}},
	}, pgStores("copies"))
	checkOverlap(t, res)
	if r := res["postgres-exact"]; r.alsoIn == 0 {
		t.Fatalf("no node read over the store says where else its content is: the collection's copies were not found")
	}
}

// TestConformanceSynthetic: a synthetic collection of topic-clustered
// documents (3,000 nodes; FLOWREADER_CONFORMANCE_NODES sets another size,
// 100000 for the long run), with filters on its documents' metadata.
func TestConformanceSynthetic(t *testing.T) {
	t.Parallel()
	n := 3000
	if v := os.Getenv("FLOWREADER_CONFORMANCE_NODES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			t.Fatalf("FLOWREADER_CONFORMANCE_NODES=%q: want a node count of at least 1000", v)
		}
	}
	c := synth.NewCollection(n, 64, 24, 7)
	docs := c.Documents()
	res := runConformance(t, confCase{
		name: "synthetic", cfg: flowreader.Config{Embedder: c.Embedder(), Candidates: 64}, docs: docs, questions: c.Questions,
		filters: []flowreader.Filter{{Metadata: map[string]string{"part": "odd"}}, {IDs: []string{docs[0].ID, docs[len(docs)/2].ID}},
			{Metadata: map[string]string{"part": "even", "topic": "t3"}}},
	}, pgStores("synthetic"))
	checkOverlap(t, res)
}

// TestConformanceMultihop: the multi-hop dev sets' corpora (2Wiki,
// MuSiQue, HotpotQA: one collection of titled passages each, where the hop
// step raises named passages), 12 questions each (4 under the race
// detector); skipped when the data is absent.
func TestConformanceMultihop(t *testing.T) {
	t.Parallel()
	root := os.Getenv("FLOWREADER_DATA")
	if root == "" {
		root = "/work/shared/data"
	}
	for _, d := range []struct{ name, file string }{
		{eval.TwoWiki, "multihop/2wikimultihopqa/2wikimultihopqa.dev.jsonl"},
		{eval.MuSiQue, "multihop/musique/musique.dev.jsonl"},
		{eval.HotpotQA, "multihop/hotpotqa/hotpotqa.dev.json"},
	} {
		t.Run(d.name, func(t *testing.T) {
			path := filepath.Join(root, d.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("no %s data (%v)", d.name, err)
			}
			// Four questions under the race detector (the same corpora,
			// imported whole); the run without it asks all twelve.
			limit := 12
			if israce.Enabled {
				limit = 4
			}
			ds, err := eval.LoadMultihop(d.name, path, eval.LoadOptions{Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			var qs []string
			for _, q := range ds.Questions {
				qs = append(qs, q.Text)
			}
			docs := ds.Questions[0].Docs
			// Two halves of the corpus by passage number, to filter on.
			for i := range docs {
				docs[i].Metadata = map[string]string{"half": []string{"first", "second"}[min(1, 2*i/len(docs))]}
			}
			var ids []string
			for i := 0; i < len(docs); i += 7 {
				ids = append(ids, docs[i].ID)
			}
			res := runConformance(t, confCase{
				name: strings.ToLower(d.name), cfg: flowreader.Config{Candidates: 256}, docs: docs, questions: qs,
				filters: []flowreader.Filter{{Metadata: map[string]string{"half": "second"}}, {IDs: ids}},
			}, pgStores(d.name))
			checkOverlap(t, res)
			// The corpus with a near-duplicate of every passage (the
			// evaluation's default augmentation): the content classes,
			// the titles counted by content, one seed a content.
			aug := eval.Augment{}.Apply(ds)
			res = runConformance(t, confCase{
				name: strings.ToLower(d.name) + "+dup", cfg: flowreader.Config{Candidates: 256}, docs: validUTF8(aug.Questions[0].Docs), questions: qs,
			}, pgStores(d.name+"+dup"))
			checkOverlap(t, res)
		})
	}
}

// TestConformancePgvector: a synthetic collection on PGlite with pgvector,
// the dense candidates from its HNSW index (under a filter, pgvector's
// iterative scan): the nodes read overlap the reference's by at least
// 0.98, with and without filters.
func TestConformancePgvector(t *testing.T) {
	// Not parallel: PGlite (one WebAssembly backend per server) dropped
	// its connection under -race beside TestPgvector's server and the
	// other tests' load.
	// PGlite first, so that it has settled before the store connects:
	// started after the build, under -race, its socket server reset the
	// pool's second connection (the one after Open's), every time.
	url := pgtest.StartPGlite(t)
	c := synth.NewCollection(1200, 32, 12, 11)
	docs := c.Documents()
	res := runConformance(t, confCase{
		name: "pgvector", cfg: flowreader.Config{Embedder: c.Embedder(), Candidates: 64}, docs: docs, questions: c.Questions,
		filters: []flowreader.Filter{{Metadata: map[string]string{"part": "odd"}}, {IDs: []string{docs[1].ID, docs[3].ID}}},
	}, func(t *testing.T, p *flowreader.Pipeline, g *graph.Graph) []storeUnderTest {
		ctx := context.Background()
		s, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		if !s.ann || !s.iterative {
			t.Fatalf("PGlite with pgvector: ann %v, iterative scans %v; want both", s.ann, s.iterative)
		}
		if err := s.Import(ctx, "pgvector", g); err != nil {
			t.Fatal(err)
		}
		ix, err := p.OpenStore(ctx, s, "pgvector")
		if err != nil {
			t.Fatal(err)
		}
		return []storeUnderTest{{"postgres-hnsw", ix, false}}
	})
	checkOverlap(t, res)
}
