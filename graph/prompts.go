package graph

import (
	_ "embed"
	"strings"
)

// The node-analysis and linking prompts of the paper (v3 Appendix J, P1–P3),
// verbatim except that the Markdown escapes "\$" are restored to "$".
var (
	//go:embed prompts/p1_text.txt
	promptText string
	//go:embed prompts/p2_visual.txt
	promptVisual string
	//go:embed prompts/p3_link.txt
	promptLink string
)

// JSON schemas sent with the prompts (structured output).
const (
	schemaText = `{"type":"object","properties":{` +
		`"keywords":{"type":"array","items":{"type":"string"}},` +
		`"summary":{"type":"string"},` +
		`"tags":{"type":"array","items":{"type":"string"}}},` +
		`"required":["keywords","summary","tags"]}`
	schemaVisual = `{"type":"object","properties":{` +
		`"keywords":{"type":"array","items":{"type":"string"}},` +
		`"summary":{"type":"string"},` +
		`"tags":{"type":"array","items":{"type":"string"}},` +
		`"text_content":{"type":"string"}},` +
		`"required":["keywords","summary","tags","text_content"]}`
	schemaLink = `{"type":"object","properties":{` +
		`"suggested_connections":{"type":"array","items":{"type":"integer"}},` +
		`"should_update":{"type":"boolean"},` +
		`"new_summary":{"type":"string"},` +
		`"new_keywords":{"type":"array","items":{"type":"string"}}},` +
		`"required":["suggested_connections","should_update","new_summary","new_keywords"]}`
)

// textPrompt is P1 followed by the chunk. P1 has no placeholder for the
// text; G2-Reader appends it as the input. The "Input Text:" label is ours:
// it matches P1's few-shot examples.
//
// The chunk's backslashes and double quotes are escaped (\\ and \"), so
// that a document cannot end the quotation early and append instructions
// of its own after it.
func textPrompt(content string) string {
	return strings.TrimSpace(promptText) + "\n\nInput Text: \"" + quoteEscaper.Replace(content) + "\"\nOutput JSON:"
}

var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// visualPrompt is P2 with the context and caption substituted. A model that
// cannot see images gets the node's text rendering (a table's cells) after
// the prompt instead.
func visualPrompt(context, caption, rendering string) string {
	p := strings.NewReplacer("{context}", context, "{caption}", caption).Replace(strings.TrimSpace(promptVisual))
	if rendering != "" {
		p += "\n\nThe image is not attached; its content as text:\n" + rendering
	}
	return p
}

// linkPrompt is P3 with the note and its neighbours substituted.
func linkPrompt(content, summary, keywords, neighbourNumber, neighbours string) string {
	return strings.NewReplacer(
		"{content}", content,
		"{context}", summary,
		"{keywords}", keywords,
		"{neighbor_number}", neighbourNumber,
		"{neighbors}", neighbours,
	).Replace(strings.TrimSpace(promptLink))
}
