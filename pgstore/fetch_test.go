package pgstore

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/pgtest"
	"github.com/flowreader/flowreader/internal/scorehook"
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
	// The statistics and raw scores, bit for bit.
	wcs, err := scorehook.Candidates(ix, c, q, m)
	if err != nil {
		t.Fatal(err)
	}
	if w := wcs.(*score.Candidates); cs.BM25Min != w.BM25Min || cs.BM25Max != w.BM25Max || cs.BM25Sum != w.BM25Sum ||
		c.BM25Weight >= 0 && !slices.Equal(cs.BM25, w.BM25) {
		t.Fatalf("%q: BM25 range %v..%v sum %v raw %v, in-process %v..%v sum %v raw %v", q.Text,
			cs.BM25Min, cs.BM25Max, cs.BM25Sum, cs.BM25, w.BM25Min, w.BM25Max, w.BM25Sum, w.BM25)
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

// TestFetchLexical asks questions of rare and frequent terms, and one no
// node holds, over the store (every node re-ranked, and the sketch path
// with its lexical seeds read with the re-rank rows): the subgraph and the
// BM25 statistics and scores equal the in-process ones bit for bit.
func TestFetchLexical(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	g := synth.Graph(t, 1200, 24, 7).WithInt8Embeddings()
	const name = "terms"
	if err := s.Import(ctx, name, g); err != nil {
		t.Fatal(err)
	}
	ix := score.NewIndex(g)
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 6; k++ {
		v := rng.IntN(len(g.Nodes))
		// Two nodes' keywords: rare and frequent terms, plus one no
		// node holds.
		q := score.Query{Text: strings.Join(g.Nodes[v].Keywords, " ") + " zzyzxq " + strings.Join(g.Nodes[(v+601)%len(g.Nodes)].Keywords, " "),
			Embedding: g.AppendEmbedding(nil, (v+1)%len(g.Nodes))}
		sameCandidates(t, s, name, g, q, 32, score.Config{})
		wcs, err := scorehook.Candidates(ix, score.Config{}, q, 32)
		if err != nil {
			t.Fatal(err)
		}
		want := wcs.(*score.Candidates)
		// The replica's sketches (the lexical seeds' adjacency read with
		// the re-rank rows) and the database's sketch scan (read after
		// round trip 1 when the dense pass did not read them all).
		for _, way := range []struct {
			name      string
			sketchMin int64
			trips     []int
		}{{"replica's sketches", 0, []int{3}}, {"database's sketches", 1 << 62, []int{2, 3}}} {
			s.sketchMin = way.sketchMin
			got, err := s.fetch(ctx, name, q, 32, score.Config{}, fetchOptions{})
			s.sketchMin = sketchMinNodes
			if err != nil {
				t.Fatal(err)
			}
			if n := got.trips - got.kwTrips; !slices.Contains(way.trips, n) {
				t.Errorf("%q, %s: %d round trips besides keyword frequencies, want one of %v", q.Text, way.name, n, way.trips)
			}
			if got.bmLo != want.BM25Min || got.bmHi != want.BM25Max || got.bmSum != want.BM25Sum {
				t.Errorf("%q, %s: BM25 range %v..%v sum %v, in-process %v..%v sum %v", q.Text, way.name, got.bmLo, got.bmHi, got.bmSum, want.BM25Min, want.BM25Max, want.BM25Sum)
			}
			// Every lexical seed is a candidate, and so are its
			// neighbours up to the bound (read with its adjacency).
			for _, v := range got.lexical {
				if _, ok := slices.BinarySearch(got.seqs, v); !ok {
					t.Fatalf("%q, %s: lexical seed %d not a candidate", q.Text, way.name, v)
				}
			}
			for i, v := range got.seqs {
				if j, ok := slices.BinarySearch(want.Nodes, int(v)); ok && got.bmRaw[i] != want.BM25[j] {
					t.Fatalf("%q, %s: node %d raw BM25 %v, in-process %v", q.Text, way.name, v, got.bmRaw[i], want.BM25[j])
				}
			}
		}
	}
}
