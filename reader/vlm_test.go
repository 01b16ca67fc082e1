package reader

import (
	"context"
	"errors"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"strings"
	"sync"
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
	return &Input{Question: "How many nests did the North Mole hold in 2025?", Graph: g, Relevance: fixtureScores(g).H, Chains: chainsN(n)}
}

func TestAspectsCallBudget(t *testing.T) {
	m := defaultScript().Model()
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
	if ans.Text != "The North Mole had 248 nests in 2025." {
		t.Errorf("answer %q", ans.Text)
	}
	if tr.Reader != "vlm" || tr.Prompts != "aspects" || tr.ChainsRead != 16 || tr.Supported != 2 {
		t.Errorf("trace %+v", tr)
	}
	if tr.PromptTokens == 0 || tr.CompletionTokens == 0 {
		t.Error("tokens not counted")
	}
	if tr.QuestionType != "value" || tr.KeyNodes != 2 || tr.KeyNodeChars != 2000 {
		t.Errorf("question type %q, key nodes %d×%d", tr.QuestionType, tr.KeyNodes, tr.KeyNodeChars)
	}
	for _, st := range []string{"workers", "question_type", "reasoner"} {
		if _, ok := tr.Stages[st]; !ok {
			t.Errorf("no wall time for %s", st)
		}
	}
	if len(ans.Drafts) != 16 || ans.Drafts[0].Status != StatusSupported || ans.Drafts[0].Answer != "248" {
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

func TestWorkerFailureDropsChain(t *testing.T) {
	s := defaultScript()
	m := s.Model()
	boom := errors.New("boom")
	m.Rules = append([]fake.Rule{{Match: func(req *llm.Request) bool {
		p := fake.Prompt(req)
		return strings.Contains(p, mWorker) && strings.Contains(p, "Dr Ilse Marrow")
	}, Err: boom}}, m.Rules...)
	ans, err := (&VLM{Model: m}).Read(context.Background(), input(t, 4, 1))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Trace.Dropped != 1 {
		t.Errorf("dropped %d, want 1", ans.Trace.Dropped)
	}
	if ans.Drafts[1].Status != StatusFailed || !strings.Contains(ans.Drafts[1].Err, "boom") {
		t.Errorf("draft %+v", ans.Drafts[1])
	}
}

func TestAllWorkersFail(t *testing.T) {
	m := &fake.Model{}
	m.Rules = append(m.Rules, fake.Rule{Contains: mQType, Reply: `{"type":"value","length":"short"}`})
	m.Rules = append(m.Rules, fake.Rule{Contains: mWorker, Err: errors.New("down")})
	_, err := (&VLM{Model: m}).Read(context.Background(), input(t, 5, 1))
	if !errors.Is(err, ErrAllWorkersFailed) {
		t.Fatalf("err = %v", err)
	}
}

func TestReasonerFailure(t *testing.T) {
	s := defaultScript()
	m := s.Model()
	m.Rules = append([]fake.Rule{{Contains: mReasoner, Err: errors.New("reasoner down")}}, m.Rules...)
	_, err := (&VLM{Model: m}).Read(context.Background(), input(t, 3, 1))
	if !errors.Is(err, ErrReasoner) {
		t.Fatalf("err = %v", err)
	}
}

func TestQuestionTypeFailureUsesDefaults(t *testing.T) {
	s := defaultScript()
	m := s.Model()
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
	m := &fake.Model{}
	v := &VLM{Model: m}
	for _, in := range []*Input{nil, {Graph: g, Chains: []flow.Chain{{Nodes: []int{999}}}}, {Graph: g, Chains: chainsN(1), Relevance: []float64{1}}} {
		if _, err := v.Read(context.Background(), in); !errors.Is(err, ErrInput) {
			t.Errorf("err = %v", err)
		}
	}
	// No chains is an answer that says so, with no model call spent.
	for _, rd := range []Reader{v, &Extractive{}} {
		a, err := rd.Read(context.Background(), &Input{Graph: g, Question: "q"})
		if err != nil || a.Text != "" || !strings.Contains(a.Trace.Note, "no evidence") {
			t.Errorf("%T without chains: %+v, %v", rd, a, err)
		}
	}
	if len(m.Calls()) != 0 {
		t.Errorf("%d calls without chains", len(m.Calls()))
	}
	if _, err := (&VLM{}).Read(context.Background(), input(t, 1, 1)); !errors.Is(err, ErrInput) {
		t.Errorf("no model: %v", err)
	}
}

// TestConcurrentRound: with no concurrency limit the 16 workers and the
// question-type call are all in flight at once. Each call waits until all 17
// have started, so a reader that ran them one by one would never finish:
// the context's deadline then fails the test (a deadlock guard, not a timing
// assertion).
func TestConcurrentRound(t *testing.T) {
	const want = 16 + 1
	base := defaultScript().Model()
	var started atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	m := llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if n := started.Add(1); n == want {
			once.Do(func() { close(all) })
		}
		if started.Load() <= want { // the reasoner comes after the round
			select {
			case <-all:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return base.Generate(ctx, req)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang detector
	defer cancel()
	ans, err := (&VLM{Model: m}).Read(ctx, input(t, 16, 1))
	if err != nil {
		t.Fatalf("Read: %v (calls started: %d, want %d in flight at once)", err, started.Load(), want)
	}
	if len(ans.Drafts) == 0 {
		t.Fatal("no drafts")
	}
}

func TestConcurrencyLimit(t *testing.T) {
	var in, peak atomic.Int32
	base := defaultScript().Model()
	m := llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
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
	m := llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
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
	case <-time.After(2 * time.Minute): // a hang detector, generous for a loaded machine under -race
		t.Fatal("Read did not return after cancellation")
	}
}

func TestImagesOnlyForImageModels(t *testing.T) {
	calls := 0
	load := func(ref graph.ImageRef) ([]byte, error) { calls++; return []byte("png"), nil }
	for _, images := range []bool{false, true} {
		m := defaultScript().Model()
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

// With a Fallback, a reading whose model fails (the reasoner, or every
// worker) is answered by the fallback over the same chains, with the failed
// reading's drafts and calls; a cancelled context is still an error.
func TestVLMFallback(t *testing.T) {
	s := defaultScript()
	m := s.Model()
	m.Rules = append([]fake.Rule{{Contains: mReasoner, Err: errors.New("reasoner down")}}, m.Rules...)
	in := input(t, 3, 1)
	v := &VLM{Model: m, Fallback: &Extractive{}}
	ans, err := v.Read(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := (&Extractive{}).Read(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text == "" || ans.Text != want.Text || ans.Confidence != want.Confidence || len(ans.Citations) != len(want.Citations) {
		t.Errorf("fallback answer %q (%.2f), want the extractive %q (%.2f)", ans.Text, ans.Confidence, want.Text, want.Confidence)
	}
	// The note names what failed, never the model's message (which can
	// quote the prompt).
	if tr := ans.Trace; tr.Reader != "vlm" || tr.ReasonerFallback != "fallback" || !strings.Contains(tr.Note, "the reasoner failed") || strings.Contains(tr.Note, "reasoner down") ||
		tr.CallsByKind["reasoner"] != 1 || len(ans.Drafts) != len(in.Chains) {
		t.Errorf("trace %+v, %d drafts", tr, len(ans.Drafts))
	}

	all := &fake.Model{}
	all.Rules = append(all.Rules, fake.Rule{Contains: mQType, Reply: `{"type":"value","length":"short"}`})
	all.Rules = append(all.Rules, fake.Rule{Contains: mWorker, Err: errors.New("down")})
	if ans, err := (&VLM{Model: all, Fallback: &Extractive{}}).Read(context.Background(), input(t, 5, 1)); err != nil || ans.Trace.ReasonerFallback != "fallback" {
		t.Errorf("all workers failed: %v, %+v", err, ans)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Read(ctx, in); err == nil {
		t.Error("a cancelled read answered from the fallback")
	}
}
