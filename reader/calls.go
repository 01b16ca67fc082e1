package reader

import (
	"context"
	"sync"

	"github.com/flowreader/flowreader/internal/purpose"
	"github.com/flowreader/flowreader/llm"
)

// Call kinds counted in Trace.CallsByKind: the calls' purposes
// (llm.Purpose), so that a trace and a middleware name a call alike.
const (
	kindWorker   = string(purpose.Worker)
	kindQType    = string(purpose.QuestionType)
	kindReasoner = string(purpose.Reasoner)
	kindJudge    = string(purpose.Judge)
	kindBridge   = "bridge" // both System-2 kinds are purpose.System2
	kindEdge     = "edge"
)

// meter counts the model calls and tokens of one Read. Failed calls count
// too: they were spent.
type meter struct {
	m      llm.Model
	mu     sync.Mutex
	calls  int
	prompt int
	compl  int
	byKind map[string]int
}

func newMeter(m llm.Model) *meter { return &meter{m: m, byKind: map[string]int{}} }

// purposes maps the call kinds to the purposes set on each call's context,
// so that a middleware around the model can tell them apart.
var purposes = map[string]llm.Purpose{
	kindWorker:   purpose.Worker,
	kindQType:    purpose.QuestionType,
	kindReasoner: purpose.Reasoner,
	kindJudge:    purpose.Judge,
	kindBridge:   purpose.System2,
	kindEdge:     purpose.System2,
}

func (t *meter) generate(ctx context.Context, kind string, req *llm.Request) (*llm.Response, error) {
	resp, err := t.m.Generate(llm.WithPurpose(ctx, purposes[kind]), req)
	t.add(kind, resp)
	if err == nil && resp == nil {
		resp = &llm.Response{}
	}
	return resp, err
}

// add counts one call of kind and its usage.
func (t *meter) add(kind string, resp *llm.Response) {
	t.mu.Lock()
	t.calls++
	t.byKind[kind]++
	if resp != nil {
		t.prompt += resp.Usage.PromptTokens
		t.compl += resp.Usage.CompletionTokens
	}
	t.mu.Unlock()
}

func (t *meter) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls
}

func (t *meter) fill(tr *Trace) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr.Calls, tr.PromptTokens, tr.CompletionTokens = t.calls, t.prompt, t.compl
	tr.CallsByKind = make(map[string]int, len(t.byKind))
	for k, v := range t.byKind {
		tr.CallsByKind[k] = v
	}
}

func (t *meter) fillJudgement(j *Judgement) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j.Calls, j.PromptTokens, j.CompletionTokens = t.calls, t.prompt, t.compl
}
