package pgstore

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/pgtest"
	"github.com/flowreader/flowreader/score"
)

// openTest starts a server and opens a store on it.
func openTest(t *testing.T) (*Store, *pgtest.Server) {
	t.Helper()
	srv := pgtest.Start(t)
	s, err := Open(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, srv
}

// quickstart builds the quickstart collection with the default pipeline.
func quickstart(t *testing.T) (*flowreader.Pipeline, *graph.Graph, []graph.Document) {
	t.Helper()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := ingest.Path("../examples/quickstart/docs")
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return p, g, docs
}

// sameCandidates checks the store's fetch against score's in-process
// candidate scoring: the same subgraph (nodes, payloads, embeddings,
// edges) and BM25 equal to 1e-9.
func sameCandidates(t *testing.T, s *Store, name string, g *graph.Graph, q score.Query, m int, c score.Config) {
	t.Helper()
	ix := score.NewIndex(g)
	want, err := ix.ScoreCandidates(c, q, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.fetch(context.Background(), name, q, m, c, fetchOptions{exact: true, text: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.trips-got.kwTrips != 2 {
		t.Errorf("%q: %d round trips (%d for keyword frequencies), want 2 besides those", q.Text, got.trips, got.kwTrips)
	}
	seqs := make([]int, len(got.seqs))
	for i, v := range got.seqs {
		seqs[i] = int(v)
	}
	if !slices.Equal(seqs, want.Candidates) {
		t.Fatalf("%q: candidates differ:\nstore     %v\nin-process %v", q.Text, seqs, want.Candidates)
	}
	sub := want.Graph
	for i := range sub.Nodes {
		a, b := nodeString(got.nodes[i]), nodeString(sub.Nodes[i])
		if a != b {
			t.Fatalf("%q: node %d differs:\nstore      %s\nin-process %s", q.Text, i, a, b)
		}
		row := sub.AppendEmbedding(nil, i)
		rb := rowBytes(got.dim, got.int8)
		if d, w := dot(row, got.emb[i*rb:(i+1)*rb], got.scale[i], got.int8), sub.Dot(i, row); d != w {
			t.Fatalf("%q: node %d embedding differs (%v, %v)", q.Text, i, d, w)
		}
	}
	// The subgraph's edges, as a question gets them (their weights are
	// computed there, from the stored embeddings).
	cs, err := got.candidates()
	if err != nil {
		t.Fatal(err)
	}
	if ge := cs.Graph.Edges; len(ge) != len(sub.Edges) {
		t.Fatalf("%q: %d edges, in-process %d", q.Text, len(ge), len(sub.Edges))
	}
	for i, e := range sub.Edges {
		if ge := cs.Graph.Edges[i]; ge != e {
			t.Fatalf("%q: edge %d: %+v, in-process %+v", q.Text, i, ge, e)
		}
	}
	if (want.BM25 == nil) != (got.bm25 == nil) {
		t.Fatalf("%q: BM25 nil %v, in-process nil %v", q.Text, got.bm25 == nil, want.BM25 == nil)
	}
	for i := range want.BM25 {
		if math.Abs(got.bm25[i]-want.BM25[i]) > 1e-9 {
			t.Fatalf("%q: node %d BM25 %v, in-process %v", q.Text, i, got.bm25[i], want.BM25[i])
		}
	}
}

func nodeString(n graph.Node) string {
	img := n.Image
	n.Image = nil
	if img != nil {
		return fmt.Sprintf("%+v image %+v", n, *img)
	}
	return fmt.Sprintf("%+v", n)
}

func TestFetchQuickstart(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	p, g, docs := quickstart(t)
	if err := s.Import(ctx, "quickstart", g, docs...); err != nil {
		t.Fatal(err)
	}
	if err := s.Import(ctx, "quickstart", g); err == nil {
		t.Fatal("a second import of one name succeeded")
	}
	for _, question := range []string{
		"What did the station report say about the harbour?",
		"Which field notes mention birds?",
		"Table 2 and Figure 1",
		"zzz qqq",
	} {
		vs, err := p.Embedder().Embed(ctx, []string{question}, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []int{1, 3, 16} {
			sameCandidates(t, s, "quickstart", g, score.Query{Text: question, Embedding: vs[0]}, m, score.Config{})
		}
	}
}

func TestFetchSynthetic(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	for _, i8 := range []bool{false, true} {
		g := synth.Graph(t, 1200, 24, 7)
		name := "topics-f32"
		if i8 {
			g, name = g.WithInt8Embeddings(), "topics-i8"
		}
		if err := s.Import(ctx, name, g); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for k := 0; k < 8; k++ {
			v := rng.IntN(len(g.Nodes))
			q := score.Query{Text: strings.Join(g.Nodes[v].Keywords, " ") + " " + g.Nodes[(v+7)%len(g.Nodes)].Keywords[0], Embedding: g.AppendEmbedding(nil, (v+1)%len(g.Nodes))}
			for _, c := range []score.Config{score.Config{}, flowreader.Classic().Scoring} {
				sameCandidates(t, s, name, g, q, 32, c)
			}
		}
	}
}

// TestFetchTermsByRangeAndProbe asks questions whose terms are read both
// ways in round trip 2 (by each term's range of postings and by probes
// per candidate) and mixed, term by term: the subgraph and BM25 equal the
// in-process ones, and the BM25 of every way equals the others' bit for
// bit.
func TestFetchTermsByRangeAndProbe(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	g := synth.Graph(t, 1200, 24, 7).WithInt8Embeddings()
	const name = "terms"
	if err := s.Import(ctx, name, g); err != nil {
		t.Fatal(err)
	}
	var ranged, probed int
	ways := []struct {
		name  string
		split func(kw []string, dfs []int32, n int) (termSet, termSet)
	}{
		{"default", nil},
		{"all by range", func(kw []string, dfs []int32, n int) (termSet, termSet) {
			r, p := splitTerms(kw, dfs, math.MaxInt32)
			ranged += len(r.terms)
			return r, p
		}},
		{"all by probe", func(kw []string, dfs []int32, n int) (termSet, termSet) {
			r, p := splitTerms(kw, dfs, 0)
			probed += len(p.terms)
			return r, p
		}},
		{"alternating", func(kw []string, dfs []int32, n int) (termSet, termSet) {
			r, _ := splitTerms(kw, dfs, math.MaxInt32) // every term held, by range
			var a, b termSet
			for i := range r.terms {
				to := &a
				if i%2 == 1 {
					to = &b
				}
				to.terms, to.ords = append(to.terms, r.terms[i]), append(to.ords, r.ords[i])
			}
			if len(a.terms) == 0 || len(b.terms) == 0 {
				t.Errorf("terms %v: one way got none", r.terms)
			}
			return a, b
		}},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 6; k++ {
		v := rng.IntN(len(g.Nodes))
		// Two nodes' keywords: rare and frequent terms, plus one no
		// node holds.
		q := score.Query{Text: strings.Join(g.Nodes[v].Keywords, " ") + " zzyzxq " + strings.Join(g.Nodes[(v+601)%len(g.Nodes)].Keywords, " "),
			Embedding: g.AppendEmbedding(nil, (v+1)%len(g.Nodes))}
		var first []float64
		for _, w := range ways {
			s.split = w.split
			sameCandidates(t, s, name, g, q, 32, score.Config{})
			got, err := s.fetch(ctx, name, q, 32, score.Config{}, fetchOptions{exact: true})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got.bmRaw
			} else if !slices.Equal(got.bmRaw, first) {
				t.Fatalf("%q, %s: raw BM25 differs from the default's", q.Text, w.name)
			}
		}
	}
	s.split = nil
	if ranged == 0 || probed == 0 {
		t.Fatalf("terms read by range %d, by probe %d: want both", ranged, probed)
	}
}

func TestSplitTerms(t *testing.T) {
	kw := []string{"a", "b", "c", "d"}
	dfs := []int32{0, tfRangeFactor * 10, tfRangeFactor*10 + 1, 1}
	r, p := splitTerms(kw, dfs, 10)
	if !slices.Equal(r.terms, []string{"b", "d"}) || !slices.Equal(r.ords, []int64{2, 4}) {
		t.Errorf("by range %+v, want b, d at 2, 4", r)
	}
	if !slices.Equal(p.terms, []string{"c"}) || !slices.Equal(p.ords, []int64{3}) {
		t.Errorf("by probe %+v, want c at 3", p)
	}
}

// TestSeqMultirange checks the multirange of random ascending seqs
// against the seqs: every seq in it, no other, runs apart.
func TestSeqMultirange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 200; k++ {
		var seqs []int64
		in := map[int64]bool{}
		for v := int64(rng.IntN(3)); v < 300; v += int64(1 + rng.IntN(1+k%5)) {
			seqs = append(seqs, v)
			in[v] = true
		}
		mr := seqMultirange(seqs)
		for i, r := range mr {
			if r.LowerType != pgtype.Inclusive || r.UpperType != pgtype.Inclusive || !r.Valid {
				t.Fatalf("run %d: %+v, want an inclusive range", i, r)
			}
			if i > 0 && r.Lower.Int64 <= mr[i-1].Upper.Int64+1 {
				t.Fatalf("runs %d and %d touch: %v", i-1, i, mr)
			}
			for v := r.Lower.Int64; v <= r.Upper.Int64; v++ {
				if !in[v] {
					t.Fatalf("%d in the runs, not a seq", v)
				}
				delete(in, v)
			}
		}
		if len(in) > 0 {
			t.Fatalf("%d seqs not in the runs", len(in))
		}
	}
}
