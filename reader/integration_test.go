package reader

import (
	"context"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/score"
	"github.com/flowreader/flowreader/selector"
)

// embeddedGraph is the quickstart collection with fake embeddings and
// reading-order plus same-document edges, enough for the real routers.
func embeddedGraph(t *testing.T) *graph.Graph {
	t.Helper()
	base := quickstartGraph(t)
	ns := base.Nodes
	texts := make([]string, len(ns))
	for i := range ns {
		texts[i] = nodeText(&ns[i])
		ns[i].Summary = texts[i]
	}
	e := &fake.Embedder{Dim: 64}
	vs, err := e.Embed(context.Background(), texts, llm.Document)
	if err != nil {
		t.Fatal(err)
	}
	var emb []float32
	for _, v := range vs {
		emb = append(emb, v...)
	}
	var es []graph.Edge
	for i := range ns {
		for j := i + 1; j < len(ns) && j <= i+3; j++ {
			if ns[i].Doc == ns[j].Doc {
				es = append(es, graph.Edge{U: int32(i), V: int32(j), Kind: graph.Order | graph.KNN})
			}
		}
	}
	g, err := graph.New(ns, 64, emb, es)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestClassicPipelineSystem2 runs the real classic scorer, router and
// replicator selector, and a System-2 pass through FlowEditor and
// flow.Classic.Reroute, with a fake model whose workers disagree.
func TestClassicPipelineSystem2(t *testing.T) {
	pipelineSystem2(t, score.ClassicConfig(), flow.DefaultClassic(), selector.Replicator{}, Classic, 11)
}

// TestAspectsPipelineSystem2 switches System 2 on for the aspects preset
// (available, off by default) through flow.Aspects.Reroute.
func TestAspectsPipelineSystem2(t *testing.T) {
	// The paper's router: the default routes single-node chains here (no node
	// credit), which leave T2 no flow edge to re-score.
	pipelineSystem2(t, score.AspectsConfig(), flow.PaperAspects(), selector.Annealed{}, Aspects, 16)
}

func pipelineSystem2(t *testing.T, cfg score.Config, router flow.Rerouter, sel Selector, preset Preset, budget int) {
	g := embeddedGraph(t)
	q := "How many nests did the North Mole hold in 2025?"
	qv, err := (&fake.Embedder{Dim: 64}).Embed(context.Background(), []string{q}, llm.Query)
	if err != nil {
		t.Fatal(err)
	}
	s, err := score.NewIndex(g).Score(cfg, score.Query{Text: q, Embedding: qv[0]})
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.Route(context.Background(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	chains := sel.Select(r, budget)
	if len(chains) == 0 {
		t.Fatal("no chains")
	}
	// Every chain answers with its first node's index: distinct answers
	// that the judge calls contradictory, so T2 fires.
	m := &fake.Model{}
	m.On(mQType, `{"type":"value","length":"short"}`)
	m.On(mJudge, "YES")
	m.On(mBridge, "EXISTS: YES\nSCORE: 0.9")
	m.On(mEdge, "0.95")
	m.On(mReasoner, "<output>248</output>")
	m.Rules = append(m.Rules, fake.Rule{Contains: mWorker, Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		p := fake.Prompt(req)
		return &llm.Response{Text: `{"status":"supported","answer":"` + itoa(len(p)) + `","evidence":"x"}`}, nil
	}})
	v := &VLM{Model: m, Preset: preset, System2: On, Rerouter: router, Selector: sel}
	ans, err := v.Read(context.Background(), &Input{Question: q, Graph: g, Scores: s, Routing: r, Chains: chains})
	if err != nil {
		t.Fatal(err)
	}
	tr := ans.Trace
	t.Logf("σ=%.3f c=%.3f gate=%q; system 2: %+v; calls %d %v", tr.Saturation, tr.Consistency, tr.Gate.Reason, tr.System2, tr.Calls, tr.CallsByKind)
	if !tr.Gate.Fired {
		t.Fatalf("gate did not fire: %+v", tr.Gate)
	}
	if !tr.System2.Ran || tr.System2.Skipped != "" {
		t.Fatalf("System 2 did not run: %+v", tr.System2)
	}
	if tr.Gate.Has(LowConsistency) && tr.CallsByKind[kindEdge] == 0 && tr.System2.ScorerCut == 0 {
		t.Errorf("T2 fired but no edge was re-scored (flow.TopFlowEdges returned nothing)")
	}
	if tr.System2.Reweighted+tr.System2.Bridges > 0 && len(tr.System2.Edits.Edges) == 0 {
		t.Error("edits not recorded")
	}
	if tr.Calls > 48 {
		t.Errorf("%d calls", tr.Calls)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
