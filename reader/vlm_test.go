package reader

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"go.uber.org/goleak"
)

func input(t testing.TB, n int, sigma float64) *Input {
	g := fixtureGraph(t)
	return &Input{Question: "How many nests did the North Mole hold in 2025?", Graph: g, Scores: fixtureScores(g),
		Routing: &flow.Routing{Router: "test", Saturation: sigma}, Chains: chainsN(n)}
}

func TestAspectsCallBudget(t *testing.T) {
	m := defaultScript().model()
	v := &VLM{Model: m}
	ans, err := v.Read(context.Background(), input(t, 16, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Calls()); got != 18 {
		t.Errorf("calls = %d, want 16 + 1 + 1 = 18", got)
	}
	tr := ans.Trace
	if tr.Calls != 18 || tr.CallsByKind[kindWorker] != 16 || tr.CallsByKind[kindQType] != 1 || tr.CallsByKind[kindReasoner] != 1 {
		t.Errorf("trace calls %d %v", tr.Calls, tr.CallsByKind)
	}
	if tr.Gate.Evaluated || tr.System2.Ran {
		t.Errorf("aspects default must not run the gate: %+v", tr.Gate)
	}
	if ans.Text != "The North Mole had 248 nests in 2025." {
		t.Errorf("answer %q", ans.Text)
	}
	if tr.Reader != "vlm" || tr.Preset != "aspects" || tr.ChainsRead != 16 || tr.Supported != 2 {
		t.Errorf("trace %+v", tr)
	}
	if tr.PromptTokens == 0 || tr.CompletionTokens == 0 {
		t.Error("tokens not counted")
	}
	if tr.QuestionType != "value" || tr.KeyNodes != 2 || tr.KeyNodeChars != 2000 {
		t.Errorf("question type %q, key nodes %d×%d", tr.QuestionType, tr.KeyNodes, tr.KeyNodeChars)
	}
	for _, st := range []string{StageWorkers, StageReasoner} {
		if _, ok := tr.Stages[st]; !ok {
			t.Errorf("no wall time for %s", st)
		}
	}
	if len(ans.Drafts) != 16 || ans.Drafts[0].Status != Supported || ans.Drafts[0].Answer != "248" {
		t.Errorf("drafts %+v", ans.Drafts[:1])
	}
	if len(ans.Citations) != 1 {
		t.Fatalf("citations %+v", ans.Citations)
	}
	c := ans.Citations[0]
	if c.Node != 1 || c.NodeID != "survey#1" || c.Doc != "harbour-survey.md" || c.Quote != "North Mole | 650 | 212 | 248" {
		t.Errorf("citation %+v", c)
	}
}

// classicS2 is a classic VLM whose gate fires on everything given.
func classicS2(m llm.Model, rr *fakeRerouter) *VLM {
	return &VLM{Model: m, Preset: Classic, Rerouter: rr, Editor: fakeEditor{
		cutPairs: [][2]int{{0, 3}, {0, 4}, {1, 4}, {2, 4}, {0, 5}, {1, 5}, {2, 5}, {3, 5}, {0, 6}},
		cutEdges: [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 9}},
		topFlow:  [][2]int{{1, 2}, {2, 3}, {3, 4}},
		seeds:    []int{7, 8},
		srcEdges: [][2]int{{7, 8}, {8, 9}},
		aff:      0.4,
	}}
}

