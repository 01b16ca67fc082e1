package reader

import (
	"context"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
)

// Reader turns selected chains into an answer. A Read that fails may
// return a partial Answer with its error: no Text, the drafts read so far
// and a Trace of the calls made and tokens spent (VLM does), so that a
// failed or cancelled answer still accounts for what it cost.
type Reader interface {
	Read(ctx context.Context, in *Input) (*Answer, error)
}

var (
	_ Reader = (*VLM)(nil)
	_ Reader = (*Extractive)(nil)
)

// Input is what a reader reads: the question, the graph, and the selected
// chains in reading order. A reader knows nothing of how the chains were
// routed or selected.
type Input struct {
	Question string
	Graph    *graph.Graph
	Chains   []flow.Chain
	// Relevance is the question's relevance h per node (score.Scores.H),
	// optional: the VLM reader shows the reasoner each chain's most relevant
	// nodes first (paper v3 §3.4); without it, the first nodes of the chain.
	Relevance []float64
	// OnDraft, when set, is told of each worker's draft as soon as it is
	// read, in the order the workers finish (a draft taken from Earlier is
	// not told again). OnText, when set, is told the answer as it is
	// written: the reasoner's reply in pieces when its model streams
	// (llm.Streamer), the text of its <output> block with thought false
	// and the rest (its <thought> block) with thought true, tags removed;
	// otherwise, and by a reader that writes no reply (Extractive), the
	// answer once it is known, as one piece. The answer pieces are as
	// written, not yet checked: Answer.Text is the answer (it differs when
	// the reply has several <output> blocks, none, or an empty one). The
	// reader never calls the two concurrently; a slow callback slows the
	// reading, and to stop it, cancel the Read's context. Readers of other
	// packages may ignore both.
	OnDraft func(Draft)
	OnText  func(piece string, thought bool)
	// Earlier is an earlier reading of the same question, for a re-read
	// (System 2, paper v1 §3.5): a chain whose node sequence is that of an
	// earlier draft that did not fail is not read again (greedy decoding
	// with the same prompt would repeat it), the earlier question type is
	// kept, and when no draft is supported the reasoner is not called (the
	// answer is empty, its Trace.Note says why: the earlier one stands).
	Earlier *Answer
}

// Answer is a reader's answer with its provenance.
type Answer struct {
	// Text is the final answer.
	Text string
	// Confidence is the extractive reader's estimate, in [0, 1], that Text
	// is right; below ConfidenceThreshold it is a hint, not an answer (the
	// first citation is then the best passage, its Span the span the reader
	// would answer with). 0 when the reader gives no estimate (VLM) or
	// gives no answer.
	Confidence float64
	// Citations point at the nodes that support Text, best first.
	Citations []Citation
	// Drafts are the per-chain worker outputs, in reading order.
	Drafts []Draft
	// Trace explains how the answer was reached.
	Trace Trace
}

// Citation is one piece of supporting evidence.
type Citation struct {
	// Doc is the document ID, Page its 0-based page (-1 when unknown).
	Doc  string
	Page int
	// Node is the node's index in the graph and NodeID its stable ID.
	Node   int
	NodeID string
	// Quote is the supporting span, copied from the node's text.
	Quote string
	// Chain is the index of the draft (in Answer.Drafts) that cited the
	// node, or -1 for the extractive reader.
	Chain int
	// AlsoIn lists the IDs of the other nodes holding the same content
	// (graph.Graph.Copies), so that a citation says where else it appears,
	// at most the first 32 (as flowreader.EvidenceNode.AlsoIn); the
	// pipeline sets it, readers leave it empty.
	AlsoIn []string
	// Span is where the answer sits in Quote: byte offsets [start, end),
	// for highlighting; {0, 0} when the reader does not say (VLM).
	Span [2]int
}

// Draft is one worker's reading of one chain.
type Draft struct {
	// Chain is the chain's position in the reading order of its pass.
	Chain int
	// Nodes are the chain's nodes in routed order; Flow its flow.
	Nodes []int
	Flow  float64
	// Status, Answer and Evidence come from the worker's JSON;
	// StatusFailed means the call failed and the chain was dropped (Err
	// says why).
	Status   Status
	Answer   string
	Evidence string
	// Raw is the worker's reply as received.
	Raw string
	// Parsed is false when no JSON object could be read from Raw (the draft
	// then counts as not_reported).
	Parsed bool
	Err    string
	// Images is the number of images sent with the chain.
	Images int
}

// Trace is the account of one Read.
type Trace struct {
	// Reader is "vlm" or "extractive".
	Reader string
	// Prompts is "aspects" (paper v3) or "classic" (paper v1); vlm only.
	Prompts string
	// ChainsRead is the number of chains given to workers in System 1, and
	// Flow the total flow they carry.
	ChainsRead int
	Flow       float64
	// Reused counts the chains whose reading was taken from Input.Earlier.
	Reused int
	// QuestionType and AnswerLength are the question-type call's verdict
	// (defaults when the call failed; QuestionTypeErr says why).
	QuestionType    string
	AnswerLength    string
	QuestionTypeErr string
	// KeyNodes and KeyNodeChars are the reasoner's evidence limits used.
	KeyNodes, KeyNodeChars int
	// Supported is the number of supported drafts.
	Supported int
	// Dropped counts the chains whose worker failed (their drafts have
	// status StatusFailed).
	Dropped int
	// ReasonerFallback says how the answer was taken when the reasoner's
	// reply had no <output> tag ("" when it had one): "no_output_tag",
	// "best_draft" or "empty"; "fallback" when the model failed and
	// VLM.Fallback answered.
	ReasonerFallback string
	// Note explains an empty answer of the extractive reader.
	Note string
	// Calls, PromptTokens and CompletionTokens count model calls and tokens
	// spent by this Read; CallsByKind splits Calls by purpose ("worker",
	// "question_type", "reasoner": the calls' llm.Purpose).
	Calls            int
	PromptTokens     int
	CompletionTokens int
	CallsByKind      map[string]int
	// Stages is the wall time per stage ("workers", "question_type" (run
	// alongside the workers), "reasoner"; "extract" for the extractive
	// reader); Total the whole Read.
	Stages map[string]time.Duration
	Total  time.Duration
}

// LowConfidence reports whether a has an answer whose confidence the reader
// estimated below ConfidenceThreshold: a hint to check against its first
// citation, not an answer. A reader that gives no estimate (Confidence 0)
// is never low.
func (a *Answer) LowConfidence() bool {
	return a != nil && a.Text != "" && a.Confidence > 0 && a.Confidence < ConfidenceThreshold
}
