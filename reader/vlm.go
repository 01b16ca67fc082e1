package reader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

// Errors returned by the readers.
var (
	// ErrInput: the input is unusable (no model, no graph, a chain node
	// out of range, relevance of the wrong length).
	ErrInput = errors.New("reader: invalid input")
	// ErrAllWorkersFailed: every worker call of a pass failed.
	ErrAllWorkersFailed = errors.New("reader: all workers failed")
	// ErrReasoner: the reasoner call failed.
	ErrReasoner = errors.New("reader: reasoner failed")
)

// VLM reads chains with a (vision-)language model, as the paper does: one
// worker per chain in parallel, a question-type call alongside, and one
// reasoner call that reconciles the drafts (paper v3 §3.4). The zero value
// plus a Model uses the v3 prompts and the paper's limits. A VLM is safe
// for concurrent use when its fields are not modified. It implements
// [Judge], so the root package's System 2 can run over it.
type VLM struct {
	// Model answers every call. Wrap it with llm.Wrap for retries: a worker
	// that still fails drops its chain.
	Model llm.Model
	// Classic selects paper v1's prompts (worker B.2, synthesiser B.3)
	// instead of v3's (P4, P5).
	Classic bool
	// Concurrency caps the calls in flight in each parallel stage; 0 means
	// all at once (the paper's single parallel round).
	Concurrency int
	// ImageRoot is the folder that nodes' image paths are relative to; ""
	// means the graph's own ImageRoot (recorded by graph.Save). Images,
	// when set, loads images instead (for example from a store).
	// Images go only to a Model that implements llm.ImageAccepter and
	// accepts them; otherwise, or when an image cannot be loaded or exceeds
	// 8 MiB, the node is read as text.
	ImageRoot string
	Images    func(ref graph.ImageRef) ([]byte, error)

	// Fallback, when set, answers when the model fails (every worker, or
	// the reasoner; not a cancelled context): Read returns its answer over
	// the same input, with no error, the drafts and calls of the failed
	// reading, Trace.ReasonerFallback "fallback" and a Trace.Note that
	// says why. An Extractive fallback gives its confidence and the span
	// it answers with, so an answer that a model could not give is still
	// marked as sure or not. Nil: the failure is returned (ErrReasoner,
	// ErrAllWorkersFailed) with the partial answer.
	Fallback Reader

	// evidenceChars and maxImageBytes override the paper's limits in tests.
	evidenceChars int
	maxImageBytes int64
}

func (v *VLM) limit() int {
	if v.Concurrency <= 0 {
		return -1
	}
	return v.Concurrency
}

// run is the state of one Read.
type run struct {
	in            *Input
	classic       bool
	meter         *meter
	imgs          *imageCache
	images        bool
	limit         int
	evidenceChars int
	keyNodesN     int
	qt            questionType
	h             []float64
	trace         Trace
	hooks         *hooks
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
	if len(in.Chains) == 0 {
		return noEvidence("vlm", start), nil
	}
	r := v.newRun(in)
	r.trace.Stages = map[string]time.Duration{}

	// Question type, concurrently with the workers.
	type qres struct {
		t   questionType
		err error
		d   time.Duration
	}
	qch := make(chan qres, 1)
	qctx, qcancel := context.WithCancel(ctx)
	defer qcancel()
	go func() {
		if e := in.Earlier; e != nil {
			// A re-read keeps the earlier reading's verdict.
			qch <- qres{questionType{Type: known(e.Trace.QuestionType), Length: known(e.Trace.AnswerLength)}, nil, 0}
			return
		}
		t0 := time.Now()
		t, err := r.questionType(qctx)
		qch <- qres{t, err, time.Since(t0)}
	}()

	t0 := time.Now()
	var earlier []Draft
	if in.Earlier != nil {
		earlier = in.Earlier.Drafts
	}
	drafts, err := r.readChains(ctx, in.Chains, earlier)
	r.trace.Stages["workers"] = time.Since(t0)
	if err != nil {
		qcancel()
		<-qch
		return v.fallback(ctx, r, drafts, start, err)
	}
	q := <-qch
	if err := ctx.Err(); err != nil {
		return r.partial(drafts, start), fmt.Errorf("reader: %w", err)
	}
	r.qt = q.t
	if in.Earlier == nil {
		r.trace.Stages["question_type"] = q.d
	}
	if q.err != nil {
		r.trace.QuestionTypeErr = q.err.Error()
	}
	r.keyNodesN = r.qt.KeyNodes()
	r.trace.QuestionType, r.trace.AnswerLength = orUnknown(r.qt.Type), orUnknown(r.qt.Length)
	r.trace.KeyNodes, r.trace.KeyNodeChars = r.keyNodesN, keyNodeChars
	r.trace.Supported = countSupported(drafts)

	if in.Earlier != nil && r.trace.Supported == 0 {
		// Nothing new is supported: the earlier answer stands, and the
		// reasoner is not called.
		r.meter.fill(&r.trace)
		r.trace.Note = "re-read found no supported draft: the earlier answer stands"
		r.trace.Total = time.Since(start)
		return &Answer{Drafts: drafts, Trace: r.trace}, nil
	}
	t0 = time.Now()
	text, fb, err := r.reason(ctx, drafts)
	r.trace.Stages["reasoner"] = time.Since(t0)
	if err != nil {
		return v.fallback(ctx, r, drafts, start, err)
	}
	r.trace.ReasonerFallback = fb
	r.hooks.answer(text)
	ans := &Answer{Text: text, Drafts: drafts}

	ans.Citations = r.citations(ans.Text, ans.Drafts)
	r.meter.fill(&r.trace)
	r.trace.Total = time.Since(start)
	ans.Trace = r.trace
	return ans, nil
}

