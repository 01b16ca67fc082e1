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
// with embedding cosine when an Embedder is set, and answers with the span
// of the kind the question asks for (a number, date, name, place, acronym
// expansion, table cell) nearest the question's terms, with a confidence;
// below ConfidenceThreshold, and for questions of no kind, with the best
// unit (and a second span of another node when it leaves question terms
// open). It abstains (an empty answer whose trace note begins "no answer in
// the collection") when the cited spans hold fewer than half of the
// question's terms. It is honest about what it is: the trace says
// "extractive", and the answer is always made of verbatim spans of
// documents.
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
	// prev is the index (in the reader's unit list, before sorting) of the
	// unit before this one in the same node, or -1.
	prev int
	// terms are the unit's stemmed terms (stems of u.text), computed once.
	terms []string
	// eff is the unit's score with its context: the larger of its own and
	// prevShare of the previous unit's ("The default is 512" after the
	// sentence that names the setting).
	eff float64
	// cos is the unit's cosine with the question (0 without an
	// embedder or below 0); ref is 1 when its node is the figure or table
	// the question names.
	cos, ref float64
}

// prevShare is how much of the previous unit's score a unit inherits: a
// value is often stated in the sentence after the one that names what it
// is of.
const prevShare = 0.8

// topUnits bounds the units whose spans are candidates: the best by eff.
// The other units still count for abstention and the complement.
const topUnits = 24

// orderPrior is the bonus of the first node in the evidence order; the
// k-th (0-based) gets orderPrior/(1+k). Evidence order breaks near ties; it
// never removes a node from consideration.
const orderPrior = 0.03

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
	q, us, idf, err := e.rank(ctx, in.Question, in.Graph, nodes)
	if err != nil {
		return nil, err
	}
	ans = &Answer{Trace: tr}
	best, ok := e.answer(in, q, us, idf)
	ans.Trace.Stages["extract"] = time.Since(start)
	ans.Trace.Total = time.Since(start)
	if !ok {
		ans.Trace.Note = "no answer in the collection: no sentence, item or row of the selected chains matches the question"
		return ans, nil
	}
	if best.coverage < minCoverage {
		ans.Trace.Note = fmt.Sprintf("no answer in the collection: the best spans hold %.0f%% of the question's terms, fewer than %.0f%%", 100*best.coverage, 100*minCoverage)
		return ans, nil
	}
	ans.Text = best.text
	ans.Confidence = best.confidence
	ans.Citations = best.citations
	return ans, nil
}

// rank splits the nodes into units and scores each against the question:
// the fused BM25 and cosine score, and eff, the score with context. It
// returns the question read, the units in node order and the question
// terms' idf.
func (e *Extractive) rank(ctx context.Context, qtext string, g *graph.Graph, nodes []int) (*question, []scored, map[string]float64, error) {
	var us []scored
	for k, v := range nodes {
		n := &g.Nodes[v]
		ctx := map[string]bool{}
		for _, t := range stems(n.Doc + " " + n.Section + " " + n.Caption) {
			ctx[t] = true
		}
		prev := -1
		for _, u := range borrowHeader(g, nodes, n, units(n)) {
			// A heading restates its section's name; it is no answer.
			if strings.TrimSpace(u.text) == strings.TrimSpace(n.Section) {
				continue
			}
			us = append(us, scored{node: v, pos: k, u: u, ctx: ctx, prev: prev, terms: stems(u.text)})
			prev = len(us) - 1
		}
	}
	q := analyse(qtext)
	qrefs := refs(qtext)
	lex, idf := bm25(q.terms, us)
	w := 0.0
	var cos []float64
	if e.Embedder != nil && len(us) > 0 {
		var err error
		cos, err = e.cosines(ctx, qtext, us)
		if err != nil {
			return nil, nil, nil, err
		}
		w = embeddingWeight
	}
	for i := range us {
		// A unit that says nothing beyond the question's own words (a
		// heading that repeats it) cannot answer it.
		if !novel(us[i].terms, q.set) {
			continue
		}
		us[i].ref = refMatch(qrefs, &g.Nodes[us[i].node], us[i].u)
		us[i].score = (1 - w) * (lex[i] + refBoost*us[i].ref)
		if cos != nil {
			us[i].cos = math.Max(cos[i], 0)
			us[i].score += w * us[i].cos
		}
	}
	for i := range us {
		us[i].eff = us[i].score
		if p := us[i].prev; p >= 0 && us[i].score > 0 {
			us[i].eff = math.Max(us[i].eff, prevShare*us[p].score)
		}
	}
	return q, us, idf, nil
}

