package flowreader

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/fixture"
	"github.com/flowreader/flowreader/internal/proposal"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/score"
)

// fakeRouter opens to itself: Route returns first, Reroute returns next and
// records the edits it was given.
type fakeRouter struct {
	first, next *flow.Routing
	calls       int
	edits       []flow.Edits
}

func (f *fakeRouter) Open(context.Context, *graph.Graph) (flow.GraphRouter, error) { return f, nil }
func (f *fakeRouter) Route(context.Context, *score.Scores, int) (*flow.Routing, error) {
	return f.first, nil
}
func (f *fakeRouter) Reroute(_ context.Context, _ *score.Scores, _ int, _ *flow.Routing, e flow.Edits) (*flow.Routing, error) {
	f.calls++
	f.edits = append(f.edits, e)
	return f.next, nil
}

// routeOnly is a router whose per-graph router cannot re-route.
type routeOnly struct{ r *flow.Routing }

func (o routeOnly) Open(context.Context, *graph.Graph) (flow.GraphRouter, error) { return o, nil }
func (o routeOnly) Route(context.Context, *score.Scores, int) (*flow.Routing, error) {
	return o.r, nil
}

// firstChains selects a routing's chains in decomposition order.
type firstChains struct{}

func (firstChains) Select(_ context.Context, r *flow.Routing, budget int) ([]flow.Chain, error) {
	if len(r.Chains) > budget {
		return r.Chains[:budget], nil
	}
	return r.Chains, nil
}

// fakeFinder pins the candidates System 2 scores.
type fakeFinder struct {
	cutPairsOut, cutEdgesOut, topFlow, srcEdges [][2]int
	seeds                                       []int
	aff                                         float64
}

// propose returns the pinned candidates of the fired triggers, at most 8
// per list as flow.Routing.Propose does.
func (f fakeFinder) propose(_ *graph.Graph, _ *score.Scores, _ *flow.Routing, t proposal.Triggers) proposal.Proposal {
	eight := func(ps [][2]int) [][2]int { return ps[:min(len(ps), 8)] }
	p := proposal.Proposal{Affinity: func(int, int) float64 { return f.aff }}
	if t.LowSaturation {
		p.Bridges, p.CutEdges = eight(f.cutPairsOut), eight(f.cutEdgesOut)
	}
	if t.LowConsistency {
		p.TopFlow = eight(f.topFlow)
	}
	if t.NoSupport {
		p.Seeds, p.SeedEdges = f.seeds, eight(f.srcEdges)
	}
	return p
}

// many returns n distinct pairs.
func many(n int) [][2]int {
	var ps [][2]int
	for i := 0; i < n; i++ {
		ps = append(ps, [2]int{i, i + 6})
	}
	return ps
}