// fallback returns the partial answer and err, or, with a Fallback reader
// and a model failure (not a cancelled context), the fallback's answer
// with the failed reading's drafts and calls.
func (v *VLM) fallback(ctx context.Context, r *run, drafts []Draft, start time.Time, err error) (*Answer, error) {
	part := r.partial(drafts, start)
	if v.Fallback == nil || ctx.Err() != nil {
		return part, err
	}
	fa, ferr := v.Fallback.Read(ctx, r.in)
	if ferr != nil {
		return part, err
	}
	tr := part.Trace
	tr.ReasonerFallback = "fallback"
	tr.Note = fmt.Sprintf("the model failed (%s); answered by the fallback reader (%s)", failure(err), fa.Trace.Reader)
	tr.Total = time.Since(start)
	return &Answer{Text: fa.Text, Confidence: fa.Confidence, Citations: fa.Citations, Drafts: drafts, Trace: tr}, nil
}

// failure names what failed and how, by the error's kind only: a model
// server's own message can quote the prompt (the question and the
// documents), and the note goes wherever the answer goes.
func failure(err error) string {
	what := "the model"
	switch {
	case errors.Is(err, ErrAllWorkersFailed):
		what = "every worker"
	case errors.Is(err, ErrReasoner):
		what = "the reasoner"
	}
	how := "failed"
	var api *llm.APIError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		how = "timed out"
	case errors.Is(err, llm.ErrRateLimited):
		how = "was rate limited"
	case errors.Is(err, llm.ErrUnavailable):
		how = "was unavailable"
	case errors.Is(err, llm.ErrContextTooLong):
		how = "got a context too long"
	case errors.Is(err, llm.ErrInvalidOutput):
		how = "gave output that could not be read"
	case errors.As(err, &api):
		how = fmt.Sprintf("failed with HTTP status %d", api.StatusCode)
	}
	return what + " " + how
}

// partial is the answer of a Read that failed: the drafts read so far and
// the trace of the calls made and tokens spent, without an answer text.
func (r *run) partial(drafts []Draft, start time.Time) *Answer {
	r.meter.fill(&r.trace)
	r.trace.Total = time.Since(start)
	return &Answer{Drafts: drafts, Trace: r.trace}
}

func (v *VLM) newRun(in *Input) *run {
	r := &run{in: in, classic: v.Classic, meter: newMeter(v.Model), h: in.Relevance, hooks: newHooks(in)}
	r.imgs = v.newImageCache(in.Graph)
	if ia, ok := v.Model.(llm.ImageAccepter); ok && ia.AcceptsImages() {
		r.images = true
	}
	r.limit = v.limit()
	r.evidenceChars = orDefault(v.evidenceChars, evidenceChars)
	r.keyNodesN = 4
	r.trace.Reader = "vlm"
	r.trace.Prompts = "aspects"
	if v.Classic {
		r.trace.Prompts = "classic"
	}
	r.trace.ChainsRead = len(in.Chains)
	for _, c := range in.Chains {
		r.trace.Flow += c.Flow
	}
	return r
}

// noEvidence is the answer to a question with no chains to read: nothing
// was routed (no node is relevant), so no model call is spent.
func noEvidence(reader string, start time.Time) *Answer {
	return &Answer{Trace: Trace{Reader: reader, Total: time.Since(start),
		Note: "no evidence: no chain to read (no node is relevant to the question)"}}
}

func checkInput(in *Input) error {
	if in == nil || in.Graph == nil {
		return fmt.Errorf("%w: no graph", ErrInput)
	}
	if in.Relevance != nil && len(in.Relevance) != len(in.Graph.Nodes) {
		return fmt.Errorf("%w: relevance has %d values for %d nodes", ErrInput, len(in.Relevance), len(in.Graph.Nodes))
	}
	for k, c := range in.Chains {
		if !validChain(in.Graph, c) {
			return fmt.Errorf("%w: chain %d has a node outside the graph of %d nodes", ErrInput, k, len(in.Graph.Nodes))
		}
	}
	return nil
}

func countSupported(ds []Draft) int {
	n := 0
	for _, d := range ds {
		if d.Status == StatusSupported {
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

// known inverts orUnknown.
func known(s string) string {
	if s == "unknown" {
		return ""
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
