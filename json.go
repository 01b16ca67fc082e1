package flowreader

import (
	"encoding/json"
	"time"

	"github.com/flowreader/flowreader/reader"
)

// SchemaVersion is the version of the JSON contract of [Evidence] and
// [Result], carried by every document as schema_version. It changes when a
// field is removed, renamed or changes meaning; added fields leave it.
const SchemaVersion = 1

// The JSON form of a Result: the Evidence's fields, then the answer. Field
// names are snake_case, durations are milliseconds (keys ending in _ms),
// and per-node arrays are left out (scores only with Options.Scores, the
// workers' raw replies never).
type (
	resultJSON struct {
		*Evidence
		// StagesMS shadows Evidence's: every step done, answer included.
		StagesMS map[string]float64 `json:"stages_ms"`
		Answer   string             `json:"answer"`
		// Confidence is the reader's, low_confidence true when it is
		// below reader.ConfidenceThreshold (the answer is then a hint).
		Confidence    float64        `json:"confidence"`
		LowConfidence bool           `json:"low_confidence"`
		Citations     []citationJSON `json:"citations"`
		Drafts        []draftJSON    `json:"drafts"`
		Trace         traceJSON      `json:"trace"`
		System2       *system2JSON   `json:"system2,omitempty"`
	}
	citationJSON struct {
		Doc    string `json:"doc"`
		Page   int    `json:"page"`
		Node   int    `json:"node"`
		NodeID string `json:"node_id"`
		Quote  string `json:"quote"`
		Chain  int    `json:"chain"`
		// Span is where the answer sits in quote (byte offsets); absent
		// when the reader does not say.
		Span *[2]int `json:"span,omitempty"`
	}
	draftJSON struct {
		Chain    int     `json:"chain"`
		Nodes    []int   `json:"nodes"`
		Flow     float64 `json:"flow"`
		Status   string  `json:"status"`
		Answer   string  `json:"answer"`
		Evidence string  `json:"evidence"`
		Parsed   bool    `json:"parsed"`
		Err      string  `json:"error,omitempty"`
		Images   int     `json:"images"`
	}
	traceJSON struct {
		Reader           string             `json:"reader"`
		Prompts          string             `json:"prompts,omitempty"`
		ChainsRead       int                `json:"chains_read"`
		Flow             float64            `json:"flow"`
		Reused           int                `json:"reused"`
		QuestionType     string             `json:"question_type,omitempty"`
		AnswerLength     string             `json:"answer_length,omitempty"`
		QuestionTypeErr  string             `json:"question_type_error,omitempty"`
		KeyNodes         int                `json:"key_nodes"`
		KeyNodeChars     int                `json:"key_node_chars"`
		Supported        int                `json:"supported"`
		Dropped          int                `json:"dropped"`
		ReasonerFallback string             `json:"reasoner_fallback,omitempty"`
		Note             string             `json:"note,omitempty"`
		Calls            int                `json:"calls"`
		PromptTokens     int                `json:"prompt_tokens"`
		CompletionTokens int                `json:"completion_tokens"`
		CallsByKind      map[string]int     `json:"calls_by_kind"`
		StagesMS         map[string]float64 `json:"stages_ms"`
		TotalMS          float64            `json:"total_ms"`
	}
	system2JSON struct {
		Consistency      float64  `json:"consistency"`
		Pairs            int      `json:"pairs"`
		Contradictions   int      `json:"contradictions"`
		Saturation       float64  `json:"saturation"`
		Triggers         []string `json:"triggers"`
		Reason           string   `json:"reason"`
		Ran              bool     `json:"ran"`
		Skipped          string   `json:"skipped,omitempty"`
		Bridges          int      `json:"bridges"`
		Reweighted       int      `json:"reweighted"`
		Seeds            int      `json:"seeds"`
		ScorerCut        int      `json:"scorer_cut"`
		ChainsReread     int      `json:"chains_reread"`
		KeptSystem1      bool     `json:"kept_system1"`
		System1Answer    string   `json:"system1_answer,omitempty"`
		Calls            int      `json:"calls"`
		PromptTokens     int      `json:"prompt_tokens"`
		CompletionTokens int      `json:"completion_tokens"`
		TotalMS          float64  `json:"total_ms"`
	}
)