// reading is the extractive reader's answer before it is returned.
type reading struct {
	text       string
	citations  []Citation
	coverage   float64
	confidence float64
}

// answer picks the answer: the best candidate span of the kind the
// question asks for, else the best unit (with a complement from another
// node when the best leaves question terms open). ok is false when no unit
// matches at all.
func (e *Extractive) answer(in *Input, q *question, us []scored, idf map[string]float64) (reading, bool) {
	order := make([]int, len(us))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return us[order[a]].eff > us[order[b]].eff })
	if len(us) == 0 || us[order[0]].eff <= 0 {
		return reading{}, false
	}
	maxEff := us[order[0]].eff
	cite := func(i int, span string, start, end int) Citation {
		n := &in.Graph.Nodes[us[i].node]
		return Citation{Doc: n.Doc, Page: n.Page, Node: us[i].node, NodeID: n.ID, Quote: us[i].u.raw, Chain: -1, Span: [2]int{start, end}}
	}
	cands := e.candidates(in, q, us, order, idf, maxEff)
	if len(cands) > 0 {
		b := cands[0]
		second := 0.0
		for _, c := range cands[1:] {
			if !sameAnswer(c.text, b.text) {
				second = c.score
				break
			}
		}
		margin := clamp01((b.score - second) / marginScale)
		cov, wcov := unitCoverage(q, us, b.u, idf)
		if b.col > 0 && us[b.u].u.kind == unitRow {
			wcov = min(wcov, cellCoverage(q, us[b.u], b.col, idf))
		}
		conf := estimate(wcov * (1 - marginWeight + marginWeight*margin) * b.fit)
		text, start, end := b.text, b.start, b.end
		if q.plural && q.kind == kindName {
			text, start, end = listOf(cands, b, us[b.u].u.raw)
		}
		if conf < ConfidenceThreshold {
			// Not sure of the span: the answer line is its passage (and a
			// complement), with the span marked in the first citation.
			// A row always takes its complement (the sentence that leads to
			// it); a sentence only one that covers two open terms or more.
			gain := 2
			if us[b.u].u.kind == unitRow {
				gain = 1
			}
			r := e.sentences(in, q, us, order, b.u, idf, [2]int{start, end}, gain)
			r.confidence = conf
			// The span's unit counts with the unit before it (unitCoverage);
			// the passage that stands for the span must not make the reader
			// abstain where answering with the span would not.
			r.coverage = max(r.coverage, cov)
			return r, true
		}
		c := cite(b.u, text, start, end)
		if p := us[b.u].prev; p >= 0 && us[b.u].score < prevShare*us[p].score {
			// The unit before says what the value is of ("… before
			// rejecting additional requests. The default is 512"): the
			// passage quotes both, as the node has them.
			n := &in.Graph.Nodes[us[b.u].node]
			if q, off, ok := joinQuote(n.Content, us[p].u.raw, c.Quote); ok {
				c.Quote = q
				c.Span[0] += off
				c.Span[1] += off
			}
		}
		return reading{text: text, citations: []Citation{c}, coverage: cov, confidence: conf}, true
	}
	r := e.sentences(in, q, us, order, order[0], idf, [2]int{}, 1)
	return r, true
}

