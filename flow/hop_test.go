package flow

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
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
	g, err := graph.New(nodes, 2, []float32{1, 0, 0, 1, 1, 0.1, 0, 1}, graph.MentionLinks(nodes, true))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// rankRouter lists the nodes by r, one chain each: a top-k stand-in (the
// ranked baselines live outside this package).
type rankRouter struct{}

func (rankRouter) Open(context.Context, *graph.Graph) (GraphRouter, error) { return rankRouter{}, nil }

func (rankRouter) Route(_ context.Context, s *score.Scores, budget int) (*Routing, error) {
	r := &Routing{Router: "rank", Scores: s}
	for _, v := range byScore(s.R)[:min(budget, len(s.R))] {
		r.Chains = append(r.Chains, Chain{Nodes: []int{v}, Aspect: -1})
	}
	return r, nil
}

func order(r *Routing) []int {
	var out []int
	for _, c := range r.Chains {
		out = append(out, c.Nodes...)
	}
	return out
}

func TestHopRaisesNamedPassage(t *testing.T) {
	g := hopGraph4(t)
	s := &score.Scores{Question: "Where did the director of the harbour film study?", R: []float64{1, 0.1, 0.6, 0.2}, H: []float64{1, 0.1, 0.6, 0.2}}
	ctx := context.Background()
	cases := []struct {
		h    *Hop
		want []int
	}{
		// Without Hop: by relevance.
		{nil, []int{0, 2, 3, 1}},
		// The director inherits 0.9·1 + 0.1·0.1 from the film: read second.
		{&Hop{Router: rankRouter{}}, []int{0, 1, 2, 3}},
		// One seed is the film only; α = 0.5 leaves the director below c.
		{&Hop{Router: rankRouter{}, Seeds: 1, Alpha: 0.5, EntityAlpha: -1}, []int{0, 2, 1, 3}},
	}
	for i, c := range cases {
		var rt Router = rankRouter{}
		if c.h != nil {
			rt = c.h
		}
		r, err := routeAt(ctx, rt, g, s, 4)
		if err != nil {
			t.Fatal(err)
		}
		if got := order(r); !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d: order %v, want %v", i, got, c.want)
		}
	}
	// The inner router saw raised scores; the caller's are untouched.
	if s.R[1] != 0.1 || s.H[1] != 0.1 {
		t.Error("scores modified")
	}
	// When the director is the most relevant, the school's other teacher
	// inherits 0.6·1 + 0.4·0.1 over the shared entity (no title names it).
	s = &score.Scores{R: []float64{0.2, 1, 0.6, 0.1}, H: []float64{0.2, 1, 0.6, 0.1}}
	for _, c := range []struct {
		entity float64
		want   []int
	}{{0, []int{1, 3, 2, 0}}, {-1, []int{1, 2, 0, 3}}} {
		r, err := routeAt(ctx, &Hop{Router: rankRouter{}, EntityAlpha: c.entity}, g, s, 4)
		if err != nil {
			t.Fatal(err)
		}
		if got := order(r); !reflect.DeepEqual(got, c.want) {
			t.Errorf("EntityAlpha %v: order %v, want %v", c.entity, got, c.want)
		}
	}
}

func TestHopQuestionTitles(t *testing.T) {
	g := hopGraph4(t)
	// A comparison question names both films; by relevance Red Song is last.
	s := &score.Scores{Question: "Which is older, Blue Harbour or Red Song?", R: []float64{1, 0.3, 0.05, 0.2}, H: []float64{1, 0.3, 0.05, 0.2}}
	r, err := routeAt(context.Background(), &Hop{Router: rankRouter{}}, g, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := order(r); !reflect.DeepEqual(got, []int{0, 2}) {
		t.Errorf("order %v, want both named films", got)
	}
}

func TestHopErrors(t *testing.T) {
	g := hopGraph4(t)
	ctx := context.Background()
	for _, h := range []*Hop{{}, {Router: rankRouter{}, Alpha: 1}, {Router: rankRouter{}, Seeds: -1}, {Router: rankRouter{}, EntityAlpha: 1}} {
		if _, err := h.Open(ctx, g); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", h, err)
		}
	}
	if _, err := routeAt(ctx, &Hop{Router: rankRouter{}}, g, &score.Scores{R: []float64{1}}, 4); !errors.Is(err, ErrScores) {
		t.Errorf("short scores: %v", err)
	}
	if _, err := (&Hop{Router: rankRouter{}}).Open(ctx, nil); !errors.Is(err, ErrScores) {
		t.Errorf("nil graph: %v", err)
	}
	// A ranked inner router cannot re-route, so neither can Hop.
	gr, _ := (&Hop{Router: rankRouter{}}).Open(ctx, g)
	if _, ok := gr.(Rerouter); ok {
		t.Error("Hop over a ranked router is a Rerouter")
	}
}

// TestHopAspects runs the default aspects router behind Hop: the named
// passage, below the demand floor by its own relevance, is read, and the
// opened router can re-route as the aspects router can.
func TestHopAspects(t *testing.T) {
	g := hopGraph4(t)
	s := &score.Scores{Question: "Where did the director of the harbour film study?", Query: []float32{1, 0}, Cos: []float64{1, 0, 1, 0}, R: []float64{1, 0.1, 0.6, 0.2}, H: []float64{1, 0.1, 0.6, 0.2}}
	ctx := context.Background()
	gr, err := (&Hop{Router: DefaultAspects()}).Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	r, err := gr.Route(ctx, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, v := range order(r) {
		seen[v] = true
	}
	if !seen[0] || !seen[1] {
		t.Errorf("read %v, want the film and its director", order(r))
	}
	rr, ok := gr.(Rerouter)
	if !ok {
		t.Fatal("Hop over aspects is not a Rerouter")
	}
	if _, err := rr.Reroute(ctx, s, 2, r, Edits{}); err != nil {
		t.Fatal(err)
	}
}
