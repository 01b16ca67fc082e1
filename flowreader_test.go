package flowreader_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
)

// build makes a pipeline, builds the test collection and opens it.
func build(t *testing.T, cfg flowreader.Config) (*flowreader.Pipeline, *flowreader.Index) {
	t.Helper()
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), docs())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	return p, ix
}

// saveLoad saves g to a temporary file and loads it back through p.
func saveLoad(t *testing.T, p *flowreader.Pipeline, g *graph.Graph) (string, *flowreader.Index) {
	t.Helper()
	path := t.TempDir() + "/g.graph"
	if err := graph.Save(path, g); err != nil {
		t.Fatal(err)
	}
	ix, err := p.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return path, ix
}

func TestBadInput(t *testing.T) {
	p, ix := build(t, flowreader.Config{})
	ctx := context.Background()
	if _, err := p.Open(ctx, nil); !errors.Is(err, flowreader.ErrNoGraph) {
		t.Fatalf("nil graph: %v", err)
	}
	if _, err := ix.Ask(ctx, "  \n", flowreader.Options{}); !errors.Is(err, flowreader.ErrQuestion) {
		t.Fatalf("empty question: %v", err)
	}
	empty, err := graph.New(nil, 100, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Open(ctx, empty); !errors.Is(err, flowreader.ErrNoGraph) {
		t.Fatalf("empty graph: %v", err)
	}
	// A question of only stop words is answered, not an error.
	if _, err := ix.Ask(ctx, "what is the of and", flowreader.Options{}); err != nil {
		t.Fatalf("stop words: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Ask(cctx, "storm", flowreader.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

func TestNotesNameEmbeddedDefaults(t *testing.T) {
	_, ix := build(t, flowreader.Config{})
	res, err := ix.Ask(context.Background(), "How many nests on the North Mole in 2025?", flowreader.Options{})
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
	m.Rules = append(m.Rules, fake.Rule{Contains: "<output>", Reply: "<thought>t</thought><output>31</output>"}) // the reasoner prompt names the tag
	m.Rules = append(m.Rules, fake.Rule{Contains: "type", Reply: `{"type":"value","length":"short"}`})
	m.Default = workerReply
	cfg := flowreader.Config{}
	cfg.Model = m
	_, ix := build(t, cfg)
	before := len(m.Calls())
	res, err := ix.Ask(context.Background(), "How many nests did the East Arm have in 2025?", flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace.Reader != "vlm" {
		t.Fatalf("reader %q", res.Trace.Reader)
	}
	if want, got := len(res.Evidence.Chains)+2, len(m.Calls())-before; got != want || res.Trace.Calls != want {
		t.Fatalf("calls: model saw %d, trace %d, want chains+2 = %d", got, res.Trace.Calls, want)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "reader") {
			t.Fatalf("a configured model must not be reported as the extractive default: %q", n)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for k, cfg := range []flowreader.Config{flowreader.Config{}, flowreader.PaperAspects(), flowreader.Classic()} {
		_, ix := build(t, cfg)
		q := "Which storm flooded the East Arm, and how strong were its gusts?"
		a, err := ix.Ask(context.Background(), q, flowreader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := ix.Ask(context.Background(), q, flowreader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Text != b.Text || len(a.Evidence.Chains) != len(b.Evidence.Chains) {
			t.Fatalf("preset %d: answers differ", k)
		}
		for i := range a.Evidence.Chains {
			if a.Evidence.Chains[i].Flow != b.Evidence.Chains[i].Flow || len(a.Evidence.Chains[i].Nodes) != len(b.Evidence.Chains[i].Nodes) {
				t.Fatalf("preset %d: chain %d differs", k, i)
			}
			for j := range a.Evidence.Chains[i].Nodes {
				if !reflect.DeepEqual(a.Evidence.Chains[i].Nodes[j], b.Evidence.Chains[i].Nodes[j]) {
					t.Fatalf("preset %d: chain %d differs", k, i)
				}
			}
		}
	}
}

// The zero Config and the Aspects preset give the same answers, routings
// and chains.
func TestZeroConfigIsAspects(t *testing.T) {
	_, a := build(t, flowreader.Config{})
	_, b := build(t, flowreader.Config{})
	q := "Which storm flooded the East Arm, and how strong were its gusts?"
	ra, err := a.Ask(context.Background(), q, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Ask(context.Background(), q, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ra.Text != rb.Text || ra.Routing.Router != rb.Routing.Router || ra.Routing.Cost != rb.Routing.Cost || len(ra.Evidence.Chains) != len(rb.Evidence.Chains) || len(ra.Evidence.Chains) == 0 {
		t.Fatalf("zero config: %q via %s (%d chains), Aspects: %q via %s (%d chains)", ra.Text, ra.Routing.Router, len(ra.Evidence.Chains), rb.Text, rb.Routing.Router, len(rb.Evidence.Chains))
	}
}

// New validates the whole configuration and names the field.
func TestNewValidates(t *testing.T) {
	bad := map[string]flowreader.Config{
		"Budget":      {Budget: -1},
		"Concurrency": {Concurrency: -2},
		"System2":     {System2: true, Reader: plainReader{}},
	}
	for field, cfg := range bad {
		_, err := flowreader.New(cfg)
		if !errors.Is(err, flowreader.ErrConfig) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
	// System 2 over the default extractive reader cannot run: New says so
	// in the notes instead of failing, so the Classic preset works offline.
	p, err := flowreader.New(flowreader.Classic())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Notes(), "\n"), "System 2 off") {
		t.Errorf("notes %q", p.Notes())
	}
}

// plainReader is a Reader without the Judge capability.
type plainReader struct{}

func (plainReader) Read(context.Context, *reader.Input) (*reader.Answer, error) {
	return &reader.Answer{}, nil
}

func TestLoadChecksDimension(t *testing.T) {
	p, ix := build(t, flowreader.Config{})
	path, ix2 := saveLoad(t, p, ix.Graph())
	if len(ix2.Graph().Nodes) != len(ix.Graph().Nodes) {
		t.Fatalf("loaded %d nodes, saved %d", len(ix2.Graph().Nodes), len(ix.Graph().Nodes))
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
	cfg := flowreader.Config{}
	cfg.Budget = 3
	_, ix := build(t, cfg)
	res, err := ix.Ask(context.Background(), "Which storm flooded the East Arm?", flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Routing.Demand > 3 {
		t.Fatalf("budget 3 routed a demand of %v", res.Routing.Demand)
	}
	if len(res.Evidence.Chains) > 3 {
		t.Fatalf("budget 3 read %d chains", len(res.Evidence.Chains))
	}
}

// A question that no node is relevant to routes nothing; Ask answers with an
// empty text that says why, for both readers, and spends no model call.
func TestNoEvidenceIsAnAnswer(t *testing.T) {
	m := &fake.Model{Default: workerReply}
	for _, cfg := range []flowreader.Config{flowreader.Config{}, func() flowreader.Config { c := flowreader.Config{}; c.Model = m; return c }()} {
		_, ix := build(t, cfg)
		before := len(m.Calls())
		res, err := ix.Ask(context.Background(), "?!?", flowreader.Options{})
		if err != nil {
			t.Fatalf("%v: %v", cfg.Model != nil, err)
		}
		if len(res.Evidence.Chains) != 0 {
			t.Skipf("the scorer found evidence for punctuation: %d chains", len(res.Evidence.Chains))
		}
		if res.Text != "" || !strings.Contains(res.Trace.Note, "no evidence") || len(m.Calls()) != before {
			t.Fatalf("answer %q, note %q, %d calls", res.Text, res.Trace.Note, len(m.Calls())-before)
		}
	}
}

// openingRouter records the graphs it is opened on and can fail.
type openingRouter struct {
	flow.Router
	opened []*graph.Graph
	fail   error
}

func (r *openingRouter) Open(ctx context.Context, g *graph.Graph) (flow.GraphRouter, error) {
	r.opened = append(r.opened, g)
	if r.fail != nil {
		return nil, r.fail
	}
	return r.Router.Open(ctx, g)
}

// TestOpenAndLoadOpenRouter checks that Open and Load hand the graph to the
// router once, and that its error fails them with the cause kept.
func TestOpenAndLoadOpenRouter(t *testing.T) {
	r := &openingRouter{Router: &flow.Aspects{}}
	cfg := flowreader.Config{}
	cfg.Router = r
	p, ix := build(t, cfg)
	if len(r.opened) != 1 || r.opened[0] != ix.Graph() {
		t.Fatalf("Open opened %d graphs, want the built one", len(r.opened))
	}
	path, ix2 := saveLoad(t, p, ix.Graph())
	if len(r.opened) != 2 || r.opened[1] != ix2.Graph() {
		t.Fatalf("Load opened %d graphs, want the loaded one second", len(r.opened))
	}
	for range 3 {
		if _, err := ix2.Ask(context.Background(), "What is the dataset size?", flowreader.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.opened) != 2 {
		t.Fatalf("asking opened the router again: %d opens", len(r.opened))
	}
	boom := errors.New("boom")
	r.fail = boom
	if _, err := p.Load(context.Background(), path); !errors.Is(err, boom) {
		t.Fatalf("Load with a failing Open: %v", err)
	}
}

// TestSystem2WithRealRouters runs the dual-process gate and a System-2 pass
// through the real scorers, routers (flow.Classic and PaperAspects
// Reroute), selectors and the VLM reader, with a fake model whose workers
// all disagree, so that the judge finds contradictions and T2 fires.
func TestSystem2WithRealRouters(t *testing.T) {
	paper := flowreader.PaperAspects()
	paper.System2 = true
	// The paper's aspects router: the default routes single-node chains on
	// this collection, which leave T2 no flow edge to re-score.
	for name, cfg := range map[string]flowreader.Config{"classic": flowreader.Classic(), "aspects-paper": paper} {
		t.Run(name, func(t *testing.T) {
			m := &fake.Model{}
			m.Rules = append(m.Rules, fake.Rule{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`})
			m.Rules = append(m.Rules, fake.Rule{Contains: "Do these answers CONTRADICT", Reply: "YES"})
			m.Rules = append(m.Rules, fake.Rule{Contains: "logical reasoning connection", Reply: "EXISTS: YES\nSCORE: 0.9"})
			m.Rules = append(m.Rules, fake.Rule{Contains: "Does reading Passage A then Passage B", Reply: "0.95"})
			m.Rules = append(m.Rules, fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<output>31</output>"})
			m.Rules = append(m.Rules, fake.Rule{Contains: "Read the evidence passages and images below", Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
				return &llm.Response{Text: fmt.Sprintf(`{"status":"supported","answer":"%d","evidence":"x"}`, len(fake.Prompt(req)))}, nil
			}})
			cfg.Model, cfg.Embedder = m, &fake.Embedder{Dim: 64}
			ix := quickstart(t, cfg)
			before := len(m.Calls())
			res, err := ix.Ask(context.Background(), "How many nests did the North Mole hold in 2025?", flowreader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s2 := res.System2
			if s2 == nil || len(s2.Triggers) == 0 {
				t.Fatalf("gate did not fire: %+v", s2)
			}
			if !s2.Ran || s2.Skipped != "" || s2.Routing == nil {
				t.Fatalf("System 2 did not run: %+v", s2)
			}
			edges := 0
			for _, c := range m.Calls()[before:] {
				if strings.Contains(fake.Prompt(c), "Does reading Passage A then Passage B") {
					edges++
				}
			}
			for _, tr := range s2.Triggers {
				if strings.HasPrefix(tr, "T2") && edges == 0 && s2.ScorerCut == 0 {
					t.Errorf("T2 fired but no edge was re-scored (flow.TopFlowEdges returned nothing)")
				}
			}
			if s2.Reweighted+s2.Bridges > 0 && len(s2.Edits.Edges) == 0 {
				t.Error("edits not recorded")
			}
			if got := len(m.Calls()) - before; got > 48 {
				t.Errorf("%d calls, want at most 48", got)
			}
		})
	}
}

// quickstart builds and opens the bundled quickstart collection.
func quickstart(t *testing.T, cfg flowreader.Config) *flowreader.Index {
	t.Helper()
	docs, err := ingest.Path("examples/quickstart/docs")
	if err != nil {
		t.Fatal(err)
	}
	cfg.ImageRoot = "examples/quickstart/docs"
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := p.Build(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