// sentences answers with unit bi, and the best unit of another node that
// covers at least minGain question terms it leaves open (complement: a
// two-step question, or a row of a table found through a sentence). mark,
// when not zero,
// is the span to mark in bi's quote (the span the reader would answer
// with); otherwise the part answered is marked. The answer line is the
// cited spans, in citation order, and nothing else, so that every part of
// it has its citation and every citation its part.
func (e *Extractive) sentences(in *Input, q *question, us []scored, order []int, bi int, idf map[string]float64, mark [2]int, minGain int) reading {
	cited := []scored{us[bi]}
	_, wcov := unitCoverage(q, us, bi, idf)
	// The passage of a span is on topic when the span's unit, with the
	// unit before it, holds half the question's terms (the reader answers
	// with the passage's coverage at least the span's: see answer).
	onTopic := coverage(q.terms, cited) >= minCoverage || mark[1] > 0 && halfHeld(q, unitFound(us, bi))
	if second, gain := complement(sortedUnits(us, order), us[bi], q.set); gain >= minGain && (!valueKinds[q.kind] ||
		len(wordsOf(us[bi].u.raw))+1+len(wordsOf(second.u.raw)) <= passageWords || !onTopic) {
		// The passage of a value (a number, a name, a date) shows where
		// the value is; a complement that makes it longer than a passage
		// answer (the " … " between them counts as a word of the line)
		// buries it, unless the passage is on the question's topic only
		// with it. A question that a sentence answers keeps its
		// complement: the second part of a two-part answer.
		cited = append(cited, second)
	}
	cov := coverage(q.terms, cited)
	margin := 1.0
	for _, k := range order {
		if k != bi {
			margin = clamp01((us[bi].eff - us[k].eff) / marginScale)
			break
		}
	}
	r := reading{coverage: cov, confidence: estimate(sentenceFit * wcov * (1 - marginWeight + marginWeight*margin))}
	parts := make([]string, 0, len(cited))
	for k, c := range cited {
		n := &in.Graph.Nodes[c.node]
		text := answerText(c.u, q.terms)
		s, e := spanIn(c.u.raw, text)
		if k == 0 && mark[1] > 0 {
			s, e = mark[0], mark[1]
			if t, ok := markedCell(c.u, mark); ok {
				text = t
			} else if t, ok := around(c.u.raw, mark); ok {
				text = t
			}
		}
		r.citations = append(r.citations, Citation{Doc: n.Doc, Page: n.Page, Node: c.node, NodeID: n.ID, Quote: c.u.raw, Chain: -1, Span: [2]int{s, e}})
		parts = append(parts, text)
	}
	r.text = strings.Join(parts, " … ")
	return r
}

// valueKinds are the answer kinds whose answer is a value, not a sentence.
var valueKinds = map[string]bool{kindNumber: true, kindDate: true, kindPerson: true, kindPlace: true, kindName: true, kindAcronym: true}

// markedCell is the cell of row u that holds the marked span, with the
// row's label and the cell's header ("repeat_last_n — Description: … (Default:
// 64, …)"): the passage of a row is the cell the reader would have
// answered from, not the column the question's words point to.
func markedCell(u unit, mark [2]int) (string, bool) {
	if u.kind != unitRow {
		return "", false
	}
	for j := 1; j < len(u.cells) && j < len(u.header); j++ {
		s, e := spanIn(u.raw, u.cells[j])
		if e-s < len(u.raw) && s <= mark[0] && mark[1] <= e {
			return fmt.Sprintf("%s — %s: %s", rowLabel(u), u.header[j], u.cells[j]), true
		}
	}
	return "", false
}

// passageWords is the longest passage answer, in words, around the span
// the reader would have answered with; passageSide is how many words of
// context it keeps on each side of the span when it cuts. A slide or a
// table's line of text has no sentence ends to split it at, and a passage
// of a hundred words is no answer line.
const (
	passageWords = 40
	passageSide  = 16
)

