package reader

import (
	"context"
	"sync"

	"github.com/flowreader/flowreader/llm"
)

// Call kinds counted in Trace.CallsByKind.
const (
	kindWorker   = "worker"
	kindQType    = "qtype"
	kindReasoner = "reasoner"
	kindJudge    = "judge"
	kindBridge   = "bridge"
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
	kindWorker:   llm.PurposeWorker,
	kindQType:    llm.PurposeQuestionType,
	kindReasoner: llm.PurposeReasoner,
	kindJudge:    llm.PurposeJudge,
	kindBridge:   llm.PurposeSystem2,
	kindEdge:     llm.PurposeSystem2,
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
