package reader

import (
	"embed"
	"strings"
)

//go:embed prompts/*.txt
var promptFS embed.FS

// Template names of the embedded prompts (see prompts/README.md for sources).
const (
	tmplWorkerV3   = "v3_p4_worker.txt"
	tmplReasonerV3 = "v3_p5_reasoner.txt"
	tmplWorkerV1   = "v1_b2_worker.txt"
	tmplReasonerV1 = "v1_b3_reasoner.txt"
	tmplJudge      = "v1_b4_consistency.txt"
	tmplBridge     = "v1_b5_bridge.txt"
	tmplEdge       = "v1_b6_edge.txt"
	tmplQType      = "qtype.txt"
)

// prompt returns the embedded template called name (a file in prompts/).
// It is exported so that users can audit exactly what is sent; it returns ""
// for an unknown name.
func prompt(name string) string {
	b, err := promptFS.ReadFile("prompts/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n")
}

// fill substitutes placeholders ("$Q$" → value) in one pass, so that text
// substituted for one placeholder is never scanned for another: a document
// that contains "$Q$" stays as it is.
func fill(tmpl string, kv ...string) string {
	return strings.NewReplacer(kv...).Replace(tmpl)
}

// splitAt cuts tmpl around the first occurrence of placeholder; found is
// false when the template does not contain it.
func splitAt(tmpl, placeholder string) (before, after string, found bool) {
	return strings.Cut(tmpl, placeholder)
}
