package reader

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/llm"
)

// BM25 constants of the extractive reader's unit ranking. A query term
// that is absent from a unit but present in its setting (document name,
// section, caption) counts ctxWeight of a single occurrence, as a
// down-weighted field would in BM25F.
const (
	bm25K1    = 1.2
	bm25B     = 0.75
	ctxWeight = 0.5
)

// Extractive is the offline reader: no generative model. It splits the
// nodes of the selected chains into sentences, list items and table rows,
// ranks them against the question by BM25 (idf over those units) fused
// with embedding cosine when an Embedder is set, and answers with the best
// unit, or the best row's cell when the question names a column, plus a
// second span of another node when the best leaves question terms open.
// The answer line is made of the cited spans only. It abstains (an empty
// answer whose trace note begins "no answer in the collection") when the
// cited spans hold fewer than half of the question's terms.
// It is honest about what it is: the trace says "extractive", and the answer
// is always made of verbatim spans of documents.
type Extractive struct {
	// Embedder, when set, adds cos(question, unit) to the ranking, with
	// weight embeddingWeight.
	Embedder llm.Embedder
}

// embeddingWeight is w, the cosine's share of the fused score
// (1−w)·BM25 + w·max(cos, 0) when an Embedder is set.
const embeddingWeight = 0.5

type scored struct {
	// ctx are the terms of the unit's setting: document name, section and
	// caption.
	ctx   map[string]bool
	node  int
	pos   int // first-seen order of the node, then unit order
	u     unit
	score float64
}

// Read answers in.Question with the best-matching span of in.Chains. It
// tells in.OnText its answer, as one piece, once it has it.
func (e *Extractive) Read(ctx context.Context, in *Input) (ans *Answer, err error) {
	start := time.Now()
	if err := checkInput(in); err != nil {
		return nil, err
	}
	defer func() {
		if err == nil && ans != nil && ans.Text != "" {
			newHooks(in).answer(ans.Text)
		}
	}()
	if len(in.Chains) == 0 {
		return noEvidence("extractive", start), nil
	}
	tr := Trace{Reader: "extractive", ChainsRead: len(in.Chains), Stages: map[string]time.Duration{}}
	var nodes []int
	seen := map[int]bool{}
	for _, c := range in.Chains {
		tr.Flow += c.Flow
		for _, v := range c.Nodes {
			if !seen[v] {
				seen[v] = true
				nodes = append(nodes, v)
			}
		}
	}
	var us []scored
	for k, v := range nodes {
		n := &in.Graph.Nodes[v]
		ctx := map[string]bool{}
		for _, t := range stems(n.Doc + " " + n.Section + " " + n.Caption) {
			ctx[t] = true
		}
		for _, u := range units(n) {
			// A heading restates its section's name; it is no answer.
			if strings.TrimSpace(u.text) == strings.TrimSpace(n.Section) {
				continue
			}
			us = append(us, scored{node: v, pos: k, u: u, ctx: ctx})
		}
	}
	q := stems(in.Question)
	qrefs := refs(in.Question)
	lex := bm25(q, us)
	w := 0.0
	var cos []float64
	if e.Embedder != nil && len(us) > 0 {
		var err error
		cos, err = e.cosines(ctx, in.Question, us)
		if err != nil {
			return nil, err
		}
		w = embeddingWeight
	}
	qset := map[string]bool{}
	for _, t := range q {
		qset[t] = true
	}
	for i := range us {
		// A unit that says nothing beyond the question's own words (a
		// heading that repeats it) cannot answer it.
		if !novel(stems(us[i].u.text), qset) {
			continue
		}
		us[i].score = (1 - w) * (lex[i] + refBoost*refMatch(qrefs, &in.Graph.Nodes[us[i].node], us[i].u))
		if cos != nil {
			us[i].score += w * math.Max(cos[i], 0)
		}
	}
	sort.SliceStable(us, func(a, b int) bool { return us[a].score > us[b].score })
	tr.Stages["extract"] = time.Since(start)
	tr.Total = time.Since(start)
	ans = &Answer{Trace: tr}
	if len(us) == 0 || lex[0] < 0 || us[0].score <= 0 {
		ans.Trace.Note = "no answer in the collection: no sentence, item or row of the selected chains matches the question"
		return ans, nil
	}
	best := us[0]
	cited := []scored{best}
	if second, ok := complement(us, best, qset); ok {
		cited = append(cited, second)
	}
	if cov := coverage(q, cited); cov < minCoverage {
		ans.Trace.Note = fmt.Sprintf("no answer in the collection: the best spans hold %.0f%% of the question's terms, fewer than %.0f%%", 100*cov, 100*minCoverage)
		return ans, nil
	}
	// The answer line is the cited spans, in citation order, and nothing
	// else, so that every part of it has its citation and every citation
	// its part.
	parts := make([]string, 0, len(cited))
	for _, c := range cited {
		n := &in.Graph.Nodes[c.node]
		ans.Citations = append(ans.Citations, Citation{Doc: n.Doc, Page: n.Page, Node: c.node, NodeID: n.ID, Quote: c.u.raw, Chain: -1})
		parts = append(parts, answerText(c.u, q))
	}
	ans.Text = strings.Join(parts, " … ")
	return ans, nil
}

