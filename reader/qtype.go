package reader

import (
	"context"
	"strings"

	"github.com/flowreader/flowreader/internal/llmfunc"
)

// questionType is the question-type call's verdict (proposed; the paper gives no prompt):
// it sets the reasoner's evidence limits and answer form.
type questionType struct {
	// Type is yes_no, choice, value, delta, label, list or describe.
	Type string `json:"type"`
	// Length is short, sentence or paragraph.
	Length string `json:"length"`
}

var (
	questionTypes = []string{"yes_no", "choice", "value", "delta", "label", "list", "describe"}
	answerLengths = []string{"short", "sentence", "paragraph"}
)

// questionTypeSchema is the JSON schema of the question-type call.
const questionTypeSchema = `{"type":"object","properties":{"type":{"type":"string","enum":["yes_no","choice","value","delta","label","list","describe"]},"length":{"type":"string","enum":["short","sentence","paragraph"]}},"required":["type","length"],"additionalProperties":false}`

// KeyNodes returns the reasoner's supporting nodes per chain for t: 4 for a
// list, describe or paragraph question, otherwise 2. An unknown type (the
// call failed or answered nonsense) gets 4, the larger, safer limit.
func (t questionType) KeyNodes() int {
	switch {
	case t.Type == "list" || t.Type == "describe" || t.Length == "paragraph":
		return 4
	case t.Type == "":
		return 4
	}
	return 2
}

// parseQuestionType reads the question-type reply leniently; unknown values
// are left empty.
func parseQuestionType(s string) (questionType, bool) {
	m, ok := lenientObject(s, "type", "length")
	if !ok {
		return questionType{}, false
	}
	t := questionType{
		Type:   oneOf(m["type"], questionTypes),
		Length: oneOf(m["length"], answerLengths),
	}
	return t, t.Type != "" || t.Length != ""
}

func oneOf(v string, allowed []string) string {
	v = strings.NewReplacer(" ", "_", "-", "_", "/", "_").Replace(strings.ToLower(strings.TrimSpace(v)))
	if v == "yesno" || v == "binary" || v == "boolean" {
		v = "yes_no"
	}
	for _, a := range allowed {
		if v == a {
			return a
		}
	}
	return ""
}

// questionType makes the question-type call.
func (r *run) questionType(ctx context.Context) (questionType, error) {
	req := llmfunc.UserText(fill(prompt(tmplQType), "$Q$", r.in.Question))
	req.TopP = 1
	req.JSONSchema = []byte(questionTypeSchema)
	req.SchemaName = "question_type"
	resp, err := r.meter.generate(ctx, kindQType, req)
	if err != nil {
		return questionType{}, err
	}
	t, ok := parseQuestionType(resp.Text)
	if !ok {
		return questionType{}, errUnreadable
	}
	return t, nil
}

// answerGuide is the $ANS_LEN_GUIDE$ of v1 B.3, and the answer-form hint
// appended to the question in v3 P5 (both proposed: the paper's text for
// them is lost).
func answerGuide(t questionType) string {
	switch t.Length {
	case "short":
		return "ANSWER LENGTH: a few words."
	case "sentence":
		return "ANSWER LENGTH: one sentence."
	case "paragraph":
		return "ANSWER LENGTH: a short paragraph."
	}
	return "ANSWER LENGTH: as short as the question allows."
}

func formHint(t questionType) string {
	if t.Type == "" && t.Length == "" {
		return ""
	}
	var parts []string
	if t.Type != "" {
		parts = append(parts, "question type: "+strings.ReplaceAll(t.Type, "_", "/"))
	}
	if t.Length != "" {
		parts = append(parts, "expected answer length: "+t.Length)
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
