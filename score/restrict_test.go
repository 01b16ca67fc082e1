package score

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// someNodes is every node v of g with keep(v), ascending.
func someNodes(g *graph.Graph, keep func(v int) bool) []int {
	var out []int
	for v := range g.Nodes {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// TestScoreNodes: Score restricted to Query.Nodes scores exactly those
// nodes, each as the unrestricted Score does (relevance without the hop
// step, whose seeds are among the nodes scored).
func TestScoreNodes(t *testing.T) {
	g := synth.Topics(t, 1500, 24)
	ix := NewIndex(g)
	nodes := someNodes(g, func(v int) bool { return v%3 == 1 })
	for _, c := range []Config{{HopAlpha: -1}, {BM25Weight: -1, HopAlpha: -1}} {
		q := Query{Text: g.Nodes[40].Summary + " Figure 2", Embedding: g.Embedding(41)}
		full, err := ix.Score(c, q)
		if err != nil {
			t.Fatal(err)
		}
		q.Nodes = nodes
		part, err := ix.Score(c, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(part.Candidates, nodes) || len(part.Graph.Nodes) != len(nodes) {
			t.Fatalf("scored %d nodes, want the %d given", len(part.Candidates), len(nodes))
		}
		for i, v := range nodes {
			if part.Cos[i] != full.Cos[v] || part.R[i] != full.R[v] {
				t.Fatalf("node %d: cos %v r %v, unrestricted %v %v", v, part.Cos[i], part.R[i], full.Cos[v], full.R[v])
			}
			if full.BM25 != nil && part.BM25[i] != full.BM25[v] {
				t.Fatalf("node %d: BM25 %v, unrestricted %v", v, part.BM25[i], full.BM25[v])
			}
		}
	}
	q := Query{Text: "anything", Embedding: g.Embedding(0), Nodes: []int{}}
	if s, err := ix.Score(Config{}, q); err != nil || len(s.R) != 0 || len(s.Graph.Nodes) != 0 {
		t.Fatalf("no nodes: %v, %v", s, err)
	}
	for _, bad := range [][]int{{3, 3}, {5, 2}, {-1}, {len(g.Nodes)}} {
		q.Nodes = bad
		if _, err := ix.Score(Config{}, q); !errors.Is(err, ErrConfig) {
			t.Errorf("Nodes %v: %v", bad, err)
		}
		if _, err := ix.ScoreCandidates(Config{}, q, 8); !errors.Is(err, ErrConfig) {
			t.Errorf("candidates, Nodes %v: %v", bad, err)
		}
	}
}

// TestScoreCandidatesNodes: with Query.Nodes, every candidate is one of
// them, the m nearest of them (by exact cosine) and their m best by BM25
// are candidates, and each candidate scores as without the restriction.
func TestScoreCandidatesNodes(t *testing.T) {
	g := synth.Topics(t, 3000, 32)
	ix := NewIndex(g)
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 6; k++ {
		mod := 2 + rng.IntN(40)
		nodes := someNodes(g, func(v int) bool { return v%mod == k%mod })
		src := rng.IntN(len(g.Nodes))
		q := Query{Text: g.Nodes[src].Summary, Embedding: g.Embedding(src)}
		c := Config{HopAlpha: -1}
		full, err := ix.Score(c, q)
		if err != nil {
			t.Fatal(err)
		}
		q.Nodes = nodes
		const m = 16
		s, err := ix.ScoreCandidates(c, q, m)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range s.Candidates {
			if _, ok := slices.BinarySearch(nodes, v); !ok {
				t.Fatalf("candidate %d is not one of the nodes", v)
			}
			if s.Cos[i] != full.Cos[v] || s.R[i] != full.R[v] || s.BM25[i] != full.BM25[v] {
				t.Fatalf("node %d scores differently", v)
			}
		}
		byCos := slices.Clone(nodes)
		slices.SortStableFunc(byCos, func(a, b int) int {
			switch {
			case full.Cos[a] > full.Cos[b]:
				return -1
			case full.Cos[a] < full.Cos[b]:
				return 1
			}
			return 0
		})
		byBM := slices.Clone(nodes)
		slices.SortStableFunc(byBM, func(a, b int) int {
			switch {
			case full.BM25[a] > full.BM25[b]:
				return -1
			case full.BM25[a] < full.BM25[b]:
				return 1
			}
			return 0
		})
		for _, v := range append(byCos[:min(m, len(byCos))], byBM[:min(m, len(byBM))]...) {
			if full.BM25[v] == 0 && slices.Contains(byBM[:min(m, len(byBM))], v) && !slices.Contains(byCos[:m], v) {
				continue // no query term: not a BM25 seed
			}
			if !slices.Contains(s.Candidates, v) {
				t.Errorf("every %dth node: seed %d is not a candidate", mod, v)
			}
		}
	}
}

// TestCandidatesCheck: Candidates whose parts disagree are refused.
func TestCandidatesCheck(t *testing.T) {
	g := synth.Topics(t, 200, 8)
	ix := NewIndex(g)
	q := Query{Text: g.Nodes[3].Summary, Embedding: g.Embedding(3)}
	good := ix.candidates(Config{}, q, 8, nil)
	if _, err := good.score(Config{}, q); err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(c *Candidates){
		"no graph":      func(c *Candidates) { c.Graph = nil },
		"positions":     func(c *Candidates) { c.Nodes = c.Nodes[1:] },
		"order":         func(c *Candidates) { c.Nodes[0], c.Nodes[1] = c.Nodes[1], c.Nodes[0] },
		"size":          func(c *Candidates) { c.Size = 1 },
		"bm25":          func(c *Candidates) { c.BM25 = []float64{1} },
		"names":         func(c *Candidates) { c.Names = [][]int{{1}} },
		"named":         func(c *Candidates) { c.Named = []int{len(c.Nodes)} },
		"named by node": func(c *Candidates) { c.Names = make([][]int, len(c.Nodes)); c.Names[0] = []int{-1} },
		"nan":           func(c *Candidates) { c.CosMean = math.NaN() },
	} {
		c := *good
		c.Nodes = slices.Clone(good.Nodes)
		spoil(&c)
		if _, err := c.score(Config{}, q); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	var nilc *Candidates
	if _, err := nilc.score(Config{}, q); !errors.Is(err, ErrConfig) {
		t.Errorf("nil: %v", err)
	}
}