// minCoverage is the abstention threshold: the extractive reader answers
// only when the cited spans, with their settings (document name, section,
// caption, a table row's header), contain at least this share of the
// question's distinct terms (stop words left out, light stemming). A
// question whose words are mostly absent from the evidence read ("What is
// the capital of Japan?" over harbour surveys) is not answered: the answer
// is empty, without citations, and the trace's note begins "no answer in
// the collection".
const minCoverage = 0.5

// coverage is the share of the distinct question terms q found in the
// cited spans or their settings; 1 when the question has no terms.
func coverage(q []string, cited []scored) float64 {
	found := map[string]bool{}
	for _, c := range cited {
		for _, t := range stems(c.u.text) {
			found[t] = true
		}
		if c.u.kind == unitRow {
			for _, t := range stems(strings.Join(c.u.header, " ")) {
				found[t] = true
			}
		}
		for t := range c.ctx {
			found[t] = true
		}
	}
	seen := map[string]bool{}
	have, all := 0, 0
	for _, t := range q {
		if seen[t] {
			continue
		}
		seen[t] = true
		all++
		if found[t] {
			have++
		}
	}
	if all == 0 {
		return 1
	}
	return float64(have) / float64(all)
}

// complementShare is the least score, relative to the best unit, that a
// second span needs.
const complementShare = 0.3

// complement serves questions with a part the best span leaves open, such
// as bridging questions ("the peak gust of the storm that flooded the East
// Arm"), whose evidence flow routing assembles from several nodes: it
// returns the best-scoring unit of another node that covers the most
// question terms missing from the best span and its setting. us is sorted
// by score, so ties go to the higher score.
func complement(us []scored, best scored, qset map[string]bool) (scored, bool) {
	missing := map[string]bool{}
	covered := map[string]bool{}
	for _, t := range stems(best.u.text) {
		covered[t] = true
	}
	for t := range qset {
		if !covered[t] && !best.ctx[t] {
			missing[t] = true
		}
	}
	if len(missing) == 0 {
		return scored{}, false
	}
	var pick scored
	gain, bridged := 0, false
	for _, s := range us[1:] {
		if s.node == best.node || s.score <= 0 || s.score < complementShare*best.score {
			continue
		}
		// A table row answers in its header's terms too ("Rated output").
		terms := stems(s.u.text)
		if s.u.kind == unitRow {
			terms = append(terms, stems(strings.Join(s.u.header, " "))...)
		}
		seen := map[string]bool{}
		bridge := false
		for _, t := range terms {
			if missing[t] {
				seen[t] = true
			} else if covered[t] && !qset[t] {
				// A term the unit shares with the best span beyond the
				// question's own (a bridge entity such as a model name)
				// links the two spans.
				bridge = true
			}
		}
		if len(seen) > gain || (len(seen) == gain && gain > 0 && bridge && !bridged) {
			pick, gain, bridged = s, len(seen), bridge
		}
	}
	return pick, gain > 0
}

// refBoost is added to the lexical score of a unit whose node is the
// figure or table the question names ("Figure 2", "Tab. 3").
const refBoost = 0.5

var refRE = regexp.MustCompile(`(?i)\b(fig(?:ure)?|tab(?:le)?)\.?\s*([0-9]+|[ivxl]+)\b`)

// refs returns the question's figure and table references as "figure 2",
// "table iii".
func refs(s string) map[string]bool {
	out := map[string]bool{}
	for _, m := range refRE.FindAllStringSubmatch(s, -1) {
		kind := "table"
		if strings.HasPrefix(strings.ToLower(m[1]), "fig") {
			kind = "figure"
		}
		out[kind+" "+strings.ToLower(m[2])] = true
	}
	return out
}