// around cuts quote to the span mark with passageSide words each side,
// when quote is longer than passageWords words; ok is false when it is
// short enough as it is.
func around(quote string, mark [2]int) (string, bool) {
	ws := wordsOf(quote)
	if len(ws) <= passageWords || mark[1] <= mark[0] {
		return "", false
	}
	a, b := -1, -1
	for k, w := range ws {
		if a < 0 && w.end > mark[0] {
			a = k
		}
		if w.start < mark[1] {
			b = k
		}
	}
	if a < 0 || b < a {
		return "", false
	}
	a, b = max(0, a-passageSide), min(len(ws)-1, b+passageSide)
	start, end := ws[a].start, ws[b].end
	if ws[a].open {
		start = max(0, start-1)
	}
	return quote[start:end], true
}

// sameAnswer reports whether two candidate texts give the same answer:
// equal, or one holds the other as whole words ("131" and "131 km/h", a
// cell and the sentence's span of the same value), so that the confidence
// margin is taken to the best different answer.
func sameAnswer(a, b string) bool {
	x, y := " "+strings.Join(tokens(a), " ")+" ", " "+strings.Join(tokens(b), " ")+" "
	if strings.TrimSpace(x) == "" || strings.TrimSpace(y) == "" {
		return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
	}
	return strings.Contains(x, y) || strings.Contains(y, x)
}

// joinQuote finds a and then b in content with only white space between
// them, and returns the text from a's start to b's end, and where b starts
// in it.
func joinQuote(content, a, b string) (string, int, bool) {
	i := strings.Index(content, a)
	if i < 0 || a == "" || b == "" {
		return "", 0, false
	}
	rest := content[i+len(a):]
	gap := len(rest) - len(strings.TrimLeft(rest, " \t\n"))
	if !strings.HasPrefix(rest[gap:], b) {
		return "", 0, false
	}
	off := len(a) + gap
	return content[i : i+off+len(b)], off, true
}

// listShare is the least score, relative to the best span, of another
// span of the same unit that joins it in a list answer ("Which datasets
// …").
const listShare = 0.7

// listOf joins the best span with the other spans of its unit that score
// at least listShare of it, in the order they are written; the span to
// highlight runs from the first to the last.
func listOf(cands []cand, best cand, raw string) (string, int, int) {
	var in []cand
	seen := map[string]bool{}
	for _, c := range cands {
		key := strings.ToLower(c.text)
		if c.u != best.u || c.score < listShare*best.score || seen[key] || c.text == "" {
			continue
		}
		seen[key] = true
		in = append(in, c)
	}
	sort.Slice(in, func(a, b int) bool { return in[a].start < in[b].start })
	parts := make([]string, 0, len(in))
	start, end := best.start, best.end
	last := -1
	for _, c := range in {
		if c.start < last {
			continue // overlaps the one before
		}
		parts = append(parts, c.text)
		start, end, last = min(start, c.start), max(end, c.end), c.end
	}
	return strings.Join(parts, ", "), start, end
}

// The confidence of an answer is
//
//	c = fit · w · (1 − marginWeight + marginWeight · min(1, (s₁ − s₂)/marginScale))
//
// with w the idf-weighted share of the question's terms found around the
// answer (its unit, the unit before, its setting), fit how well the span
// has the kind asked for, and s₁ − s₂ how far the answer's score is ahead
// of the best different answer. Scores run over about [0, 1.2].
const (
	marginWeight = 0.6
	marginScale  = 0.25
)

// sentenceFit scales the confidence of a whole-sentence answer: a sentence
// that matches the question still leaves the reader to find the answer in
// it.
const sentenceFit = 0.8

