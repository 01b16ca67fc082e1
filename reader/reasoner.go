package reader

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
)

var errUnreadable = errors.New("unreadable reply")

// keyNodes picks up to k nodes of a chain for the reasoner: the highest h
// (ties: later in the chain, the more relevant end for aspects), presented
// in routed order.
func (r *run) keyNodes(nodes []int, k int) []int {
	if len(nodes) <= k {
		return nodes
	}
	h := r.h
	pos := make([]int, len(nodes))
	for i := range pos {
		pos[i] = i
	}
	sort.SliceStable(pos, func(a, b int) bool {
		ha, hb := hAt(h, nodes[pos[a]]), hAt(h, nodes[pos[b]])
		if ha != hb {
			return ha > hb
		}
		return pos[a] > pos[b]
	})
	pos = pos[:k]
	sort.Ints(pos)
	out := make([]int, k)
	for i, p := range pos {
		out[i] = nodes[p]
	}
	return out
}

func hAt(h []float64, v int) float64 {
	if v < len(h) {
		return h[v]
	}
	return 0
}

// paths renders $PATHS$: per readable chain, the worker's draft and its key
// evidence. Failed chains are left out (dropped). Classic adds the flow
// weight b_k, as v1 B.3 describes.
func (r *run) paths(drafts []Draft) string {
	var b strings.Builder
	k := 0
	for _, d := range drafts {
		if d.Status == StatusFailed {
			continue
		}
		k++
		if k > 1 {
			b.WriteString("\n\n")
		}
		if r.classic {
			fmt.Fprintf(&b, "Path %d (flow weight %.3f)\n", k, d.Flow)
		} else {
			fmt.Fprintf(&b, "Path %d\n", k)
		}
		if d.Status == StatusSupported {
			fmt.Fprintf(&b, "Worker answer: %s\n", neutralise(d.Answer))
			if d.Evidence != "" {
				fmt.Fprintf(&b, "Worker evidence: %s\n", neutralise(d.Evidence))
			}
		} else {
			b.WriteString("Worker answer: not_reported\n")
		}
		b.WriteString("Key evidence:")
		for j, v := range r.keyNodes(d.Nodes, r.keyNodesN) {
			n := &r.in.Graph.Nodes[v]
			fmt.Fprintf(&b, "\n%s\n%s", nodeHeader(j+1, n), truncate(nodeBody(n, false), keyNodeChars))
		}
	}
	return b.String()
}

// reasonerRequest builds the reasoner prompt over drafts.
func (r *run) reasonerRequest(drafts []Draft) *llm.Request {
	var p string
	if r.classic {
		p = fill(prompt(tmplReasonerV1), "$Q$", r.in.Question, "$PATHS$", r.paths(drafts), "$ANS_LEN_GUIDE$", answerGuide(r.qt))
	} else {
		p = fill(prompt(tmplReasonerV3), "$Q$", r.in.Question+formHint(r.qt), "$PATHS$", r.paths(drafts))
	}
	req := llmfunc.UserText(p)
	req.TopP = 1
	return req
}

// reason makes the reasoner call and extracts the answer. When the
// caller wants the answer as it is written (Input.OnText), the reply is
// streamed through a tagSplitter.
func (r *run) reason(ctx context.Context, drafts []Draft) (text, fallback string, err error) {
	var onText func(string)
	var split *tagSplitter
	if r.hooks != nil && r.hooks.onText != nil {
		split = &tagSplitter{emit: r.hooks.text}
		onText = split.write
	}
	resp, err := r.meter.stream(ctx, kindReasoner, r.reasonerRequest(drafts), onText)
	if split != nil {
		split.flush()
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrReasoner, err)
	}
	text, fallback = extractOutput(resp.Text)
	if text == "" {
		if d, ok := bestDraft(drafts); ok {
			return d.Answer, "best_draft", nil
		}
		return "", "empty", nil
	}
	return text, fallback, nil
}

// bestDraft is the supported draft with the largest flow (first on ties).
func bestDraft(drafts []Draft) (Draft, bool) {
	best, ok := Draft{}, false
	for _, d := range drafts {
		if d.Status == StatusSupported && (!ok || d.Flow > best.Flow) {
			best, ok = d, true
		}
	}
	return best, ok
}

var (
	outputOpen   = regexp.MustCompile(`(?i)<\s*output\s*>`)
	outputClose  = regexp.MustCompile(`(?i)<\s*/\s*output\s*>`)
	thoughtBlock = regexp.MustCompile(`(?is)<\s*thought\s*>.*?(<\s*/\s*thought\s*>|$)`)
	anyTag       = regexp.MustCompile(`(?i)</?\s*(output|thought|answer)\s*>`)
)

// extractOutput takes the reasoner's answer from its reply: the text of the
// last <output>…</output> (an unclosed last <output> runs to the end). When
// there is no <output> tag it falls back to the reply without its <thought>
// block and stray tags, and says so ("no_output_tag"); fallback is "" when
// the tag was there.
func extractOutput(s string) (text, fallback string) {
	if locs := outputOpen.FindAllStringIndex(s, -1); len(locs) > 0 {
		rest := s[locs[len(locs)-1][1]:]
		if c := outputClose.FindStringIndex(rest); c != nil {
			rest = rest[:c[0]]
		}
		if t := strings.TrimSpace(anyTag.ReplaceAllString(rest, "")); t != "" {
			return t, ""
		}
	}
	t := thoughtBlock.ReplaceAllString(s, "")
	t = strings.TrimSpace(anyTag.ReplaceAllString(t, ""))
	return t, "no_output_tag"
}