// refMatch is 1 when the unit's node, by its caption, is a figure or table
// the question names (or the unit itself names one), else 0.
func refMatch(q map[string]bool, n *graph.Node, u unit) float64 {
	if len(q) == 0 {
		return 0
	}
	own := n.Caption
	if own == "" {
		own = u.text
	}
	// Only the reference a caption opens with identifies the node.
	if m := refRE.FindStringSubmatchIndex(own); m != nil && strings.TrimSpace(own[:m[0]]) == "" {
		for r := range refs(own[m[0]:m[1]]) {
			if q[r] {
				return 1
			}
		}
	}
	return 0
}

// novel reports whether ts has a term outside q.
func novel(ts []string, q map[string]bool) bool {
	for _, t := range ts {
		if !q[t] {
			return true
		}
	}
	return false
}

// bm25 scores units against the query terms, idf over the units,
// normalised by the best score to [0, 1]. The slice is aligned with us.
func bm25(q []string, us []scored) []float64 {
	out := make([]float64, len(us))
	if len(us) == 0 || len(q) == 0 {
		return out
	}
	docs := make([][]string, len(us))
	df := map[string]int{}
	total := 0
	for i, s := range us {
		docs[i] = stems(s.u.text)
		total += len(docs[i])
		seen := map[string]bool{}
		for _, t := range docs[i] {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	avg := float64(total) / float64(len(us))
	if avg == 0 {
		avg = 1
	}
	qs := map[string]bool{}
	var terms []string
	for _, t := range q {
		if !qs[t] {
			qs[t] = true
			terms = append(terms, t)
		}
	}
	n := float64(len(us))
	mx := 0.0
	for i, d := range docs {
		tf := map[string]int{}
		for _, t := range d {
			tf[t]++
		}
		s := 0.0
		for _, t := range terms {
			f := float64(tf[t])
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			if f == 0 {
				if us[i].ctx[t] {
					s += ctxWeight * idf
				}
				continue
			}
			// Units shorter than average are not favoured: a heading that
			// repeats question words is not better evidence for being short.
			l := math.Max(float64(len(d)), avg)
			s += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*l/avg))
		}
		out[i] = s
		mx = math.Max(mx, s)
	}
	if mx > 0 {
		for i := range out {
			out[i] /= mx
		}
	}
	return out
}

func (e *Extractive) cosines(ctx context.Context, question string, us []scored) ([]float64, error) {
	qv, err := e.Embedder.Embed(ctx, []string{question}, llm.KindQuery)
	if err != nil {
		return nil, fmt.Errorf("reader: extractive: embed question: %w", err)
	}
	texts := make([]string, len(us))
	for i, s := range us {
		texts[i] = s.u.text
	}
	vs, err := e.Embedder.Embed(ctx, texts, llm.KindDocument)
	if err != nil {
		return nil, fmt.Errorf("reader: extractive: embed units: %w", err)
	}
	if len(qv) != 1 || len(vs) != len(texts) {
		return nil, fmt.Errorf("reader: extractive: %w: %d vectors for %d texts", llm.ErrInvalidOutput, len(vs), len(texts))
	}
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = cosine(qv[0], v)
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	na, nb := vec.Dot(a, a), vec.Dot(b, b)
	if na == 0 || nb == 0 {
		return 0
	}
	return vec.Dot(a, b) / math.Sqrt(na*nb)
}

// answerText turns the best unit into an answer: a sentence or list item as
// it is; a table row as its most question-relevant cell with the row's
// label ("North Mole — Nests 2025: 248") when the question names a column,
// else the whole row as "Header: value" pairs.
func answerText(u unit, q []string) string {
	if u.kind != unitRow || len(u.cells) == 0 {
		if t := strings.TrimSpace(strings.TrimLeft(u.text, "-*+• ")); t != "" {
			return t
		}
		return strings.TrimSpace(u.text)
	}
	best, bestScore := -1, 0.0
	for j := 1; j < len(u.cells) && j < len(u.header); j++ {
		s := overlap(stems(u.header[j]), q)
		// A column whose value the question already states is not the answer.
		if overlap(stems(u.cells[j]), q) == 1 {
			s = 0
		}
		if s > bestScore {
			best, bestScore = j, s
		}
	}
	if best < 0 {
		return u.text
	}
	return fmt.Sprintf("%s — %s: %s", u.cells[0], u.header[best], u.cells[best])
}