func TestClassicWorstCaseCallBudget(t *testing.T) {
	// Every trigger fires: saturation low, contradicting answers... and
	// the T3 edits too (forced by a gate that sees no support in S1).
	s := defaultScript()
	s.judge = "YES"
	s.worker = append(s.worker,
		[2]string{"Dr Ilse Marrow", `{"status":"supported","answer":"212","evidence":"x"}`},
	)
	m := s.model()
	// Every filler chain answers its own topic number: 11 chains give 9
	// distinct answers, so the judge hits its 10-pair cap.
	m.Rules = append([]fake.Rule{{Match: func(req *llm.Request) bool {
		p := fake.Prompt(req)
		return strings.Contains(p, mWorker) && strings.Contains(p, "Filler paragraph")
	}, Respond: func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		p := fake.Prompt(req)
		i := strings.Index(p, "mentions topic ")
		return &llm.Response{Text: `{"status":"supported","answer":"topic ` + p[i+15:i+17] + `","evidence":"x"}`}, nil
	}}}, m.Rules...)
	var fresh []flow.Chain // System 2 routes 11 chains unseen by System 1
	for k := 0; k < 11; k++ {
		fresh = append(fresh, flow.Chain{Nodes: []int{6 + k, 7 + k}, Flow: 1})
	}
	rr := &fakeRerouter{next: &flow.Routing{Router: "re", Saturation: 0.9, Chains: fresh}}
	v := classicS2(m, rr)
	ans, err := v.Read(context.Background(), input(t, 11, 0.2))
	if err != nil {
		t.Fatal(err)
	}
	tr := ans.Trace
	if !tr.Gate.Has(LowSaturation) || !tr.Gate.Has(LowConsistency) {
		t.Fatalf("gate %+v", tr.Gate)
	}
	if got := len(m.Calls()); got > 48 || got != tr.Calls {
		t.Errorf("calls = %d (trace %d), want ≤ 48", got, tr.Calls)
	}
	if tr.Pairs != 10 || tr.Contradictions != 10 || tr.Consistency != 0 {
		t.Errorf("consistency %v over %d pairs", tr.Consistency, tr.Pairs)
	}
	if !tr.System2.Ran || rr.calls != 1 {
		t.Errorf("system 2 %+v, reroutes %d", tr.System2, rr.calls)
	}
	if tr.System2.ScorerCut == 0 {
		t.Errorf("the 48-call cap should have cut scorer calls: %+v", tr.System2)
	}
	t.Logf("classic worst case: %d calls %v, %d scorer calls cut", tr.Calls, tr.CallsByKind, tr.System2.ScorerCut)
}

func TestGateBranches(t *testing.T) {
	g := Gate{}
	cases := []struct {
		c, sigma  float64
		supported int
		want      []Trigger
	}{
		{1, 1, 2, nil},
		{0.65, 0.60, 1, nil},
		{0.64, 1, 2, []Trigger{LowConsistency}},
		{1, 0.59, 2, []Trigger{LowSaturation}},
		{1, 1, 0, []Trigger{NoSupport}},
		{0, 0, 0, []Trigger{LowSaturation, LowConsistency, NoSupport}},
	}
	for _, c := range cases {
		d := g.Decide(c.c, c.sigma, c.supported)
		if d.Fired != (len(c.want) > 0) || len(d.Triggers) != len(c.want) || !d.Evaluated || d.Reason == "" {
			t.Errorf("Decide(%v,%v,%d) = %+v, want %v", c.c, c.sigma, c.supported, d, c.want)
			continue
		}
		for i := range c.want {
			if d.Triggers[i] != c.want[i] {
				t.Errorf("Decide(%v,%v,%d) = %v, want %v", c.c, c.sigma, c.supported, d.Triggers, c.want)
			}
		}
	}
	if d := (Gate{Tau: 0.9, Xi: 0.1}).Decide(0.8, 0.2, 1); !d.Has(LowConsistency) || d.Has(LowSaturation) {
		t.Errorf("custom thresholds: %+v", d)
	}
}