// s2 is a System-2 index over the fixture with the classic prompts, a fake
// router whose first routing has saturation sigma, and pinned candidates.
func s2(t *testing.T, m llm.Model, fr *fakeRouter, sigma float64, fnd proposer, budget int) *Index {
	t.Helper()
	fr.first = &flow.Routing{Router: "test", Saturation: sigma}
	p, err := New(Config{Embedder: &fake.Embedder{Dim: 4}, Model: m, Router: fr, Selector: firstChains{}, Budget: budget, ClassicPrompts: true, System2: true})
	if err != nil {
		t.Fatal(err)
	}
	p.proposer = fnd
	ix, err := p.Open(context.Background(), fixture.Graph(t))
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func answer(t *testing.T, ix *Index, chains []flow.Chain) *Result {
	t.Helper()
	s := &score.Scores{H: fixture.Relevance(len(ix.g.Nodes)), R: fixture.Relevance(len(ix.g.Nodes))}
	r, err := ix.router.Route(context.Background(), s, ix.p.budget)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Answer(context.Background(), ix.Evidence(fixture.Question, s, r, chains))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGate(t *testing.T) {
	cases := []struct {
		c, sigma  float64
		supported int
		want      []string
	}{
		{1, 1, 2, nil},
		{0.65, 0.60, 1, nil},
		{0.64, 1, 2, []string{triggerConsistency}},
		{1, 0.59, 2, []string{triggerSaturation}},
		{1, 1, 0, []string{triggerNoSupport}},
		{0, 0, 0, []string{triggerSaturation, triggerConsistency, triggerNoSupport}},
	}
	for _, c := range cases {
		got, why := gate(c.c, c.sigma, c.supported)
		if strings.Join(got, ",") != strings.Join(c.want, ",") || why == "" {
			t.Errorf("gate(%v, %v, %d) = %v %q, want %v", c.c, c.sigma, c.supported, got, why, c.want)
		}
	}
}

// Each trigger alone leads to its own edits, one re-route and a re-read.
func TestSystem2Triggers(t *testing.T) {
	cases := []struct {
		name                       string
		sigma                      float64
		script                     func(*fixture.Script)
		trigger                    string
		bridges, reweighted, seeds int
	}{
		{"T1", 0.3, func(*fixture.Script) {}, triggerSaturation, 8, 8, 0},
		{"T2", 0.9, func(s *fixture.Script) {
			s.Judge = "YES"
			s.Worker = append(s.Worker, [2]string{"Dr Ilse Marrow", `{"status":"supported","answer":"212","evidence":"x"}`})
		}, triggerConsistency, 0, 3, 0},
		{"T3", 0.9, func(s *fixture.Script) { s.Worker = nil }, triggerNoSupport, 0, 2, 2},
	}
	fnd := fakeFinder{cutPairsOut: many(12), cutEdgesOut: many(12), topFlow: [][2]int{{1, 2}, {3, 4}, {0, 1}}, srcEdges: [][2]int{{1, 2}, {3, 4}}, seeds: []int{7, 8}, aff: 0.4}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fixture.DefaultScript()
			c.script(&s)
			m := s.Model()
			fr := &fakeRouter{next: &flow.Routing{Router: "re", Saturation: 0.95, Chains: []flow.Chain{{Nodes: []int{1}, Flow: 1}, {Nodes: []int{4}, Flow: 0.5}}}}
			res := answer(t, s2(t, m, fr, c.sigma, fnd, 4), fixture.Chains(4))
			tr := res.System2
			if tr == nil || len(tr.Triggers) != 1 || tr.Triggers[0] != c.trigger {
				t.Fatalf("System 2 %+v, want trigger %s", tr, c.trigger)
			}
			if fr.calls != 1 {
				t.Fatalf("reroutes = %d", fr.calls)
			}
			e := fr.edits[0]
			adds := 0
			for _, x := range e.Edges {
				if x.Add {
					adds++
					if x.Affinity < 0 || x.Affinity > 1 {
						t.Errorf("bridge affinity %v", x.Affinity)
					}
				} else if want := damped(0.4, 0.9); math.Abs(x.Affinity-want) > 1e-12 {
					t.Errorf("re-weight %v, want %v", x.Affinity, want)
				}
			}
			if adds != c.bridges || tr.Bridges != c.bridges || tr.Reweighted != c.reweighted {
				t.Errorf("%d bridges (trace %d), %d re-weighted; want %d, %d", adds, tr.Bridges, tr.Reweighted, c.bridges, c.reweighted)
			}
			if len(e.Sources) != c.seeds || tr.Seeds != c.seeds {
				t.Errorf("seeds %v", e.Sources)
			}
			if !tr.Ran || len(tr.Chains) != 2 || tr.Routing != fr.next {
				t.Errorf("System 2 %+v", tr)
			}
			for _, call := range m.Calls() {
				if (strings.Contains(fake.Prompt(call), fixture.MarkBridge) || strings.Contains(fake.Prompt(call), fixture.MarkEdge)) && call.Temperature != 0.2 {
					t.Errorf("scorer temperature %v", call.Temperature)
				}
			}
		})
	}
}

func TestSystem2BridgeAcceptance(t *testing.T) {
	s := fixture.DefaultScript()
	s.Bridge = "EXISTS: YES\nSCORE: 0.10" // not above 0.10
	fr := &fakeRouter{next: &flow.Routing{Saturation: 1, Chains: []flow.Chain{{Nodes: []int{1}, Flow: 1}}}}
	res := answer(t, s2(t, s.Model(), fr, 0.1, fakeFinder{cutPairsOut: [][2]int{{0, 3}}, aff: 0.4}, 2), fixture.Chains(2))
	if res.System2.Bridges != 0 || len(fr.edits[0].Edges) != 0 {
		t.Errorf("bridge with SCORE 0.10 accepted: %+v", fr.edits[0])
	}
}

