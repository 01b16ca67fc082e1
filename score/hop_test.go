package score

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// hopGraph4 is four titled passages: the film names its director, who is
// otherwise unlike the question; the director's passage shares an entity
// ("Malmo Art School") with an unrelated passage.
func hopGraph4(t *testing.T) *graph.Graph {
	t.Helper()
	nodes := []graph.Node{
		{ID: "a", Doc: "a", Section: "Blue Harbour", Content: "Blue Harbour is a film directed by Anna Berg."},
		{ID: "b", Doc: "b", Section: "Anna Berg", Content: "Anna Berg studied at the Malmo Art School."},
		{ID: "c", Doc: "c", Section: "Red Song", Content: "Red Song is a film."},
		{ID: "d", Doc: "d", Section: "Ola Lind", Content: "Ola Lind taught at the Malmo Art School."},
	}
	return mustGraph(t, nodes, 2, []float32{1, 0, 0, 1, 1, 0.1, 0, 1}, graph.MentionLinks(nodes, true))
}

// raiseOn runs the hop step of c on r (h = r) over g's nodes (all when
// nodes is nil), as Score and ScoreCandidates do after relevance.
func raiseOn(g *graph.Graph, c Config, question string, r []float64, nodes []int) *Scores {
	ix := NewIndex(g)
	sg := g
	if nodes != nil {
		ns := make([]int32, len(nodes))
		for i, v := range nodes {
			ns[i] = int32(v)
		}
		sg = g.Subgraph(ns)
	}
	sc := &Scores{Question: question, R: slices.Clone(r), H: slices.Clone(r)}
	ix.raise(c, sc, sg, nodes)
	return sc
}

// byR is the nodes by r descending, ties by index: a top-k reading.
func byR(s *Scores) []int { return topK(s.R, len(s.R), nil) }

func TestHopRaisesNamedPassage(t *testing.T) {
	g := hopGraph4(t)
	q := "Where did the director of the harbour film study?"
	r := []float64{1, 0.1, 0.6, 0.2}
	for i, c := range []struct {
		cfg  Config
		want []int
	}{
		// Without the hop step: by relevance.
		{Config{HopAlpha: -1}, []int{0, 2, 3, 1}},
		// The director inherits 0.9·1 + 0.1·0.1 from the film: read second.
		{Config{}, []int{0, 1, 2, 3}},
		// One seed is the film only; α = 0.5 leaves the director below c.
		{Config{HopSeeds: 1, HopAlpha: 0.5, HopEntityAlpha: -1}, []int{0, 2, 1, 3}},
	} {
		s := raiseOn(g, c.cfg, q, r, nil)
		if got := byR(s); !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d: order %v, want %v", i, got, c.want)
		}
		if on := c.cfg.HopAlpha >= 0; on != slices.Contains(s.Steps, "hop") {
			t.Errorf("case %d: steps %v", i, s.Steps)
		}
	}
	s := raiseOn(g, Config{}, q, r, nil)
	if math.Abs(s.R[1]-0.91) > 1e-12 || math.Abs(s.H[1]-0.91) > 1e-12 || !reflect.DeepEqual(s.Raised, []int{1}) {
		t.Errorf("director: r %v h %v raised %v, want 0.91 and [1]", s.R[1], s.H[1], s.Raised)
	}
	// When the director is the most relevant, the school's other teacher
	// inherits 0.6·1 + 0.4·0.1 over the shared entity (no title names it).
	for _, c := range []struct {
		entity float64
		want   []int
	}{{0, []int{1, 3, 2, 0}}, {-1, []int{1, 2, 0, 3}}} {
		s := raiseOn(g, Config{HopEntityAlpha: c.entity}, "", []float64{0.2, 1, 0.6, 0.1}, nil)
		if got := byR(s); !reflect.DeepEqual(got, c.want) {
			t.Errorf("HopEntityAlpha %v: order %v, want %v", c.entity, got, c.want)
		}
	}
}

func TestHopQuestionTitles(t *testing.T) {
	g := hopGraph4(t)
	// A comparison question names both films; by relevance Red Song is last.
	s := raiseOn(g, Config{}, "Which is older, Blue Harbour or Red Song?", []float64{1, 0.3, 0.05, 0.2}, nil)
	if got := byR(s)[:2]; !reflect.DeepEqual(got, []int{0, 2}) {
		t.Errorf("order %v, want both named films first", got)
	}
}

// TestHopSubgraph checks that the hop step over a candidate subgraph raises
// a node as over the whole graph: names and the title-mention pairs are the
// whole graph's, looked up through the subgraph's node map.
func TestHopSubgraph(t *testing.T) {
	g := hopGraph4(t)
	q := "Where did the director of the harbour film study?"
	for _, c := range []struct {
		nodes []int
		r     []float64
		want  []float64
	}{
		// The film names its director: 0.9·1 + 0.1·0.1.
		{[]int{0, 1, 3}, []float64{1, 0.1, 0.2}, []float64{1, 0.91, 0.2}},
		// The director's entity link to the other teacher is not a title
		// mention in the whole graph (sub pair (0, 1) is the whole graph's
		// (1, 3)): 0.6·1 + 0.4·0.1.
		{[]int{1, 3}, []float64{1, 0.1}, []float64{1, 0.64}},
	} {
		s := raiseOn(g, Config{}, q, c.r, c.nodes)
		for i, w := range c.want {
			if math.Abs(s.R[i]-w) > 1e-12 {
				t.Errorf("nodes %v: raised r %v, want %v", c.nodes, s.R, c.want)
				break
			}
		}
	}
}

// TestHopScoreAndCandidates: Score and ScoreCandidates both run the hop
// step, report it in Steps and Raised, and give a candidate the raised
// score the whole graph gives it.
func TestHopScoreAndCandidates(t *testing.T) {
	g := hopGraph4(t)
	ix := NewIndex(g)
	ix.Prepare(Config{})
	q := Query{Text: "Where did the director of the harbour film study?", Embedding: []float32{1, 0}}
	full, err := ix.Score(Config{}, q)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ix.Score(Config{HopAlpha: -1}, q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(full.Steps, "hop") || slices.Contains(plain.Steps, "hop") || plain.Raised != nil {
		t.Fatalf("steps %v / %v, raised %v", full.Steps, plain.Steps, plain.Raised)
	}
	if !slices.Contains(full.Raised, 1) || full.H[1] <= plain.H[1] {
		t.Fatalf("the director is not raised: h %v, without the hop step %v (raised %v)", full.H, plain.H, full.Raised)
	}
	if full.HMean != plain.HMean || full.RMean != plain.RMean {
		t.Errorf("means moved with the hop step: %v %v, %v %v", full.HMean, plain.HMean, full.RMean, plain.RMean)
	}
	cand, err := ix.ScoreCandidates(Config{}, q, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range cand.Candidates {
		if cand.H[i] != full.H[v] || cand.R[i] != full.R[v] {
			t.Errorf("candidate %d (node %d): h %v r %v, whole graph %v %v", i, v, cand.H[i], cand.R[i], full.H[v], full.R[v])
		}
	}
}

func TestHopConfigErrors(t *testing.T) {
	for _, c := range []Config{{HopAlpha: 1}, {HopSeeds: -1}, {HopEntityAlpha: 1}, {HopAlpha: math.NaN()}} {
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