// TestSystem2Triggers runs a classic Read for each trigger alone and checks
// the edits sent to the Rerouter.
func TestSystem2Triggers(t *testing.T) {
	type want struct {
		trigger        Trigger
		bridges, seeds int
		reweighted     int
	}
	cases := []struct {
		name   string
		sigma  float64
		script func(*script)
		want   want
	}{
		{"T1", 0.3, func(s *script) {}, want{LowSaturation, 8, 0, 0}},
		{"T2", 0.9, func(s *script) {
			s.judge = "YES"
			s.worker = append(s.worker, [2]string{"Dr Ilse Marrow", `{"status":"supported","answer":"212","evidence":"x"}`})
		}, want{LowConsistency, 0, 0, 3}},
		{"T3", 0.9, func(s *script) { s.worker = nil }, want{NoSupport, 0, 2, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := defaultScript()
			c.script(&s)
			m := s.model()
			rr := &fakeRerouter{next: &flow.Routing{Router: "re", Saturation: 0.95, Chains: []flow.Chain{{Nodes: []int{1}, Flow: 1}, {Nodes: []int{4}, Flow: 0.5}}}}
			v := classicS2(m, rr)
			ans, err := v.Read(context.Background(), input(t, 4, c.sigma))
			if err != nil {
				t.Fatal(err)
			}
			tr := ans.Trace
			if len(tr.Gate.Triggers) != 1 || tr.Gate.Triggers[0] != c.want.trigger {
				t.Fatalf("triggers %v, want %v", tr.Gate.Triggers, c.want.trigger)
			}
			if rr.calls != 1 {
				t.Fatalf("reroutes = %d", rr.calls)
			}
			e := rr.edits[0]
			adds := 0
			for _, x := range e.Edges {
				if x.Add {
					adds++
					// Damped from max(cos,0) toward 0.8, moving at most 0.3.
					if x.Affinity < 0 || x.Affinity > 1 {
						t.Errorf("bridge affinity %v", x.Affinity)
					}
				} else if math.Abs(x.Affinity-damped(0.4, 0.9, 0.6, 0.3)) > 1e-12 {
					t.Errorf("re-weight %v, want %v", x.Affinity, damped(0.4, 0.9, 0.6, 0.3))
				}
			}
			if c.want.trigger == LowSaturation {
				// 8 bridges (cap) and then 8 cut edges (cap).
				if adds != 8 || tr.System2.Reweighted != 8 {
					t.Errorf("T1: %d bridges, %d re-weighted", adds, tr.System2.Reweighted)
				}
			} else if adds != c.want.bridges || tr.System2.Reweighted != c.want.reweighted {
				t.Errorf("%d bridges, %d re-weighted; want %d, %d", adds, tr.System2.Reweighted, c.want.bridges, c.want.reweighted)
			}
			if len(e.Sources) != c.want.seeds || tr.System2.Seeds != c.want.seeds {
				t.Errorf("seeds %v", e.Sources)
			}
			if !tr.System2.Ran || tr.System2.ChainsRead != 2 {
				t.Errorf("system 2 trace %+v", tr.System2)
			}
			for _, x := range []string{kindBridge, kindEdge} {
				for _, call := range m.Calls() {
					if (x == kindBridge && strings.Contains(fake.Prompt(call), mBridge)) || (x == kindEdge && strings.Contains(fake.Prompt(call), mEdge)) {
						if call.Temperature != 0.2 {
							t.Errorf("%s temperature %v", x, call.Temperature)
						}
					}
				}
			}
		})
	}
}

