package reader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

// Preset selects the prompt family and defaults of a VLM reader.
type Preset int

const (
	// Aspects is v3: worker P4, reasoner P5, System 2 off by default.
	Aspects Preset = iota
	// Classic is v1: worker B.2, synthesiser B.3, System 2 on by default.
	Classic
)

// String returns "aspects" or "classic".
func (p Preset) String() string {
	if p == Classic {
		return "classic"
	}
	return "aspects"
}

// Switch is a three-way option: Auto leaves the choice to the preset.
type Switch int

const (
	// Auto: the preset's default.
	Auto Switch = iota
	// On forces the feature on.
	On
	// Off forces it off.
	Off
)

// Errors returned by VLM.Read.
var (
	// ErrInput: the input is unusable (no model, no graph, no chains, a
	// chain node out of range).
	ErrInput = errors.New("reader: invalid input")
	// ErrAllWorkersFailed: every worker call of a pass failed.
	ErrAllWorkersFailed = errors.New("reader: all workers failed")
	// ErrReasoner: the reasoner call failed.
	ErrReasoner = errors.New("reader: reasoner failed")
)

// VLM reads chains with a (vision-)language model, as the paper does: one
// worker per chain in parallel, a question-type call alongside, one
// reasoner call; then, when System 2 is on, the consistency judge, the gate
// and at most one System-2 pass. The zero value (plus a Model) is the
// aspects preset with the paper's limits. A VLM is safe for concurrent use
// when its fields are not modified.
type VLM struct {
	// Model answers every call. Wrap it with llm.Wrap for retries: a worker
	// that still fails drops its chain.
	Model llm.Model
	// Preset picks the prompts (Aspects or Classic).
	Preset Preset
	// Concurrency caps the calls in flight in each parallel stage; 0 means
	// all at once (the paper's single parallel round).
	Concurrency int
	// EvidenceChars is the evidence budget per worker (0: 6,000).
	EvidenceChars int
	// KeyNodeChars truncates each supporting node shown to the reasoner
	// (0: 2,000).
	KeyNodeChars int
	// Images loads a visual node's image. When nil, ImageRoot (if set) is
	// the folder image paths are relative to. Images go only to a Model that
	// implements llm.ImageAccepter and accepts them; otherwise, or when an
	// image cannot be loaded, the node is read as text.
	Images    func(ref graph.ImageRef) ([]byte, error)
	ImageRoot string
	// MaxImageBytes refuses larger images (0: 8 MiB).
	MaxImageBytes int64
	// Gate holds the gate's thresholds.
	Gate Gate
	// System2 switches the gate and System 2 (Auto: on for Classic, off for
	// Aspects). With it off, no consistency judge runs, so an aspects query
	// costs chains + 2 calls.
	System2 Switch
	// Pass configures the System-2 pass.
	Pass System2Config
	// Rerouter re-solves the flow after System-2 edits; without it System 2
	// cannot run (the trace says so).
	Rerouter flow.Rerouter
	// Selector picks the chains to re-read from the new routing; nil takes
	// the routing's chains in decomposition order. selector.Selector values
	// satisfy it.
	Selector Selector
	// Editor picks the pairs, edges and seeds that System 2 edits; nil uses
	// the flow package's functions.
	Editor Editor
	// Budget is the number of chains System 2 selects (0: as many as
	// System 1 read).
	Budget int
}

// Selector picks chains from a routing; selector.Selector satisfies it.
type Selector interface {
	Select(r *flow.Routing, budget int) []flow.Chain
}

// run is the state of one Read.
type run struct {
	in            *Input
	preset        Preset
	meter         *meter
	imgs          *imageCache
	images        bool
	limit         int
	evidenceChars int
	keyNodeChars  int
	keyNodesN     int
	workerTmpl    string
	gate          Gate
	qt            QuestionType
	h             []float64
	trace         Trace
}

