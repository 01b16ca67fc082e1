package reader

import (
	"context"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Reader turns selected chains into an answer.
type Reader interface {
	Read(ctx context.Context, in *Input) (*Answer, error)
}

var (
	_ Reader = (*VLM)(nil)
	_ Reader = (*Extractive)(nil)
)

// Input is what a reader reads: the question, the graph, the query's scores
// and routing (both optional for Extractive; Routing is needed for the
// saturation trigger and System 2), and the selected chains in reading order.
type Input struct {
	Question string
	Graph    *graph.Graph
	Scores   *score.Scores
	Routing  *flow.Routing
	Chains   []flow.Chain
}

// Answer is a reader's answer with its provenance.
type Answer struct {
	// Text is the final answer.
	Text string
	// Citations point at the nodes that support Text, best first.
	Citations []Citation
	// Drafts are the per-chain worker outputs of the pass whose answer was
	// kept (System 1, or System 2 when it found support), in reading order.
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
}

// Draft is one worker's reading of one chain.
type Draft struct {
	// Chain is the chain's position in the reading order of its pass.
	Chain int
	// Nodes are the chain's nodes in routed order; Flow its flow.
	Nodes []int
	Flow  float64
	// Status, Answer and Evidence come from the worker's JSON; Failed means
	// the call failed and the chain was dropped (Err says why).
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

// Stage names used in Trace.Stages.
const (
	StageWorkers = "workers"
	// StageQuestionType runs concurrently with StageWorkers.
	StageQuestionType = "question_type"
	StageReasoner     = "reasoner"
	StageConsistency  = "consistency"
	StageSystem2      = "system2"
	StageExtract      = "extract"
)

// Trace is the account of one Read.
type Trace struct {
	// Reader is "vlm" or "extractive".
	Reader string
	// Preset is "aspects" or "classic" (vlm only).
	Preset string
	// ChainsRead is the number of chains given to workers in System 1, and
	// Flow the total flow they carry.
	ChainsRead int
	Flow       float64
	// Router and Saturation come from the routing (σ; 1 when unknown).
	Router     string
	Saturation float64
	// QuestionType and AnswerLength are the question-type call's verdict
	// (defaults when the call failed; QuestionTypeErr says why).
	QuestionType    string
	AnswerLength    string
	QuestionTypeErr string
	// KeyNodes and KeyNodeChars are the reasoner's evidence limits used.
	KeyNodes, KeyNodeChars int
	// Supported is the number of supported drafts in System 1.
	Supported int
	// Consistency is c = 1 − contradictions/pairs over distinct supported
	// answers; Pairs is the number of judged pairs (0: not judged, c = 1).
	Consistency    float64
	Pairs          int
	Contradictions int
	// Gate is the dual-process gate's decision.
	Gate GateDecision
	// System2 reports whether a System-2 pass ran, and what it did.
	System2 System2Trace
	// Dropped lists chains whose worker failed.
	Dropped []Dropped
	// ReasonerFallback says how the answer was taken when the reasoner's
	// reply had no <output> tag ("" when it had one): "no_output_tag",
	// "best_draft" or "empty".
	ReasonerFallback string
	// Note explains an empty answer of the extractive reader.
	Note string
	// Calls, PromptTokens and CompletionTokens count model calls and tokens
	// spent by this Read; CallsByKind splits Calls by purpose ("worker",
	// "qtype", "reasoner", "judge", "bridge", "edge").
	Calls            int
	PromptTokens     int
	CompletionTokens int
	CallsByKind      map[string]int
	// Stages is the wall time per stage; Total the whole Read.
	Stages map[string]time.Duration
	Total  time.Duration
}

// Dropped is a chain left out because its worker failed.
type Dropped struct {
	Pass   int // 1 or 2
	Chain  int
	Nodes  []int
	Reason string
}