func TestSystem2KeepsSystem1WhenNothingSupported(t *testing.T) {
	m := fixture.DefaultScript().Model()
	// System 1 reads the table (supported); System 2's routing only has
	// fillers, which are not reported.
	fr := &fakeRouter{next: &flow.Routing{Saturation: 1, Chains: []flow.Chain{{Nodes: []int{9}, Flow: 1}, {Nodes: []int{10}, Flow: 1}}}}
	res := answer(t, s2(t, m, fr, 0.1, fakeFinder{}, 3), fixture.Chains(3))
	tr := res.System2
	if !tr.Ran || !tr.KeptSystem1 || tr.System1 != nil {
		t.Errorf("System 2 %+v", tr)
	}
	if res.Text != "The North Mole had 248 nests in 2025." || res.Drafts[0].Answer != "248" {
		t.Errorf("System 1 answer lost: %q", res.Text)
	}
	reasoner := 0
	for _, c := range m.Calls() {
		if strings.Contains(fake.Prompt(c), fixture.MarkReasoner) {
			reasoner++
		}
	}
	if reasoner != 1 {
		t.Errorf("reasoner calls %d, want 1 (no synthesis without support)", reasoner)
	}
}

func TestSystem2AnswerReplacesSystem1(t *testing.T) {
	s := fixture.DefaultScript()
	s.Worker = [][2]string{{"Dr Ilse Marrow", `{"status":"supported","answer":"Dr Ilse Marrow","evidence":"The survey leader in 2025 was Dr Ilse Marrow"}`}}
	m := s.Model()
	m.Rules = append([]fake.Rule{{Contains: "Worker answer: Dr Ilse Marrow", Reply: "<output>Dr Ilse Marrow led the 2025 survey.</output>"}}, m.Rules...)
	fr := &fakeRouter{next: &flow.Routing{Saturation: 1, Chains: []flow.Chain{{Nodes: []int{4}, Flow: 1}, {Nodes: []int{1}, Flow: 0.5}}}}
	// System 1 reads fillers only: nothing supported, so T3 fires.
	res := answer(t, s2(t, m, fr, 0.9, fakeFinder{}, 2), []flow.Chain{{Nodes: []int{9}, Flow: 1}, {Nodes: []int{10}, Flow: 1}})
	tr := res.System2
	if !has(tr.Triggers, triggerNoSupport) || !tr.Ran || tr.KeptSystem1 {
		t.Fatalf("System 2 %+v", tr)
	}
	if res.Text != "Dr Ilse Marrow led the 2025 survey." || tr.System1 == nil || tr.System1.Trace.Supported != 0 {
		t.Errorf("answer %q, System 1 %+v", res.Text, tr.System1)
	}
	if len(res.Citations) == 0 || res.Citations[0].NodeID != "survey#4" {
		t.Errorf("citations %+v", res.Citations)
	}
}

func TestSystem2ReusesIdenticalChains(t *testing.T) {
	m := fixture.DefaultScript().Model()
	chains := fixture.Chains(3)
	fr := &fakeRouter{next: &flow.Routing{Saturation: 1, Chains: chains}}
	res := answer(t, s2(t, m, fr, 0.1, fakeFinder{}, 3), chains)
	workers := 0
	for _, c := range m.Calls() {
		if strings.Contains(fake.Prompt(c), fixture.MarkWorker) {
			workers++
		}
	}
	if res.Trace.Reused != 3 || workers != 3 {
		t.Errorf("reused %d, worker calls %d", res.Trace.Reused, workers)
	}
}

func TestSystem2WithoutRerouter(t *testing.T) {
	m := fixture.DefaultScript().Model()
	p, err := New(Config{Embedder: &fake.Embedder{Dim: 4}, Model: m, Router: routeOnly{&flow.Routing{Saturation: 0.1}}, System2: true})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(context.Background(), fixture.Graph(t))
	if err != nil {
		t.Fatal(err)
	}
	res := answer(t, ix, fixture.Chains(2))
	if tr := res.System2; len(tr.Triggers) == 0 || tr.Ran || !strings.Contains(tr.Skipped, "Rerouter") {
		t.Errorf("System 2 %+v", tr)
	}
}