// Read answers in.Question from in.Chains.
func (v *VLM) Read(ctx context.Context, in *Input) (*Answer, error) {
	start := time.Now()
	if err := checkInput(in); err != nil {
		return nil, err
	}
	if v.Model == nil {
		return nil, fmt.Errorf("%w: no model", ErrInput)
	}
	r := v.newRun(in)
	r.trace.Stages = map[string]time.Duration{}

	// Question type, concurrently with the workers.
	type qres struct {
		t   QuestionType
		err error
		d   time.Duration
	}
	qch := make(chan qres, 1)
	qctx, qcancel := context.WithCancel(ctx)
	defer qcancel()
	go func() {
		t0 := time.Now()
		t, err := r.questionType(qctx)
		qch <- qres{t, err, time.Since(t0)}
	}()

	t0 := time.Now()
	drafts, err := r.readChains(ctx, in.Chains, 1, nil)
	r.trace.Stages[StageWorkers] = time.Since(t0)
	if err != nil {
		qcancel()
		<-qch
		return nil, err
	}
	q := <-qch
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reader: %w", err)
	}
	r.qt = q.t
	r.trace.Stages[StageQuestionType] = q.d
	if q.err != nil {
		r.trace.QuestionTypeErr = q.err.Error()
	}
	r.keyNodesN = r.qt.KeyNodes()
	r.trace.QuestionType, r.trace.AnswerLength = orUnknown(r.qt.Type), orUnknown(r.qt.Length)
	r.trace.KeyNodes, r.trace.KeyNodeChars = r.keyNodesN, r.keyNodeChars
	r.trace.Supported = countSupported(drafts)

	t0 = time.Now()
	text, fb, err := r.reason(ctx, drafts)
	r.trace.Stages[StageReasoner] = time.Since(t0)
	if err != nil {
		return nil, err
	}
	r.trace.ReasonerFallback = fb
	ans := &Answer{Text: text, Drafts: drafts}

	if v.system2On() {
		t0 = time.Now()
		c, pairs, contra, err := r.consistency(ctx, drafts)
		r.trace.Stages[StageConsistency] = time.Since(t0)
		if err != nil {
			return nil, err
		}
		r.trace.Consistency, r.trace.Pairs, r.trace.Contradictions = c, pairs, contra
		r.trace.Gate = r.gate.Decide(c, r.trace.Saturation, r.trace.Supported)
		if r.trace.Gate.Fired {
			t0 = time.Now()
			s2, err := v.system2(ctx, r, drafts)
			r.trace.Stages[StageSystem2] = time.Since(t0)
			if err != nil {
				return nil, err
			}
			if s2 != nil {
				ans.Text, ans.Drafts = s2.text, s2.drafts
			}
		}
	} else {
		r.trace.Consistency = 1
		r.trace.Gate = GateDecision{Reason: "System 2 off: gate not evaluated"}
	}

	ans.Citations = r.citations(ans.Text, ans.Drafts)
	r.meter.fill(&r.trace)
	r.trace.System2.ScorerCalls = r.trace.CallsByKind[kindBridge] + r.trace.CallsByKind[kindEdge]
	r.trace.Total = time.Since(start)
	ans.Trace = r.trace
	return ans, nil
}

func (v *VLM) system2On() bool {
	switch v.System2 {
	case On:
		return true
	case Off:
		return false
	}
	return v.Preset == Classic
}

func (v *VLM) newRun(in *Input) *run {
	r := &run{in: in, preset: v.Preset, meter: newMeter(v.Model), gate: v.Gate}
	r.imgs = v.newImageCache()
	if ia, ok := v.Model.(llm.ImageAccepter); ok && ia.AcceptsImages() {
		r.images = true
	}
	r.limit = v.Concurrency
	if r.limit <= 0 {
		r.limit = -1
	}
	r.evidenceChars = orDefault(v.EvidenceChars, DefaultEvidenceChars)
	r.keyNodeChars = orDefault(v.KeyNodeChars, DefaultKeyNodeChars)
	r.keyNodesN = 4
	r.workerTmpl = Prompt(tmplWorkerV3)
	if v.Preset == Classic {
		r.workerTmpl = Prompt(tmplWorkerV1)
	}
	switch {
	case in.Scores != nil:
		r.h = in.Scores.H
	case in.Routing != nil && in.Routing.Scores != nil:
		r.h = in.Routing.Scores.H
	}
	r.trace.Reader = "vlm"
	r.trace.Preset = v.Preset.String()
	r.trace.ChainsRead = len(in.Chains)
	for _, c := range in.Chains {
		r.trace.Flow += c.Flow
	}
	r.trace.Saturation = 1
	if in.Routing != nil {
		r.trace.Router = in.Routing.Router
		r.trace.Saturation = in.Routing.Saturation
	}
	return r
}

func checkInput(in *Input) error {
	if in == nil || in.Graph == nil {
		return fmt.Errorf("%w: no graph", ErrInput)
	}
	if len(in.Chains) == 0 {
		return fmt.Errorf("%w: no chains", ErrInput)
	}
	for k, c := range in.Chains {
		if !validChain(in.Graph, c) {
			return fmt.Errorf("%w: chain %d has a node outside the graph of %d nodes", ErrInput, k, in.Graph.Len())
		}
	}
	return nil
}

func countSupported(ds []Draft) int {
	n := 0
	for _, d := range ds {
		if d.Status == Supported {
			n++
		}
	}
	return n
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
