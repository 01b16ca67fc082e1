package llm

import "context"

// Purpose says what a model call is for: which step of the method made it.
// The pipeline sets it on the context of every call it makes (WithPurpose),
// so that a Model, or a middleware around one, can tell a worker call from
// a reasoner call (PurposeOf) — to route cheap steps to a cheaper model, to
// budget, or to label telemetry. It is unrelated to [Kind], which says what
// an embedded text is.
//
// The pipeline's purposes (paper v1 App. A and B number the prompts) are
// "analysis" (build-time node analysis, P1/P2), "evolution" (a build-time
// evolution round, P3), "worker" (a worker reading one chain, B.2),
// "question_type" (the reader's question-type classification), "reasoner"
// (the synthesis of the drafts into the answer, B.3), "judge" (the
// dual-process gate's consistency judge, B.4) and "system2" (a System-2
// scorer call: a bridge, B.5, or an edge re-weighting, B.6). A reader's
// Trace.CallsByKind counts its calls under the same names.
type Purpose string

type purposeKey struct{}

// boxed holds the purposes as interface values made once, so that
// WithPurpose allocates only the context for them.
var boxed = func() map[Purpose]any {
	m := map[Purpose]any{}
	for _, p := range []Purpose{"analysis", "evolution", "worker", "question_type", "reasoner", "judge", "system2"} {
		m[p] = p
	}
	return m
}()

// WithPurpose returns a copy of ctx that carries p.
func WithPurpose(ctx context.Context, p Purpose) context.Context {
	v, ok := boxed[p]
	if !ok {
		v = p
	}
	return context.WithValue(ctx, purposeKey{}, v)
}

// PurposeOf returns the purpose carried by ctx, or "" when none was set.
func PurposeOf(ctx context.Context) Purpose {
	p, _ := ctx.Value(purposeKey{}).(Purpose)
	return p
}

// Totals sums the usage of many calls: model calls with their tokens, and
// embedding calls with theirs. Embedding tokens are counted only for
// embedders that report them (the llm/openai embedder reports the
// response's usage.prompt_tokens); a call answered from a cache costs
// nothing and is not counted.
type Totals struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	EmbedCalls       int `json:"embed_calls"`
	EmbedTokens      int `json:"embed_tokens"`
	// RerankCalls and RerankTokens count the calls to a [Reranker] and the
	// tokens it reports (the llm/openai reranker reports its server's).
	RerankCalls  int `json:"rerank_calls,omitempty"`
	RerankTokens int `json:"rerank_tokens,omitempty"`
}
