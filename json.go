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
	// evidenceJSON is Evidence's JSON form: its fields, with the stages in
	// milliseconds.
	evidenceJSON struct {
		SchemaVersion int                `json:"schema_version"`
		Question      string             `json:"question"`
		Budget        int                `json:"budget"`
		Chains        []EvidenceChain    `json:"chains"`
		Routing       RoutingSummary     `json:"routing"`
		Scoring       []string           `json:"scoring"`
		Notes         []string           `json:"notes"`
		StagesMS      map[string]float64 `json:"stages_ms"`
		Scores        []float64          `json:"scores,omitempty"`
	}
	resultJSON struct {
		evidenceJSON
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
		Doc    string   `json:"doc"`
		Page   int      `json:"page"`
		Node   int      `json:"node"`
		NodeID string   `json:"node_id"`
		Quote  string   `json:"quote"`
		Chain  int      `json:"chain"`
		AlsoIn []string `json:"also_in,omitempty"`
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

// MarshalJSON writes the evidence in the JSON contract ([SchemaVersion]):
// its fields in snake_case, with Stages as stages_ms, in milliseconds.
func (e Evidence) MarshalJSON() ([]byte, error) { return json.Marshal(e.toJSON()) }

// UnmarshalJSON reads the JSON contract back into the exported fields.
// The steps' values System 2 needs are not in it (see [Evidence]).
func (e *Evidence) UnmarshalJSON(b []byte) error {
	var j evidenceJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Evidence{SchemaVersion: j.SchemaVersion, Question: j.Question, Budget: j.Budget, Chains: j.Chains,
		Routing: j.Routing, Scoring: j.Scoring, Notes: j.Notes, Scores: j.Scores}
	if j.StagesMS != nil {
		e.Stages = make(map[string]time.Duration, len(j.StagesMS))
		for k, ms := range j.StagesMS {
			e.Stages[k] = time.Duration(ms * float64(time.Millisecond))
		}
	}
	return nil
}

func (e *Evidence) toJSON() evidenceJSON {
	j := evidenceJSON{SchemaVersion: e.SchemaVersion, Question: e.Question, Budget: e.Budget, Chains: e.Chains,
		Routing: e.Routing, Scoring: e.Scoring, Notes: e.Notes, StagesMS: msMap(e.Stages), Scores: e.Scores}
	if j.Chains == nil {
		j.Chains = []EvidenceChain{}
	}
	if j.Routing.Aspects == nil {
		j.Routing.Aspects = []aspectSummary{}
	}
	if j.Scoring == nil {
		j.Scoring = []string{}
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	return j
}

// MarshalJSON writes the result in the JSON contract ([SchemaVersion]):
// the fields of its Evidence (schema_version, question, budget, chains with
// their nodes, routing, notes), stages_ms for every step done, then answer,
// citations, drafts (without the workers' raw replies), trace (calls,
// tokens, durations in milliseconds) and, with System 2 on, system2. It is
// an output form: decoding it into an Evidence gives the evidence back.
func (r Result) MarshalJSON() ([]byte, error) {
	ev := r.Evidence
	if ev == nil {
		ev = &Evidence{SchemaVersion: SchemaVersion}
	}
	a := r.Answer
	if a == nil {
		a = &reader.Answer{}
	}
	out := resultJSON{evidenceJSON: ev.toJSON(), StagesMS: msMap(r.Stages), Answer: a.Text, Confidence: a.Confidence,
		LowConfidence: a.LowConfidence(), Drafts: []draftJSON{}, Trace: traceOf(a.Trace)}
	out.Citations = citationsOf(a.Citations)
	for _, d := range a.Drafts {
		out.Drafts = append(out.Drafts, draftOf(d))
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

func citationsOf(cs []reader.Citation) []citationJSON {
	out := []citationJSON{}
	for _, c := range cs {
		cj := citationJSON{Doc: c.Doc, Page: c.Page, Node: c.Node, NodeID: c.NodeID, Quote: c.Quote, Chain: c.Chain, AlsoIn: c.AlsoIn}
		if c.Span[1] > 0 {
			sp := c.Span
			cj.Span = &sp
		}
		out = append(out, cj)
	}
	return out
}

func draftOf(d reader.Draft) draftJSON {
	return draftJSON{Chain: d.Chain, Nodes: append([]int{}, d.Nodes...), Flow: d.Flow, Status: string(d.Status),
		Answer: d.Answer, Evidence: d.Evidence, Parsed: d.Parsed, Err: d.Err, Images: d.Images}
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
