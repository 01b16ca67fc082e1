package reader

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
)

// Paper limits (v3 §A.4).
const (
	// evidenceChars is the evidence budget of one worker.
	evidenceChars = 6000
	// keyNodeChars truncates each supporting node shown to the reasoner.
	keyNodeChars = 2000
)

// tagRE finds the opening of any tag the prompts use as a delimiter
// (<text>, </text>, <output>, <thought>), in any case and spacing; spacing
// includes Unicode spaces and invisible format characters (zero-width
// space, soft hyphen, BOM), which a model reads past.
var tagRE = regexp.MustCompile(`(?i)<([\s\p{Z}\p{Cf}]*/?[\s\p{Z}\p{Cf}]*(?:text|output|thought)\b)`)

// neutralise makes document text unable to close or open the prompts'
// delimiters: "<" of such a tag becomes "‹" (U+2039). The rune count is
// unchanged, so budgets computed before and after agree.
func neutralise(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return tagRE.ReplaceAllString(s, "‹$1")
}

// truncate cuts s to at most n characters (runes), marking a cut with "…"
// (which counts toward n).
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// shares splits a budget of characters across texts of the given lengths by
// The water-filling rule: when the total fits, everyone keeps everything;
// otherwise each of the n texts gets floor(budget/n), and the share a short
// text does not use is redistributed, by the same rule, among the longer
// ones (water-filling). The result never sums above budget.
func shares(lengths []int, budget int) []int {
	out := make([]int, len(lengths))
	total := 0
	for _, l := range lengths {
		total += l
	}
	if total <= budget {
		copy(out, lengths)
		return out
	}
	open := make([]int, 0, len(lengths))
	for i := range lengths {
		open = append(open, i)
	}
	rem := budget
	for len(open) > 0 {
		share := rem / len(open)
		next := open[:0]
		settled := false
		for _, i := range open {
			if lengths[i] <= share {
				out[i] = lengths[i]
				rem -= lengths[i]
				settled = true
			} else {
				next = append(next, i)
			}
		}
		open = next
		if !settled {
			for _, i := range open {
				out[i] = share
			}
			break
		}
	}
	return out
}

// nodeHeader labels a node inside an evidence block: its position in the
// chain, document, 1-based page and modality.
func nodeHeader(k int, n *graph.Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s", k, n.Doc)
	switch {
	case n.Page >= 0 && n.LastPage > n.Page:
		fmt.Fprintf(&b, ", pages %d-%d", n.Page+1, n.LastPage+1)
	case n.Page >= 0:
		fmt.Fprintf(&b, ", page %d", n.Page+1)
	}
	fmt.Fprintf(&b, ", %s", n.Modality)
	if n.Section != "" {
		fmt.Fprintf(&b, ", section %q", n.Section)
	}
	return neutralise(b.String())
}

// nodeBody is the evidence text of a node. Text nodes give their content.
// Visual nodes whose image is sent give caption, summary and in-image text
// (for a table without in-image text, its rendered content stands in, as the
// v1 analysis' "text_content" would); visual nodes read as text give
// everything we know about them.
func nodeBody(n *graph.Node, withImage bool) string {
	if n.Modality == graph.ModalityText {
		return neutralise(strings.TrimSpace(n.Content))
	}
	var lines []string
	add := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			lines = append(lines, label+": "+v)
		}
	}
	add("Caption", n.Caption)
	add("Summary", n.Summary)
	inImage := n.ImageText
	add("Text in image", inImage)
	if !withImage || strings.TrimSpace(inImage) == "" {
		if c := strings.TrimSpace(n.Content); c != "" && c != strings.TrimSpace(inImage) {
			add("Content", c)
		}
	}
	if !withImage {
		add("Footnote", n.Footnote)
	}
	return neutralise(strings.Join(lines, "\n"))
}
