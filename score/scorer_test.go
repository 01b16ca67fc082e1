package score

import (
	"reflect"
	"sync"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// Concurrent queries on one Index (shared pruned adjacency and scratch
// pool) give the same bits as sequential ones on fresh indexes; run with
// -race.
func TestConcurrentDeterministic(t *testing.T) {
	g := randomGraph(t, 5, 200, 8, 400)
	for _, c := range []Config{classicConfig(), Config{}} {
		ix := NewIndex(g)
		want := make([]*Scores, 8)
		for i := range want {
			var err error
			if want[i], err = scoreVec(g, c, "Figure 2 flow chain", randomQuery(uint64(i), 8)); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		got := make([]*Scores, 8)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], _ = ix.Score(c, Query{Text: "Figure 2 flow chain", Embedding: randomQuery(uint64(i), 8)})
			}()
		}
		wg.Wait()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("fusion %v: concurrent scores differ from sequential ones", c.Fusion)
		}
	}
}

// A different r_min on the same Index rebuilds the pruned adjacency and
// gives the scores of a fresh index.
func TestIndexMinEdgeWeight(t *testing.T) {
	g := randomGraph(t, 6, 100, 6, 200)
	ix := NewIndex(g)
	q := Query{Text: "flow graph", Embedding: randomQuery(6, 6)}
	for _, rmin := range []float64{0.22, 0.5, 0.22} {
		c := classicConfig()
		c.MinEdgeWeight = rmin
		got, err := ix.Score(c, q)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := NewIndex(g).Score(c, q)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("r_min %v: scores differ from a fresh index's", rmin)
		}
	}
}

func TestQueryKeywords(t *testing.T) {
	// Three nodes: with two, rank_bm25's idf of a term in one node is ln(1.5/1.5) = 0.
	g := mustGraph(t, []graph.Node{{Content: "dogs bark"}, {Content: "cats purr"}, {Content: "cows moo"}}, 2, []float32{1, 0, 0, 1, 1, 1}, nil)
	ix := NewIndex(g)
	sc, err := ix.Score(Config{}, Query{Text: "Which animal purrs?", Embedding: []float32{0, 0}, Keywords: []string{"Cats", "the"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sc.Keywords, []string{"cat"}) || !reflect.DeepEqual(sc.BM25, []float64{0, 1, 0}) {
		t.Errorf("keywords %q, BM25 %v", sc.Keywords, sc.BM25)
	}
	// An empty, non-nil list: no keywords, no rule-based fallback.
	sc, err = ix.Score(Config{}, Query{Text: "Which animal purrs?", Embedding: []float32{0, 0}, Keywords: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Keywords) != 0 || sc.Keywords == nil || !reflect.DeepEqual(sc.BM25, []float64{0, 0, 0}) {
		t.Errorf("keywords %q, BM25 %v", sc.Keywords, sc.BM25)
	}
	// Nil: the rule-based keywords of the text.
	sc, _ = ix.Score(Config{}, Query{Text: "Which animal purrs?", Embedding: []float32{0, 0}})
	if !reflect.DeepEqual(sc.Keywords, queryTerms("Which animal purrs?")) {
		t.Errorf("keywords %q", sc.Keywords)
	}
}
