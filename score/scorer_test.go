package score

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

func TestScoreEmbedsQuery(t *testing.T) {
	g := randomGraph(t, 3, 20, 4, 10)
	var kinds []llm.Kind
	var mu sync.Mutex
	emb := llm.EmbedderFunc(func(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
		mu.Lock()
		kinds = append(kinds, kind)
		mu.Unlock()
		return [][]float32{randomQuery(uint64(len(texts[0])), 4)}, nil
	})
	s := &Scorer{Config: ClassicConfig(), Embedder: emb}
	got, err := s.Score(context.Background(), g, "flow graph")
	if err != nil {
		t.Fatal(err)
	}
	want, err := (&Scorer{Config: ClassicConfig()}).ScoreVector(g, "flow graph", randomQuery(10, 4))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("Score and ScoreVector disagree")
	}
	if len(kinds) != 1 || kinds[0] != llm.Query {
		t.Errorf("embedded with kinds %v, want [query]", kinds)
	}
}

func TestScoreErrors(t *testing.T) {
	g := randomGraph(t, 3, 5, 4, 0)
	ctx := context.Background()
	if _, err := (&Scorer{}).Score(ctx, g, "x"); !errors.Is(err, ErrNoEmbedder) {
		t.Errorf("no embedder: %v", err)
	}
	boom := errors.New("boom")
	fail := llm.EmbedderFunc(func(context.Context, []string, llm.Kind) ([][]float32, error) { return nil, boom })
	if _, err := (&Scorer{Embedder: fail}).Score(ctx, g, "x"); !errors.Is(err, boom) {
		t.Errorf("embedder error: %v", err)
	}
	none := llm.EmbedderFunc(func(context.Context, []string, llm.Kind) ([][]float32, error) { return nil, nil })
	if _, err := (&Scorer{Embedder: none}).Score(ctx, g, "x"); !errors.Is(err, ErrEmbed) {
		t.Errorf("no vectors: %v", err)
	}
	nan := llm.EmbedderFunc(func(context.Context, []string, llm.Kind) ([][]float32, error) {
		return [][]float32{{0, 0, 0, float32(0) / float32(zero())}}, nil
	})
	if _, err := (&Scorer{Embedder: nan}).Score(ctx, g, "x"); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN vector: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	ok := llm.EmbedderFunc(func(context.Context, []string, llm.Kind) ([][]float32, error) { return [][]float32{{1, 0, 0, 0}}, nil })
	if _, err := (&Scorer{Embedder: ok}).Score(cctx, g, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func zero() float32 { return 0 }

// Concurrent queries on one Scorer (lazy index, cached adjacency) give the
// same bits as sequential ones; run with -race.
func TestConcurrentDeterministic(t *testing.T) {
	g := randomGraph(t, 5, 200, 8, 400)
	for _, c := range []Config{ClassicConfig(), AspectsConfig()} {
		s := &Scorer{Config: c}
		want := make([]*Scores, 8)
		for i := range want {
			var err error
			if want[i], err = (&Scorer{Config: c}).ScoreVector(g, "Figure 2 flow chain", randomQuery(uint64(i), 8)); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		got := make([]*Scores, 8)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], _ = s.ScoreVector(g, "Figure 2 flow chain", randomQuery(uint64(i), 8))
			}()
		}
		wg.Wait()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: concurrent scores differ from sequential ones", c.H)
		}
	}
}

func TestKeywordFunc(t *testing.T) {
	// Three nodes: with two, rank_bm25's idf of a term in one node is ln(1.5/1.5) = 0.
	g := mustGraph(t, []graph.Node{{Content: "dogs bark"}, {Content: "cats purr"}, {Content: "cows moo"}}, 2, []float32{1, 0, 0, 1, 1, 1}, nil)
	emb := llm.EmbedderFunc(func(context.Context, []string, llm.Kind) ([][]float32, error) { return [][]float32{{0, 0}}, nil })
	var asked string
	s := &Scorer{Embedder: emb, KeywordFunc: func(_ context.Context, q string) ([]string, error) {
		asked = q
		return []string{"Cats", "the"}, nil
	}}
	sc, err := s.Score(context.Background(), g, "Which animal purrs?")
	if err != nil {
		t.Fatal(err)
	}
	if asked != "Which animal purrs?" || !reflect.DeepEqual(sc.Keywords, []string{"cat"}) || !reflect.DeepEqual(sc.BM25, []float64{0, 1, 0}) {
		t.Errorf("asked %q, keywords %q, BM25 %v", asked, sc.Keywords, sc.BM25)
	}
	boom := errors.New("boom")
	s.KeywordFunc = func(context.Context, string) ([]string, error) { return nil, boom }
	if _, err := s.Score(context.Background(), g, "x"); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}
