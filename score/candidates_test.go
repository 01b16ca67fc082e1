package score

import (
	"errors"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// TestScoreCandidatesMatchesScore checks that every candidate scores as it
// does when every node is scored, and that the candidates hold the best
// nodes by relevance.
func TestScoreCandidatesMatchesScore(t *testing.T) {
	f := synth.Topics(t, 3000, 32)
	t.Run("float32", func(t *testing.T) { scoreCandidatesMatchesScore(t, f) })
	t.Run("int8", func(t *testing.T) { scoreCandidatesMatchesScore(t, f.WithInt8Embeddings()) })
}

func scoreCandidatesMatchesScore(t *testing.T, g *graph.Graph) {
	ix := NewIndex(g)
	for qi, src := range []int{5, 700, 2999} {
		q := Query{Text: g.Nodes[src].Summary, Embedding: g.Embedding(src)}
		for _, c := range []Config{Config{}, classicConfig()} {
			full, err := ix.Score(c, q)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := ix.ScoreCandidates(c, q, 64)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Graph == nil || len(sc.Graph.Nodes) != len(sc.Candidates) || len(sc.R) != len(sc.Candidates) {
				t.Fatalf("q%d: candidate subgraph and scores disagree", qi)
			}
			if len(sc.Candidates) > 8*64 {
				t.Fatalf("q%d: %d candidates, more than 8·m", qi, len(sc.Candidates))
			}
			for i, v := range sc.Candidates {
				if i > 0 && sc.Candidates[i-1] >= v {
					t.Fatalf("candidates not ascending")
				}
				if sc.R[i] != full.R[v] || sc.Cos[i] != full.Cos[v] || sc.BM25[i] != full.BM25[v] {
					t.Fatalf("q%d node %d: r %v cos %v bm25 %v, full %v %v %v", qi, v, sc.R[i], sc.Cos[i], sc.BM25[i], full.R[v], full.Cos[v], full.BM25[v])
				}
			}
			// The 16 most relevant nodes are candidates.
			top := topK(full.R, 16, nil)
			for _, v := range top {
				found := false
				for _, u := range sc.Candidates {
					found = found || u == v
				}
				if !found {
					t.Errorf("q%d: top node %d (r %.3f) is not a candidate", qi, v, full.R[v])
				}
			}
			if d := sc.RMean - full.RMean; d > 0.05 || d < -0.05 {
				t.Errorf("q%d: estimated r̄ %.4f, exact %.4f", qi, sc.RMean, full.RMean)
			}
		}
	}
	if _, err := ix.ScoreCandidates(Config{}, Query{Embedding: g.Embedding(0)}, 0); !errors.Is(err, ErrConfig) {
		t.Fatalf("m = 0: %v", err)
	}
}

// TestScoreCandidatesConcurrent asks the same questions from several
// goroutines: the pooled working space must not leak between them.
func TestScoreCandidatesConcurrent(t *testing.T) {
	g := synth.Topics(t, 2000, 16)
	ix := NewIndex(g)
	want := make([][]int, 8)
	for k := range want {
		s, err := ix.ScoreCandidates(Config{}, Query{Text: g.Nodes[k*97].Summary, Embedding: g.Embedding(k * 97)}, 32)
		if err != nil {
			t.Fatal(err)
		}
		want[k] = s.Candidates
	}
	done := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			for r := 0; r < 5; r++ {
				for k := range want {
					s, err := ix.ScoreCandidates(Config{}, Query{Text: g.Nodes[k*97].Summary, Embedding: g.Embedding(k * 97)}, 32)
					if err != nil {
						done <- err
						return
					}
					if !slices.Equal(s.Candidates, want[k]) {
						done <- errors.New("candidates differ between concurrent questions")
						return
					}
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
