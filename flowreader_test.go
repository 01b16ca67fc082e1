package flowreader_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
)

func build(t *testing.T, cfg flowreader.Config) (*flowreader.Pipeline, *graph.Graph) {
	t.Helper()
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), docs())
	if err != nil {
		t.Fatal(err)
	}
	return p, g
}

// saveLoad saves g to a temporary file and loads it back through p.
func saveLoad(t *testing.T, p *flowreader.Pipeline, g *graph.Graph) (string, *graph.Graph) {
	t.Helper()
	path := t.TempDir() + "/g.graph"
	if err := graph.Save(path, g); err != nil {
		t.Fatal(err)
	}
	g2, err := p.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return path, g2
}

func TestBadInput(t *testing.T) {
	p, g := build(t, flowreader.Aspects())
	ctx := context.Background()
	if _, err := p.Ask(ctx, nil, "anything"); !errors.Is(err, flowreader.ErrNoGraph) {
		t.Fatalf("nil graph: %v", err)
	}
	if _, err := p.Ask(ctx, g, "  \n"); !errors.Is(err, flowreader.ErrQuestion) {
		t.Fatalf("empty question: %v", err)
	}
	empty, err := graph.New(nil, 100, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Ask(ctx, empty, "anything"); !errors.Is(err, flowreader.ErrNoGraph) {
		t.Fatalf("empty graph: %v", err)
	}
	// A question of only stop words is answered, not an error.
	if _, err := p.Ask(ctx, g, "what is the of and"); err != nil {
		t.Fatalf("stop words: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Ask(cctx, g, "storm"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

func TestNotesNameEmbeddedDefaults(t *testing.T) {
	p, g := build(t, flowreader.Aspects())
	res, err := p.Ask(context.Background(), g, "How many nests on the North Mole in 2025?")
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(res.Notes, "\n")
	if !strings.Contains(joined, "embedder") || !strings.Contains(joined, "extractive") {
		t.Fatalf("notes do not name the defaults: %q", joined)
	}
	if res.Trace.Reader != "extractive" {
		t.Fatalf("reader %q", res.Trace.Reader)
	}
	for _, st := range []string{"score", "route", "select", "answer"} {
		if _, ok := res.Stages[st]; !ok {
			t.Fatalf("stage %s not timed", st)
		}
	}
}

const workerReply = `{"status": "supported", "answer": "31 nests", "evidence": "East Arm | 97 | 31"}`

// With a model, Ask reads every selected chain with one worker call, plus the
// question-type call and the reasoner: chains + 2 calls (aspects preset).
func TestAskWithModelCallBudget(t *testing.T) {
	m := &fake.Model{}
	m.On("<output>", "<thought>t</thought><output>31</output>") // the reasoner prompt names the tag
	m.On("type", `{"type":"value","length":"short"}`)
	m.Default = workerReply
	cfg := flowreader.Aspects()
	cfg.Model = m
	p, g := build(t, cfg)
	before := len(m.Calls())
	res, err := p.Ask(context.Background(), g, "How many nests did the East Arm have in 2025?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace.Reader != "vlm" {
		t.Fatalf("reader %q", res.Trace.Reader)
	}
	if want, got := len(res.Chains)+2, len(m.Calls())-before; got != want || res.Trace.Calls != want {
		t.Fatalf("calls: model saw %d, trace %d, want chains+2 = %d", got, res.Trace.Calls, want)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "reader") {
			t.Fatalf("a configured model must not be reported as the extractive default: %q", n)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, cfg := range []flowreader.Config{flowreader.Aspects(), flowreader.AspectsPaper(), flowreader.Classic()} {
		p, g := build(t, cfg)
		q := "Which storm flooded the East Arm, and how strong were its gusts?"
		a, err := p.Ask(context.Background(), g, q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Ask(context.Background(), g, q)
		if err != nil {
			t.Fatal(err)
		}
		if a.Text != b.Text || len(a.Chains) != len(b.Chains) {
			t.Fatalf("%s: answers differ", cfg.Preset)
		}
		for i := range a.Chains {
			if a.Chains[i].Flow != b.Chains[i].Flow || len(a.Chains[i].Nodes) != len(b.Chains[i].Nodes) {
				t.Fatalf("%s: chain %d differs", cfg.Preset, i)
			}
			for j := range a.Chains[i].Nodes {
				if a.Chains[i].Nodes[j] != b.Chains[i].Nodes[j] {
					t.Fatalf("%s: chain %d differs", cfg.Preset, i)
				}
			}
		}
	}
}

func TestZeroConfigIsAspects(t *testing.T) {
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Config().Preset != "aspects" || p.Config().Budget != 16 {
		t.Fatalf("zero config gave %+v", p.Config().Preset)
	}
}

func TestLoadChecksDimension(t *testing.T) {
	p, g := build(t, flowreader.Aspects())
	path, g2 := saveLoad(t, p, g)
	if g2.Len() != g.Len() {
		t.Fatalf("loaded %d nodes, saved %d", g2.Len(), g.Len())
	}
	other, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{Dim: 32}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Load(context.Background(), path); !errors.Is(err, graph.ErrDimension) {
		t.Fatalf("a 100-d graph loaded for a 32-d embedder: %v", err)
	}
}

func TestBudgetSetsAspectsDemand(t *testing.T) {
	cfg := flowreader.Aspects()
	cfg.Budget = 3
	p, g := build(t, cfg)
	res, err := p.Ask(context.Background(), g, "Which storm flooded the East Arm?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Routing.Demand > 3 {
		t.Fatalf("budget 3 routed a demand of %v", res.Routing.Demand)
	}
	if len(res.Chains) > 3 {
		t.Fatalf("budget 3 read %d chains", len(res.Chains))
	}
	// The preset's own router is not modified.
	if a := flowreader.Aspects().Router.(*flow.Aspects); a.FMax != 16 {
		t.Fatalf("preset router changed: FMax %v", a.FMax)
	}
}

// A question that no node is relevant to routes nothing; Ask answers with an
// empty text that says why, for both readers, and spends no model call.
func TestNoEvidenceIsAnAnswer(t *testing.T) {
	m := &fake.Model{Default: workerReply}
	for _, cfg := range []flowreader.Config{flowreader.Aspects(), func() flowreader.Config { c := flowreader.Aspects(); c.Model = m; return c }()} {
		p, g := build(t, cfg)
		before := len(m.Calls())
		res, err := p.Ask(context.Background(), g, "?!?")
		if err != nil {
			t.Fatalf("%v: %v", cfg.Model != nil, err)
		}
		if len(res.Chains) != 0 {
			t.Skipf("the scorer found evidence for punctuation: %d chains", len(res.Chains))
		}
		if res.Text != "" || !strings.Contains(res.Trace.Note, "no evidence") || len(m.Calls()) != before {
			t.Fatalf("answer %q, note %q, %d calls", res.Text, res.Trace.Note, len(m.Calls())-before)
		}
	}
}

// preparingRouter records the graphs it is prepared for and can fail.
type preparingRouter struct {
	flow.Router
	prepared []*graph.Graph
	fail     error
}

func (r *preparingRouter) Prepare(ctx context.Context, g *graph.Graph) error {
	r.prepared = append(r.prepared, g)
	return r.fail
}

// TestBuildAndLoadPrepareRouter checks that Build and Load hand the graph to
// a flow.Preparer router, and that its error fails them with the cause kept.
func TestBuildAndLoadPrepareRouter(t *testing.T) {
	r := &preparingRouter{Router: flow.DefaultAspects()}
	cfg := flowreader.Aspects()
	cfg.Router = r
	p, g := build(t, cfg)
	if len(r.prepared) != 1 || r.prepared[0] != g {
		t.Fatalf("Build prepared %d graphs, want the built one", len(r.prepared))
	}
	path, g2 := saveLoad(t, p, g)
	if len(r.prepared) != 2 || r.prepared[1] != g2 {
		t.Fatalf("Load prepared %d graphs, want the loaded one second", len(r.prepared))
	}
	if _, err := p.Ask(context.Background(), g2, "What is the dataset size?"); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	r.fail = boom
	if _, err := p.Load(context.Background(), path); !errors.Is(err, boom) {
		t.Fatalf("Load with a failing Prepare: %v", err)
	}
}