func sortedUnits(us []scored, order []int) []scored {
	out := make([]scored, len(order))
	for k, i := range order {
		out[k] = us[i]
	}
	return out
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// minEstimate is the least confidence the extractive reader gives: a
// confidence of 0 means "no estimate" (Answer.LowConfidence), and a cell
// whose row and column hold none of the question's terms (cellCoverage
// 0) is the least sure answer, not an unestimated one.
const minEstimate = 0.01

// estimate is x in [minEstimate, 1].
func estimate(x float64) float64 { return math.Max(minEstimate, clamp01(x)) }

// spanIn locates text in quote: its byte offsets, or [0, len(quote)) when
// it is not there verbatim (a row read as header: value pairs).
func spanIn(quote, text string) (int, int) {
	if i := strings.Index(quote, text); i >= 0 && text != "" {
		return i, i + len(text)
	}
	return 0, len(quote)
}

// unitCoverage is the share of the question's distinct terms found in unit
// i, the unit before it, its setting and (a row) its header: plain, as the
// abstention rule counts it, and idf-weighted, as the confidence does.
func unitCoverage(q *question, us []scored, i int, idf map[string]float64) (plain, weighted float64) {
	return termShare(q, unitFound(us, i), idf)
}

// unitFound are the terms of unit i, the unit before it, their settings
// and (a row) its header.
func unitFound(us []scored, i int) map[string]bool {
	found := map[string]bool{}
	add := func(s scored) {
		for _, t := range s.terms {
			found[t] = true
		}
		if s.u.kind == unitRow {
			for _, t := range stems(strings.Join(s.u.header, " ")) {
				found[t] = true
			}
		}
		for t := range s.ctx {
			found[t] = true
		}
	}
	add(us[i])
	if p := us[i].prev; p >= 0 {
		add(us[p])
	}
	return found
}

// cellCoverage is the idf-weighted share of the question's terms that a
// table cell accounts for: those of its row (its cells and section label),
// of the row's first column header, of the cell's own column header and of
// the table's setting. Other columns' headers and the row above do not
// count: a row that names the question's key says which row, and only the
// cell's column says which of the row's values ("posted" is in the header
// of DATE POSTED, not of AMOUNT).
func cellCoverage(q *question, s scored, col int, idf map[string]float64) float64 {
	found := map[string]bool{}
	for _, c := range s.u.cells {
		for _, t := range stems(c) {
			found[t] = true
		}
	}
	texts := []string{s.u.group}
	if len(s.u.header) > 0 {
		texts = append(texts, s.u.header[0])
	}
	if col > 0 && col <= len(s.u.header) {
		texts = append(texts, s.u.header[col-1])
	}
	for _, t := range stems(strings.Join(texts, " ")) {
		found[t] = true
	}
	for t := range s.ctx {
		found[t] = true
	}
	_, w := termShare(q, found, idf)
	return w
}

// termShare is the share of the question's distinct terms in found:
// plain (covShare) and idf-weighted.
func termShare(q *question, found map[string]bool, idf map[string]float64) (plain, weighted float64) {
	seen := map[string]bool{}
	have, exact, all, wHave, wAll := 0, 0, 0, 0.0, 0.0
	for _, t := range q.terms {
		if seen[t] || !coverTerm(t) {
			continue
		}
		seen[t] = true
		all++
		wt := idf[t]
		wAll += wt
		if holds(found, t) {
			have++
			wHave += wt
			if found[t] {
				exact++
			}
		}
	}
	if all == 0 {
		return 1, 1
	}
	plain = covShare(have, exact, all)
	if wAll == 0 {
		return plain, float64(have) / float64(all)
	}
	return plain, wHave / wAll
}

// halfHeld reports whether found holds at least minCoverage of the
// question's distinct terms, without the enoughTerms floor of a long
// question.
func halfHeld(q *question, found map[string]bool) bool {
	have, _, all := heldTerms(q.terms, found)
	return float64(have) >= minCoverage*float64(all)
}

// heldTerms counts the distinct question terms q that count for coverage
// (all), those found holds (have, derived forms included) and those it
// holds as written (exact).
func heldTerms(q []string, found map[string]bool) (have, exact, all int) {
	seen := map[string]bool{}
	for _, t := range q {
		if seen[t] || !coverTerm(t) {
			continue
		}
		seen[t] = true
		all++
		if holds(found, t) {
			have++
			if found[t] {
				exact++
			}
		}
	}
	return have, exact, all
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
		for _, t := range c.terms {
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
	have, exact, all := heldTerms(q, found)
	if all == 0 {
		return 1
	}
	return covShare(have, exact, all)
}

// coverTerm reports whether question term t counts for coverage: the lone
// "s" of a possessive ("SPECTER's") and the "t" of a contraction ("don't")
// are no words of the question's topic, and a passage need not hold them.
func coverTerm(t string) bool { return t != "s" && t != "t" }

// holds reports whether found holds question term t, or a term sharing
// its first six letters when both have seven or more ("optimization" for
// "optimise", "initialization" for "initialize"), as nearness counts them:
// the light stemmer does not fold derivations.
func holds(found map[string]bool, t string) bool {
	if found[t] {
		return true
	}
	if len(t) < 7 {
		return false
	}
	for f := range found {
		if len(f) >= 7 && f[:6] == t[:6] {
			return true
		}
	}
	return false
}

// enoughTerms is how many of a long question's terms the cited spans must
// hold for it to be on topic, when that is fewer than half of them: a
// question of twenty terms that restates its paper's setting ("in the
// experiments of the … study, which …") is answered by a passage that
// holds the few terms of what it asks, not half of the twenty.
const enoughTerms = 6

// covShare is the coverage that the abstention rule compares with
// minCoverage: the share of the question's distinct terms held (have of
// all), and at least minCoverage once enoughTerms of them are held as
// written (exact): a derived form ("optimization" for "optimise") counts
// for the share, but a long question's floor asks for its own words.
func covShare(have, exact, all int) float64 {
	s := float64(have) / float64(all)
	if exact >= enoughTerms {
		s = max(s, minCoverage)
	}
	return s
}

// complementShare is the least score, relative to the best unit, that a
// second span needs.
const complementShare = 0.3

// complement serves questions with a part the best span leaves open, such
// as bridging questions ("the peak gust of the storm that flooded the East
// Arm"), whose evidence flow routing assembles from several nodes: it
// returns the best-scoring unit of another node that covers the most
// question terms missing from the best span and its setting, and how many
// it covers (0: none). us is sorted by score, so ties go to the higher
// score.
func complement(us []scored, best scored, qset map[string]bool) (scored, int) {
	missing := map[string]bool{}
	covered := map[string]bool{}
	for _, t := range best.terms {
		covered[t] = true
	}
	for t := range qset {
		if !covered[t] && !best.ctx[t] {
			missing[t] = true
		}
	}
	if len(missing) == 0 {
		return scored{}, 0
	}
	var pick scored
	gain, bridged := 0, false
	for _, s := range us {
		if s.node == best.node || s.score <= 0 || s.score < complementShare*best.score {
			continue
		}
		// A table row answers in its header's terms too ("Rated output").
		terms := s.terms
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
	return pick, gain
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
// normalised by the best score to [0, 1]. The slice is aligned with us;
// the map holds each query term's idf.
func bm25(q []string, us []scored) ([]float64, map[string]float64) {
	out := make([]float64, len(us))
	idfs := map[string]float64{}
	if len(us) == 0 || len(q) == 0 {
		return out, idfs
	}
	docs := make([][]string, len(us))
	df := map[string]int{}
	total := 0
	for i, s := range us {
		docs[i] = s.terms
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
			idfs[t] = idf
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
	return out, idfs
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
	return fmt.Sprintf("%s — %s: %s", rowLabel(u), u.header[best], u.cells[best])
}