func TestSystem2Off(t *testing.T) {
	m := fixture.DefaultScript().Model()
	fr := &fakeRouter{}
	ix := s2(t, m, fr, 0.1, fakeFinder{}, 4)
	ix.p.judge = nil // what New does when Config.System2 is false
	res := answer(t, ix, fixture.Chains(4))
	if res.System2 != nil || fr.calls != 0 {
		t.Errorf("System 2 ran while off: %+v", res.System2)
	}
	if got, want := len(m.Calls()), 4+2; got != want {
		t.Errorf("calls %d, want chains + 2 = %d", got, want)
	}
}

// Every trigger fires and System 2 routes 11 unseen chains: the call bound
// of one answer (48) cuts scorer calls.
func TestSystem2WorstCaseCallBudget(t *testing.T) {
	s := fixture.DefaultScript()
	s.Judge = "YES"
	s.Worker = append(s.Worker, [2]string{"Dr Ilse Marrow", `{"status":"supported","answer":"212","evidence":"x"}`})
	m := s.Model()
	// Every filler chain answers its own topic number: 11 chains give 9
	// distinct answers, so the judge hits its 10-pair cap.
	m.Rules = append([]fake.Rule{{Match: func(req *llm.Request) bool {
		p := fake.Prompt(req)
		return strings.Contains(p, fixture.MarkWorker) && strings.Contains(p, "Filler paragraph")
	}, Respond: fixture.Respond}}, m.Rules...)
	var fresh []flow.Chain
	for k := 0; k < 11; k++ {
		fresh = append(fresh, flow.Chain{Nodes: []int{6 + k, 7 + k}, Flow: 1})
	}
	fr := &fakeRouter{next: &flow.Routing{Router: "re", Saturation: 0.9, Chains: fresh}}
	fnd := fakeFinder{cutPairsOut: many(8), cutEdgesOut: many(8), topFlow: many(8), aff: 0.5}
	res := answer(t, s2(t, m, fr, 0.2, fnd, 11), fixture.Chains(11))
	tr := res.System2
	if !has(tr.Triggers, triggerSaturation) || !has(tr.Triggers, triggerConsistency) {
		t.Fatalf("triggers %v", tr.Triggers)
	}
	if tr.Pairs != 10 || tr.Contradictions != 10 || tr.Consistency != 0 {
		t.Errorf("consistency %v over %d pairs", tr.Consistency, tr.Pairs)
	}
	total := tr.Calls + res.Trace.Calls
	switch {
	case tr.System1 != nil:
		total += tr.System1.Trace.Calls
	case tr.Answer != nil:
		total += tr.Answer.Trace.Calls
	}
	if got := len(m.Calls()); got > maxCalls || got != total {
		t.Errorf("calls = %d (traces %d), want ≤ %d", got, total, maxCalls)
	}
	if !tr.Ran || fr.calls != 1 || tr.ScorerCut == 0 {
		t.Errorf("System 2 %+v, reroutes %d", tr, fr.calls)
	}
}

// TestSystem2DecodedEvidence: an Evidence decoded from JSON carries no
// routing to edit; the gate still runs on its summary's saturation and a
// fired gate says why the pass was skipped, without re-routing.
func TestSystem2DecodedEvidence(t *testing.T) {
	fr := &fakeRouter{next: &flow.Routing{Saturation: 1, Chains: []flow.Chain{{Nodes: []int{1}, Flow: 1}}}}
	ix := s2(t, fixture.DefaultScript().Model(), fr, 0.1, fakeFinder{cutPairsOut: [][2]int{{0, 3}}, aff: 0.4}, 2)
	s := &score.Scores{H: fixture.Relevance(len(ix.g.Nodes)), R: fixture.Relevance(len(ix.g.Nodes))}
	r, err := ix.router.Route(context.Background(), s, ix.p.budget)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ix.Evidence(fixture.Question, s, r, fixture.Chains(2)))
	if err != nil {
		t.Fatal(err)
	}
	var ev Evidence
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Answer(context.Background(), &ev)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.System2
	if tr == nil || tr.Saturation != 0.1 || !has(tr.Triggers, triggerSaturation) || tr.Ran || !strings.Contains(tr.Skipped, "no routing") {
		t.Fatalf("System 2 %+v", tr)
	}
	if fr.calls != 0 {
		t.Errorf("re-routed %d times without a routing", fr.calls)
	}
}