func TestSystem2BridgeAcceptance(t *testing.T) {
	s := defaultScript()
	s.bridge = "EXISTS: YES\nSCORE: 0.10" // not above 0.10
	rr := &fakeRerouter{next: &flow.Routing{Saturation: 1, Chains: []flow.Chain{{Nodes: []int{1}, Flow: 1}}}}
	v := classicS2(s.model(), rr)
	v.Editor = fakeEditor{cutPairs: [][2]int{{0, 3}}, aff: 0.4}
	ans, err := v.Read(context.Background(), input(t, 2, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Trace.System2.Bridges != 0 || len(rr.edits[0].Edges) != 0 {
		t.Errorf("bridge with SCORE 0.10 accepted: %+v", rr.edits[0])
	}
}

func TestSystem2KeepsSystem1WhenNothingSupported(t *testing.T) {
	s := defaultScript()
	// System 1 reads the table (supported); System 2's routing only has
	// fillers, which are not reported.
	rr := &fakeRerouter{next: &flow.Routing{Saturation: 1, Chains: []flow.Chain{{Nodes: []int{9}, Flow: 1}, {Nodes: []int{10}, Flow: 1}}}}
	m := s.model()
	v := classicS2(m, rr)
	ans, err := v.Read(context.Background(), input(t, 3, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	tr := ans.Trace.System2
	if !tr.Ran || !tr.KeptSystem1 || tr.Supported != 0 {
		t.Errorf("trace %+v", tr)
	}
	if ans.Text != "The North Mole had 248 nests in 2025." || ans.Drafts[0].Answer != "248" {
		t.Errorf("System 1 answer lost: %q", ans.Text)
	}
	if n := ans.Trace.CallsByKind[kindReasoner]; n != 1 {
		t.Errorf("reasoner calls %d, want 1 (no synthesis without support)", n)
	}
}

func TestSystem2AnswerReplacesSystem1(t *testing.T) {
	s := defaultScript()
	s.worker = [][2]string{{"Dr Ilse Marrow", `{"status":"supported","answer":"Dr Ilse Marrow","evidence":"The survey leader in 2025 was Dr Ilse Marrow"}`}}
	m := s.model()
	m.Rules = append([]fake.Rule{{Contains: "Worker answer: Dr Ilse Marrow", Reply: "<output>Dr Ilse Marrow led the 2025 survey.</output>"}}, m.Rules...)
	rr := &fakeRerouter{next: &flow.Routing{Saturation: 1, Chains: []flow.Chain{{Nodes: []int{4}, Flow: 1}, {Nodes: []int{1}, Flow: 0.5}}}}
	v := classicS2(m, rr)
	in := input(t, 2, 0.9)
	in.Chains = []flow.Chain{{Nodes: []int{9}, Flow: 1}, {Nodes: []int{10}, Flow: 1}} // S1: nothing supported → T3
	ans, err := v.Read(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Trace.Gate.Has(NoSupport) || !ans.Trace.System2.Ran {
		t.Fatalf("gate %+v", ans.Trace.Gate)
	}
	if ans.Text != "Dr Ilse Marrow led the 2025 survey." {
		t.Errorf("answer %q", ans.Text)
	}
	if len(ans.Citations) == 0 || ans.Citations[0].NodeID != "survey#4" {
		t.Errorf("citations %+v", ans.Citations)
	}
}

func TestSystem2ReusesIdenticalChains(t *testing.T) {
	s := defaultScript()
	m := s.model()
	in := input(t, 3, 0.1)
	rr := &fakeRerouter{next: &flow.Routing{Saturation: 1, Chains: in.Chains}}
	v := classicS2(m, rr)
	v.Editor = fakeEditor{}
	ans, err := v.Read(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Trace.System2.Reused != 3 || ans.Trace.CallsByKind[kindWorker] != 3 {
		t.Errorf("reused %d, worker calls %d", ans.Trace.System2.Reused, ans.Trace.CallsByKind[kindWorker])
	}
}

func TestSystem2WithoutRerouter(t *testing.T) {
	m := defaultScript().model()
	v := &VLM{Model: m, Preset: Classic}
	ans, err := v.Read(context.Background(), input(t, 2, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Trace.Gate.Fired || ans.Trace.System2.Ran || ans.Trace.System2.Skipped == "" {
		t.Errorf("trace %+v", ans.Trace.System2)
	}
}

func TestSystem2Switch(t *testing.T) {
	for _, c := range []struct {
		v    VLM
		want bool
	}{
		{VLM{}, false}, {VLM{Preset: Classic}, true}, {VLM{System2: On}, true}, {VLM{Preset: Classic, System2: Off}, false},
	} {
		if got := c.v.system2On(); got != c.want {
			t.Errorf("%v/%v: %v", c.v.Preset, c.v.System2, got)
		}
	}
}

func TestWorkerFailureDropsChain(t *testing.T) {
	s := defaultScript()
	m := s.model()
	boom := errors.New("boom")
	m.Rules = append([]fake.Rule{{Match: func(req *llm.Request) bool {
		p := fake.Prompt(req)
		return strings.Contains(p, mWorker) && strings.Contains(p, "Dr Ilse Marrow")
	}, Err: boom}}, m.Rules...)
	ans, err := (&VLM{Model: m}).Read(context.Background(), input(t, 4, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Trace.Dropped) != 1 || ans.Trace.Dropped[0].Chain != 1 || !strings.Contains(ans.Trace.Dropped[0].Reason, "boom") {
		t.Errorf("dropped %+v", ans.Trace.Dropped)
	}
	if ans.Drafts[1].Status != Failed {
		t.Errorf("draft %+v", ans.Drafts[1])
	}
}

func TestAllWorkersFail(t *testing.T) {
	m := &fake.Model{}
	m.On(mQType, `{"type":"value","length":"short"}`)
	m.Rules = append(m.Rules, fake.Rule{Contains: mWorker, Err: errors.New("down")})
	_, err := (&VLM{Model: m}).Read(context.Background(), input(t, 5, 1))
	if !errors.Is(err, ErrAllWorkersFailed) {
		t.Fatalf("err = %v", err)
	}
}

func TestReasonerFailure(t *testing.T) {
	s := defaultScript()
	m := s.model()
	m.Rules = append([]fake.Rule{{Contains: mReasoner, Err: errors.New("reasoner down")}}, m.Rules...)
	_, err := (&VLM{Model: m}).Read(context.Background(), input(t, 3, 1))
	if !errors.Is(err, ErrReasoner) {
		t.Fatalf("err = %v", err)
	}
}

func TestQuestionTypeFailureUsesDefaults(t *testing.T) {
	s := defaultScript()
	m := s.model()
	m.Rules = append([]fake.Rule{{Contains: mQType, Err: errors.New("qtype down")}}, m.Rules...)
	ans, err := (&VLM{Model: m}).Read(context.Background(), input(t, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Trace.QuestionType != "unknown" || ans.Trace.KeyNodes != 4 || ans.Trace.QuestionTypeErr == "" {
		t.Errorf("trace %q %d %q", ans.Trace.QuestionType, ans.Trace.KeyNodes, ans.Trace.QuestionTypeErr)
	}
}

func TestBadInput(t *testing.T) {
	g := fixtureGraph(t)
	v := &VLM{Model: &fake.Model{}}
	for _, in := range []*Input{nil, {Graph: g}, {Graph: g, Chains: []flow.Chain{{Nodes: []int{999}}}}} {
		if _, err := v.Read(context.Background(), in); !errors.Is(err, ErrInput) {
			t.Errorf("err = %v", err)
		}
	}
	if _, err := (&VLM{}).Read(context.Background(), input(t, 1, 1)); !errors.Is(err, ErrInput) {
		t.Errorf("no model: %v", err)
	}
}

// TestConcurrentRound: 16 workers that each take L finish in about one L,
// and the whole Read (workers ∥ question type, then reasoner) in about 2L.
func TestConcurrentRound(t *testing.T) {
	const L = 40 * time.Millisecond
	m := defaultScript().model()
	m.Latency = L
	start := time.Now()
	ans, err := (&VLM{Model: m}).Read(context.Background(), input(t, 16, 1))
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	ratio := float64(el) / float64(L)
	t.Logf("16 chains, L = %v: Read took %v = %.2f L (sequential would be 18 L)", L, el, ratio)
	if ratio >= 6 {
		t.Errorf("Read took %.1f L, want < 6 L", ratio)
	}
	if ans.Trace.Stages[StageWorkers] >= 4*L {
		t.Errorf("workers stage %v", ans.Trace.Stages[StageWorkers])
	}
}

func TestConcurrencyLimit(t *testing.T) {
	var in, peak atomic.Int32
	base := defaultScript().model()
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		n := in.Add(1)
		defer in.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		return base.Generate(ctx, req)
	})
	if _, err := (&VLM{Model: m, Concurrency: 3}).Read(context.Background(), input(t, 12, 1)); err != nil {
		t.Fatal(err)
	}
	// 3 workers plus the question-type call, which runs beside them.
	if p := peak.Load(); p > 4 {
		t.Errorf("peak in flight %d, limit 3 (+1 question type)", p)
	}
}

func TestCancellationStopsCalls(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var started atomic.Int32
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		started.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := (&VLM{Model: m}).Read(ctx, input(t, 16, 1))
		done <- err
	}()
	for started.Load() < 17 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return after cancellation")
	}
}

func TestImagesOnlyForImageModels(t *testing.T) {
	calls := 0
	load := func(ref graph.ImageRef) ([]byte, error) { calls++; return []byte("png"), nil }
	for _, images := range []bool{false, true} {
		m := defaultScript().model()
		m.Images = images
		v := &VLM{Model: m, Images: load}
		ans, err := v.Read(context.Background(), input(t, 1, 1))
		if err != nil {
			t.Fatal(err)
		}
		sent := 0
		for _, c := range m.Calls() {
			for _, p := range c.Messages[0].Parts {
				if p.Image != nil {
					sent++
				}
			}
		}
		want := map[bool]int{false: 0, true: 1}[images]
		if sent != want || ans.Drafts[0].Images != want {
			t.Errorf("images=%v: sent %d", images, sent)
		}
	}
}

func TestSystem2WithoutScores(t *testing.T) {
	m := defaultScript().model()
	rr := &fakeRerouter{next: &flow.Routing{Saturation: 1, Chains: chainsN(2)}}
	in := input(t, 2, 0.1)
	in.Scores = nil
	ans, err := classicS2(m, rr).Read(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Trace.System2.Ran || rr.calls != 0 || !strings.Contains(ans.Trace.System2.Skipped, "scores") {
		t.Errorf("trace %+v", ans.Trace.System2)
	}
}

func TestSystem2CitedBoost(t *testing.T) {
	for _, boost := range []float64{0, 0.3} {
		m := defaultScript().model()
		rr := &fakeRerouter{next: &flow.Routing{Saturation: 1, Chains: chainsN(2)}}
		v := classicS2(m, rr)
		v.Pass.CitedBoost = boost
		in := input(t, 3, 0.1)
		if _, err := v.Read(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		h := rr.seen[0].H
		// Node 1 (the table) is cited by the supported System-1 drafts.
		want := in.Scores.H[1]
		if boost > 0 {
			want = math.Min(1, want+boost)
		}
		if h[1] != want || h[4] != in.Scores.H[4] {
			t.Errorf("boost %v: h[1] = %v, want %v; h[4] %v", boost, h[1], want, h[4])
		}
		if in.Scores.H[1] != 0.5 {
			t.Error("input scores modified")
		}
	}
}