// MarshalJSON writes the result in the JSON contract ([SchemaVersion]):
// the fields of its Evidence (schema_version, question, budget, chains with
// their nodes, routing, notes), stages_ms for every step done, then answer,
// citations, drafts (without the workers' raw replies), trace (calls,
// tokens, durations in milliseconds) and, with System 2 on, system2. It is
// an output form: decoding it into an Evidence gives the evidence back.
func (r Result) MarshalJSON() ([]byte, error) {
	ev := r.Evidence
	if ev == nil {
		ev = &Evidence{SchemaVersion: SchemaVersion, Chains: []EvidenceChain{}, Routing: RoutingSummary{Aspects: []AspectSummary{}}}
	}
	if ev.Notes == nil {
		cp := *ev
		cp.Notes = []string{}
		ev = &cp
	}
	a := r.Answer
	if a == nil {
		a = &reader.Answer{}
	}
	out := resultJSON{Evidence: ev, StagesMS: msMap(r.Stages), Answer: a.Text, Confidence: a.Confidence,
		LowConfidence: a.LowConfidence(), Citations: []citationJSON{}, Drafts: []draftJSON{}, Trace: traceOf(a.Trace)}
	for _, c := range a.Citations {
		cj := citationJSON{Doc: c.Doc, Page: c.Page, Node: graphNode(r.Scores, c.Node), NodeID: c.NodeID, Quote: c.Quote, Chain: c.Chain}
		if c.Span[1] > 0 {
			sp := c.Span
			cj.Span = &sp
		}
		out.Citations = append(out.Citations, cj)
	}
	for _, d := range a.Drafts {
		nodes := make([]int, len(d.Nodes))
		for i, v := range d.Nodes {
			nodes[i] = graphNode(r.Scores, v)
		}
		out.Drafts = append(out.Drafts, draftJSON{Chain: d.Chain, Nodes: nodes, Flow: d.Flow,
			Status: string(d.Status), Answer: d.Answer, Evidence: d.Evidence, Parsed: d.Parsed, Err: d.Err, Images: d.Images})
	}
	if s := r.System2; s != nil {
		j := &system2JSON{Consistency: s.Consistency, Pairs: s.Pairs, Contradictions: s.Contradictions,
			Saturation: s.Saturation, Triggers: append([]string{}, s.Triggers...), Reason: s.Reason, Ran: s.Ran,
			Skipped: s.Skipped, Bridges: s.Bridges, Reweighted: s.Reweighted, Seeds: s.Seeds, ScorerCut: s.ScorerCut,
			ChainsReread: len(s.Chains), KeptSystem1: s.KeptSystem1, Calls: s.Calls, PromptTokens: s.PromptTokens,
			CompletionTokens: s.CompletionTokens, TotalMS: millis(s.Total)}
		if s.System1 != nil {
			j.System1Answer = s.System1.Text
		}
		out.System2 = j
	}
	return json.Marshal(out)
}

func traceOf(t reader.Trace) traceJSON {
	calls := map[string]int{}
	for k, n := range t.CallsByKind {
		calls[k] = n
	}
	return traceJSON{Reader: t.Reader, Prompts: t.Prompts, ChainsRead: t.ChainsRead, Flow: t.Flow, Reused: t.Reused,
		QuestionType: t.QuestionType, AnswerLength: t.AnswerLength, QuestionTypeErr: t.QuestionTypeErr,
		KeyNodes: t.KeyNodes, KeyNodeChars: t.KeyNodeChars, Supported: t.Supported, Dropped: t.Dropped,
		ReasonerFallback: t.ReasonerFallback, Note: t.Note, Calls: t.Calls, PromptTokens: t.PromptTokens,
		CompletionTokens: t.CompletionTokens, CallsByKind: calls, StagesMS: msMap(t.Stages), TotalMS: millis(t.Total)}
}

func msMap(m map[string]time.Duration) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, d := range m {
		out[k] = millis(d)
	}
	return out
}
