package reader

import (
	"sort"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// maxCitations caps the citations of one answer.
const maxCitations = 8

// citations cites, for each supported draft that agrees with the final
// answer (at least half of its answer's terms occur in it; all supported
// drafts when none does), the chain node that best contains the worker's
// quoted evidence, with the quoted span copied from the node.
func (r *run) citations(final string, drafts []Draft) []Citation {
	ft := stems(final)
	type cand struct {
		d     int
		agree float64
	}
	var cs []cand
	for i, d := range drafts {
		if d.Status == StatusSupported {
			cs = append(cs, cand{i, overlap(stems(d.Answer), ft)})
		}
	}
	agreeing := cs[:0:0]
	for _, c := range cs {
		if c.agree >= 0.5 {
			agreeing = append(agreeing, c)
		}
	}
	if len(agreeing) > 0 {
		cs = agreeing
	}
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].agree != cs[b].agree {
			return cs[a].agree > cs[b].agree
		}
		return drafts[cs[a].d].Flow > drafts[cs[b].d].Flow
	})
	var out []Citation
	seen := map[int]bool{}
	for _, c := range cs {
		d := drafts[c.d]
		node, quote := r.locate(d)
		if node < 0 || seen[node] {
			continue
		}
		seen[node] = true
		n := &r.in.Graph.Nodes[node]
		out = append(out, Citation{Doc: n.Doc, Page: n.Page, Node: node, NodeID: n.ID, Quote: quote, Chain: d.Chain})
		if len(out) == maxCitations {
			break
		}
	}
	return out
}

// locate finds the node of d's chain that best holds d's evidence (or its
// answer when the worker quoted nothing) and the span to quote: the
// evidence itself when the node contains it verbatim, else the node's
// sentence or row that shares the most terms with it.
func (r *run) locate(d Draft) (node int, quote string) {
	probe := d.Evidence
	if strings.TrimSpace(probe) == "" {
		probe = d.Answer
	}
	pt := stems(probe + " " + d.Answer)
	best, bestScore := -1, -1.0
	for k := len(d.Nodes) - 1; k >= 0; k-- { // ties go to the later, more relevant node
		v := d.Nodes[k]
		text := nodeText(&r.in.Graph.Nodes[v])
		s := overlap(pt, stems(text))
		if containsFold(text, probe) {
			s += 1
		}
		if s > bestScore {
			best, bestScore = v, s
		}
	}
	if best < 0 {
		return -1, ""
	}
	text := nodeText(&r.in.Graph.Nodes[best])
	if i := indexFold(text, strings.TrimSpace(probe)); i >= 0 && strings.TrimSpace(probe) != "" {
		return best, text[i : i+len(strings.TrimSpace(probe))]
	}
	bu, bs := "", -1.0
	for _, u := range units(&r.in.Graph.Nodes[best]) {
		if s := overlap(pt, stems(u.text)); s > bs {
			bu, bs = u.text, s
		}
	}
	return best, truncate(bu, 300)
}

// nodeText is all the searchable text of a node.
func nodeText(n *nodeT) string {
	parts := []string{n.Content}
	if n.Modality != graph.ModalityText {
		parts = append(parts, n.Caption, n.ImageText, n.Summary, n.Footnote)
	}
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n")
}

func containsFold(s, sub string) bool { return indexFold(s, sub) >= 0 }

// indexFold is a case-insensitive strings.Index for ASCII-dominated text;
// it returns -1 when folding changes byte lengths.
func indexFold(s, sub string) int {
	sub = strings.TrimSpace(sub)
	if sub == "" {
		return -1
	}
	ls, lsub := strings.ToLower(s), strings.ToLower(sub)
	if len(ls) != len(s) || len(lsub) != len(sub) {
		return strings.Index(s, sub)
	}
	return strings.Index(ls, lsub)
}
