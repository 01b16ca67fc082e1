package reader

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ConfidenceThreshold is the confidence below which an extractive answer
// is a hint, not an answer: flowreader ask and the server then say they
// are not sure and show the best passage with the span highlighted. It was
// chosen on the tuning half of a question set over real documents
// (docs/offline-reader.md).
const ConfidenceThreshold = 0.55

// Weights of a candidate span's score: its unit's score (with context),
// how close the question's terms stand to it, and a bonus when the noun
// the question asks for stands next to it ("the FUNCTION_USAGE view",
// "a single Titan V GPU").
const (
	unitWeight = 0.45
	nearWeight = 0.55
	headBonus  = 0.1
	// nearScale is the distance, in words, at which a question term counts
	// half.
	nearScale = 6.0
)

// countsOther reports whether the number at words [a, b) counts another
// thing than the question does: it is a percentage, or its unit (the span's last word, or a unit
// word among the two after a lone number: "four TQA datasets") is a unit
// word that is no question term.
func countsOther(ws []word, a, b int, q *question) bool {
	if strings.HasSuffix(ws[b-1].text, "%") || b < len(ws) && strings.EqualFold(ws[b].text, "percent") {
		return true // a share, not a count
	}
	if b-a > 1 {
		return unitWords[strings.ToLower(ws[b-1].text)] && !hasQuestionTerm(ws[b-1], q)
	}
	for k := b; k < len(ws) && k < b+2 && !ws[k-1].brk; k++ {
		if hasQuestionTerm(ws[k], q) {
			return false
		}
		if unitWords[strings.ToLower(ws[k].text)] {
			return true
		}
	}
	return false
}

// isShare reports whether the number at words [a, b) is a share: a
// percentage ("60%", "60 percent") or a fraction written as a decimal
// below 1 ("0.6").
func isShare(ws []word, a, b int) bool {
	last := ws[b-1].text
	if strings.HasSuffix(last, "%") || b < len(ws) && (strings.EqualFold(ws[b].text, "percent") || strings.EqualFold(ws[b].text, "per")) {
		return true
	}
	for _, w := range ws[a:b] {
		if v, ok := cellValue(w.text); ok && v > 0 && v < 1 {
			return true
		}
	}
	return false
}

// otherUnitFit scales a number whose unit names another thing than the
// one the question counts.
const otherUnitFit = 0.5

// labelFit is the fit of a row's first cell, its name, for a question
// that asks what something is or does.
const labelFit = 0.3

// propertyFit is the fit of a number or name found next to the noun of a
// "what is the NOUN …" question, whose kind the wording leaves open.
const propertyFit = 0.9

// candidates returns the candidate spans of the kind q asks for in the
// best units (by eff), best first. It is empty for questions a sentence
// answers (other, definition) and when no span of the kind is found.
func (e *Extractive) candidates(in *Input, q *question, us []scored, order []int, idf map[string]float64, maxEff float64) []cand {
	var out []cand
	code := q.kind == kindName && codeNouns[q.head]
	top := order
	if len(top) > topUnits {
		top = top[:topUnits]
	}
	if q.kind == kindAcronym {
		// An expansion is found by its form wherever it is; the unit score
		// only orders several.
		for _, i := range order {
			ws := wordsOf(us[i].u.raw)
			if a, b, ok := expansion(ws, q.acronym); ok {
				c := cand{u: i, a: a, b: b, fit: 1}
				c.text = us[i].u.raw[ws[a].start:ws[b-1].end]
				c.start, c.end = ws[a].start, ws[b-1].end
				c.score = 0.5 + 0.5*us[i].eff/maxEff + prior(us[i].pos)
				out = append(out, c)
			}
		}
		sortCands(out)
		return out
	}
	rowsOnly, property := false, false
	switch {
	case q.kind == kindDefinition && q.head != "":
		// "What was the peak gust?": a number or a name next to the
		// property's noun answers it ("peak gust of 131 km/h"), else a
		// sentence does.
		property = true
	case q.kind == kindOther || q.kind == kindDefinition:
		// A sentence answers, unless the best unit is a table row: then
		// its cells are read by row and column ("What was the peak gust
		// of …").
		if us[order[0]].u.kind != unitRow {
			return nil
		}
		rowsOnly = true
	}
	bridge := bridgeTerms(us, order, q)
	for _, i := range top {
		s := us[i]
		if s.eff <= 0 {
			break
		}
		if s.u.kind == unitRow {
			out = append(out, cellCands(i, s, q, idf, maxEff, bridge)...)
			continue
		}
		if rowsOnly || numberedHeading(s.u.raw) {
			continue
		}
		ws := wordsOf(s.u.raw)
		var prevTerms map[string]bool
		if s.prev >= 0 {
			prevTerms = map[string]bool{}
			for _, t := range us[s.prev].terms {
				prevTerms[t] = true
			}
		}
		if cov, _ := unitCoverage(q, us, i, idf); cov < minCoverage {
			continue // the reader would abstain on this unit
		}
		// Whether the unit before introduces a span of this one, read once a
		// unit rather than once a span (see introduces).
		introHead := introduces(us, s.prev, q.head, false)
		introLine := code && introduces(us, s.prev, q.head, true)
		var cs []cand
		if property {
			for _, k := range []string{kindNumber, kindName} {
				qk := *q
				qk.kind = k
				for _, c := range spanCands(i, ws, &qk, false) {
					if nextToHead(ws, c.a, c.b, q.head) {
						c.fit *= propertyFit
						cs = append(cs, c)
					}
				}
			}
		} else {
			cs = spanCands(i, ws, q, code)
			if q.kind == kindName && q.head != "" && !code {
				cs = append(cs, headPhrases(i, s.u.raw, ws, q.head)...)
			}
			if q.kind == kindPerson {
				cs = append(cs, agents(i, ws, q)...)
			}
		}
		for _, c := range cs {
			if own(ws, c.a, c.b, q) || (isLink(s.u.raw[ws[c.a].start:ws[c.b-1].end]) && !linkNouns[q.head]) {
				continue
			}
			if q.kind != kindPerson && q.kind != kindDate && inCitation(s.u.raw, ws[c.a].start, ws[c.b-1].end) {
				continue
			}
			// A unit that a sentence ending in a colon introduces ("To sign
			// in …, run:" before "ollama signin") has that sentence for its
			// caption: its terms stand right before the span.
			if q.kind == kindNumber && shareNouns[q.head] && !isShare(ws, c.a, c.b) {
				// "What share of the data …": a count ("one domain") is
				// no share.
				c.fit *= otherUnitFit
			}
			intro := c.a == 0 && (introHead || introLine && c.b == len(ws))
			prevAt := c.a + 3
			if intro {
				prevAt = 0
			}
			near := nearness(ws, c.a, c.b, q, idf, prevTerms, s.ctx, prevAt)
			c.score = (unitWeight*s.eff/maxEff + nearWeight*near) * c.fit
			if q.head != "" && (nextToHead(ws, c.a, c.b, q.head) || intro) {
				c.score += headBonus
			}
			if keyed(ws, c.a, q) || q.kind == kindPerson && agentAt(ws, c.a, q) {
				c.score += headBonus
			}
			if (q.kind == kindNumber) && c.b-c.a > 1 && hasQuestionTerm(ws[c.b-1], q) {
				// "2 epochs" for "how many epochs": the value counts what
				// the question counts.
				c.score += headBonus
			} else if q.counted != "" && countsOther(ws, c.a, c.b, q) {
				// "four datasets" for "how many questions": the value
				// counts something else.
				c.score *= otherUnitFit
				c.fit *= otherUnitFit
			}
			c.score += prior(s.pos)
			c.start, c.end = ws[c.a].start, ws[c.b-1].end
			c.text = s.u.raw[c.start:c.end]
			out = append(out, c)
		}
	}
	if dir := superlative(q.text); dir != 0 {
		extreme(out, us, q, dir)
	}
	sortCands(out)
	return out
}

// headingRE is a numbered section heading run into the text ("5.1
// Dataset and Evaluation Metrics", "3 Experimental Setup"): a number, a
// capital, no sentence end.
var headingRE = regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?\s+\p{Lu}[^.!?:;]*$`)

// numberedHeading reports whether unit text t is a numbered section
// heading: it names its section and answers nothing, though it holds the
// question's words as a title does. Numbered list items ("1. Install
// …") are told apart by the title case of a heading numbered without
// a sub-number.
func numberedHeading(t string) bool {
	m := headingRE.FindStringSubmatch(strings.TrimSpace(t))
	if m == nil {
		return false
	}
	ws := wordsOf(t)
	if len(ws) > 10 {
		return false
	}
	if strings.Contains(m[1], ".") {
		return true
	}
	for _, w := range ws[1:] {
		if !stopwords[strings.ToLower(w.text)] && !isNamey(w.text) {
			return false
		}
	}
	return true
}

func prior(pos int) float64 { return orderPrior / float64(1+pos) }

func sortCands(cs []cand) {
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].score > cs[b].score })
}

// nearness is how close the question's terms stand to words [a, b): each
// distinct term, weighted by its idf, counts 1/(1 + d/nearScale) at its
// nearest occurrence d words away (0 inside the span); a term found only
// in the unit before counts as if it stood prevAt words away, one found
// only in the unit's setting (document, section, caption) counts 0.4.
func nearness(ws []word, a, b int, q *question, idf map[string]float64, prevTerms, ctx map[string]bool, prevAt int) float64 {
	pos := map[string][]int{}
	for k, w := range ws {
		for _, t := range w.stems {
			if q.set[t] {
				pos[t] = append(pos[t], k)
			} else if len(t) >= 7 {
				// "initialization" for "initialize": a shared stem of six
				// letters or more.
				for _, qt := range q.terms {
					if len(qt) >= 7 && t[:6] == qt[:6] {
						pos[qt] = append(pos[qt], k)
					}
				}
			}
		}
	}
	seen := map[string]bool{}
	num, den := 0.0, 0.0
	for _, t := range q.terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		wt := idf[t]
		if wt == 0 {
			wt = 0.1
		}
		den += wt
		best := -1
		for _, k := range pos[t] {
			d := 0
			switch {
			case k < a:
				d = a - k
			case k >= b:
				d = k - b + 1
			}
			if best < 0 || d < best {
				best = d
			}
		}
		switch {
		case best >= 0:
			num += wt / (1 + float64(best)/nearScale)
		case prevTerms[t]:
			num += wt / (1 + float64(prevAt)/nearScale)
		case ctx[t]:
			num += 0.4 * wt
		}
	}
	// A number the question states ("with 24-48 GiB") anchors its answer
	// as a whole: it weighs twice the rarest term.
	if len(q.nums) > 0 {
		top := 0.0
		for _, v := range idf {
			top = math.Max(top, v)
		}
		for n := range q.nums {
			best := -1
			for k, w := range ws {
				if normNum(w.text) == n {
					d := 0
					if k < a {
						d = a - k
					} else if k >= b {
						// A stated value is the key of its answer ("24-48
						// GiB VRAM: 32k"): one after the span counts
						// farther.
						d = 2 * (k - b + 1)
					}
					if best < 0 || d < best {
						best = d
					}
				}
			}
			den += 2 * top
			if best >= 0 {
				num += 2 * top / (1 + float64(best)/nearScale)
			}
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// nextToHead reports whether the head noun stands within two words of the
// span, or ends it.
//
// Inside the span the head counts only as a word of its own ("Titan V
// GPU"): an identifier that holds it ("OLLAMA_KV_CACHE_TYPE" for "What is
// the default quantization type …", "server_name" for "Which proxy
// server …") names a setting of that kind, not a value of it. "such as"
// and "including" between the head and the span are skipped ("a proxy
// server such as Nginx").
func nextToHead(ws []word, a, b int, head string) bool {
	from := a - 2
	if a >= 2 && strings.EqualFold(ws[a-1].text, "as") && strings.EqualFold(ws[a-2].text, "such") && !ws[a-2].brk {
		from = a - 4
	} else if a >= 1 && strings.EqualFold(ws[a-1].text, "including") {
		from = a - 3
	}
	for k := max(0, from); k < min(len(ws), b+2); k++ {
		if k >= a && k < b && len(ws[k].stems) > 1 {
			continue
		}
		for _, t := range ws[k].stems {
			if t == head {
				return true
			}
		}
	}
	return false
}

// introduces reports whether unit p (the unit before a span's unit) ends
// in a colon and introduces the span: by naming the head noun before the
// colon ("You can also set the environment variable:"), or, when whole,
// as the sentence before a line of code of its own ("To sign in …,
// run:"). It introduces the value the next unit states, as a heading or a
// key does.
func introduces(us []scored, p int, head string, whole bool) bool {
	if p < 0 {
		return false
	}
	ws := wordsOf(us[p].u.raw)
	if len(ws) == 0 || !strings.HasSuffix(ws[len(ws)-1].tail, ":") {
		return false
	}
	if whole {
		return true
	}
	for k := max(0, len(ws)-2); k < len(ws); k++ {
		for _, t := range ws[k].stems {
			if t == head {
				return true
			}
		}
	}
	return false
}

// linkNouns are the heads of questions a web address answers ("which
// URL", "what link").
var linkNouns = wordSet(`url urls link links address website site page homepage repository`)

// isLink reports whether span is a web address or Markdown link syntax
// ("bug](github/gh-ost/issues/687"): a citation's target, not a name.
func isLink(span string) bool {
	return strings.Contains(span, "://") || strings.Contains(span, "](") || strings.HasPrefix(strings.ToLower(span), "www.")
}

var (
	// citeAfterRE is what follows an author's name in a citation: "et
	// al.", ", 2019", "and Liang, 2015".
	citeAfterRE = regexp.MustCompile(`^\s*(?:et\s+al\b|(?:and|&)\s+\p{Lu}[\p{L}'-]*\s*,?\s*(?:19|20)\d\d|,\s*(?:19|20)\d\d)`)
	citeYearRE  = regexp.MustCompile(`^(?:19|20)\d\d[a-z]?$`)
)

// inCitation reports whether raw[start:end] is the author or year of a
// bibliographic citation ("(Liu et al., 2021)", "(Pasupat and Liang,
// 2015)", "2022b"): the paper cited, not what the question asks for. The
// name the citation comes after ("BART (Lewis et al., 2019)") is kept.
func inCitation(raw string, start, end int) bool {
	open := strings.LastIndexByte(raw[:start], '(')
	if open < 0 || strings.IndexByte(raw[open:start], ')') >= 0 {
		return false
	}
	span := raw[start:end]
	return citeAfterRE.MatchString(raw[end:]) || citeYearRE.MatchString(span)
}

// keyLinks are the words that bind a value to the key before it ("the
// default is 512", "default to 4", "size of 8").
var keyLinks = wordSet(`is are was were to of equals`)

// keyed reports whether the span starting at word a is the value of a
// question term written right before it as a key: "Default: 64", "top_k =
// 40", "defaults to 4", or with a preposition the question uses ("based
// on BART" for "On which model is TAPEX based?", also with an article
// between: "on the BART model"). The value bound to the key the question names is
// preferred over the values written after it ("(Default: 64, 0 =
// disabled)").
func keyed(ws []word, a int, q *question) bool {
	k := a - 1
	if k < 0 {
		return false
	}
	if a >= 3 && strings.EqualFold(ws[a-1].text, "as") && strings.EqualFold(ws[a-2].text, "such") && !ws[a-3].brk && !ws[a-2].brk {
		// "a proxy server such as Nginx": an instance of the class the
		// question names.
		return hasQuestionTerm(ws[a-3], q)
	}
	if k > 0 && determiners[strings.ToLower(ws[k].text)] && q.preps[strings.ToLower(ws[k-1].text)] && !ws[k-1].brk {
		// "evaluate TISE on the ACE05 dataset" for "Which dataset is TISE
		// evaluated on?": an article between the preposition and the value.
		k--
	}
	if l := strings.ToLower(ws[k].text); l != "=" && !keyLinks[l] && !q.preps[l] {
		// "Default: 64": the key ends with a colon.
		return strings.HasSuffix(ws[k].tail, ":") && hasQuestionTerm(ws[k], q)
	}
	if ws[k].brk || k == 0 {
		return false
	}
	return !ws[k-1].brk && hasQuestionTerm(ws[k-1], q)
}

// bridgeUnits is how many of the best prose units lend their terms to
// bridge a table row to the question.
const bridgeUnits = 3

// bridgeTerms are the terms of the best prose units beyond the question's
// own: a row that holds one ("14 May" after "the storm of 14 May flooded
// the East Arm") is the row those units speak of, the bridge of a
// two-step question.
func bridgeTerms(us []scored, order []int, q *question) map[string]bool {
	out := map[string]bool{}
	n := 0
	for _, i := range order {
		if n == bridgeUnits || us[i].eff <= 0 {
			break
		}
		if us[i].u.kind == unitRow {
			continue
		}
		n++
		for _, t := range us[i].terms {
			if !q.set[t] && len(t) > 2 {
				out[t] = true
			}
		}
	}
	return out
}

// bridged reports whether a row's cells hold two bridge terms, or one
// that is a number (a date, an ID).
func bridged(cells []string, bridge map[string]bool) bool {
	n := 0
	for _, c := range cells {
		for _, t := range stems(c) {
			if bridge[t] {
				n++
				if isNumeric(t) {
					n++
				}
			}
		}
	}
	return n >= 2
}

func colHasHead(col []string, head string) bool {
	for _, t := range col {
		if t == head {
			return true
		}
	}
	return false
}

// maxEntityWords is the longest cell (in words) other than the first that
// can name a row.
const maxEntityWords = 6

func hasQuestionTerm(w word, q *question) bool {
	for _, t := range w.stems {
		if q.set[t] {
			return true
		}
	}
	return false
}

// cellCands reads a table row as row/column pairs: the cells that hold the
// question's terms name the row (its entity), and every other cell is a
// candidate whose column header is scored against the question. A cell
// of the kind asked for (a number for a number question) fits best.
func cellCands(i int, s scored, q *question, idf map[string]float64, maxEff float64, bridge map[string]bool) []cand {
	cells, header := s.u.cells, s.u.header
	if s.u.label {
		return nil // a section label names the rows below; its stray cell is no value
	}
	// The head noun of a which-question names the kind asked for, not the
	// row's entity: "Mexico City" answers "Which city …". (Of a number
	// question it is the property: "temperature | … (Default: 0.8)".)
	kindHead := ""
	if q.kind == kindName || q.kind == kindPlace || q.kind == kindPerson {
		kindHead = q.head
	}
	entity := make([]bool, len(cells))
	rowTerms := map[string]bool{}
	for j, c := range cells {
		if j > 0 && len(strings.Fields(c)) > maxEntityWords {
			continue // prose: a candidate, never the row's name
		}
		for _, t := range stems(c) {
			if q.set[t] && t != kindHead {
				entity[j] = true
				rowTerms[t] = true
			}
		}
	}
	// The section label a row stands under names it as its first cell does
	// ("Edible Tallow ($/cwt)" over "Chicago"), and so does the header of
	// the first column, which names what the rows are ("Ethanol ($/gal)"
	// over "Iowa").
	first := ""
	if len(header) > 0 {
		first = header[0]
	}
	for _, t := range stems(s.u.group + " " + first) {
		if q.set[t] && t != kindHead {
			rowTerms[t] = true
		}
	}
	named := len(rowTerms) > 0
	var out []cand
	for j, c := range cells {
		if entity[j] || strings.TrimSpace(c) == "" {
			continue
		}
		// A term counts whole in the row's name or the column's header,
		// 0.4 in the table's setting (caption, section), as in nearness.
		terms := map[string]float64{}
		for t := range s.ctx {
			if q.set[t] {
				terms[t] = 0.4
			}
		}
		for t := range rowTerms {
			terms[t] = 1
		}
		var colTerms []string
		if j < len(header) {
			colTerms = stems(header[j])
			w := 1.0
			if s.u.borrowed {
				w = borrowedWeight
			}
			for _, t := range colTerms {
				terms[t] = max(terms[t], w)
			}
		}
		num, den := 0.0, 0.0
		seen := map[string]bool{}
		for _, t := range q.terms {
			if seen[t] {
				continue
			}
			seen[t] = true
			wt := idf[t]
			if wt == 0 {
				wt = 0.1
			}
			den += wt
			num += wt * terms[t]
		}
		// A number the question states in the column's header ("2025" in
		// "Nests 2025") anchors the column, as in nearness.
		if len(q.nums) > 0 && j < len(header) {
			top := 0.0
			for _, v := range idf {
				top = math.Max(top, v)
			}
			for _, w := range wordsOf(header[j]) {
				if q.nums[normNum(w.text)] {
					num += 2 * top
				}
			}
			den += 2 * top * float64(len(q.nums))
		}
		near := 0.0
		if den > 0 {
			near = num / den
		}
		head := 0.0
		for _, t := range colTerms {
			if t == q.head {
				head = headBonus
			}
		}
		if bridged(cells, bridge) {
			head += headBonus
		}
		if named {
			// The question names the row (a key, a label): its cells are
			// read before those of rows it names only through a column
			// ("Totals" the row, not a state's Totals column).
			head += namedRowBonus
		}
		if (q.kind == kindName || q.kind == kindPerson || q.kind == kindPlace) && q.head != "" && colHasHead(stems(c), q.head) {
			// "CITIBANK - SENATOR IBA CARD" for "Which card …": the cell
			// says it is of the kind asked for, as a name next to the
			// head noun does in prose.
			head += headBonus
		}
		fit := 0.8
		numeric := isNumeric(strings.Fields(c + " x")[0])
		ck := cellKind(c)
		switch q.kind {
		case kindNumber:
			switch {
			case ck == cellDate:
				fit = 0.3 // a date is no amount or count
			case numeric:
				fit = 1
			default:
				fit = 0.3
			}
		case kindDate:
			switch {
			case ck == cellDate || ck == cellYear:
				fit = 1
			default:
				fit = 0.3 // an amount or a name is no date
			}
		case kindName, kindPerson, kindPlace:
			switch {
			case ck == cellDate:
				fit = 0.3
			case numeric:
				fit = typedOtherFit
			default:
				fit = 1
			}
		case kindDefinition:
			// "What was the peak gust?" and a column "Peak gust (km/h)":
			// the cell is the property's value, as a number next to the
			// noun is in prose.
			if colHasHead(colTerms, q.head) {
				fit = propertyFit
			}
		}
		if j == 0 && (q.kind == kindDefinition || q.kind == kindOther) && !colHasHead(colTerms, q.head) {
			// The first cell names the row; "What does ADAPTER define?"
			// is answered by what the row says of its name, not by the
			// name of another row whose description shares a word with
			// the question.
			fit = labelFit
		}
		cd := cand{u: i, fit: fit, text: c, col: j + 1}
		cd.start, cd.end = spanIn(s.u.raw, c)
		cd.score = (unitWeight*s.eff/maxEff+nearWeight*near)*fit + head + prior(s.pos)
		out = append(out, cd)
		if (q.kind == kindNumber || q.kind == kindDate) && !numeric {
			// A value inside a cell of prose ("… (Default: 0.8)"): the
			// cell's own spans, near the question's terms in it.
			ws := wordsOf(c)
			off, _ := spanIn(s.u.raw, c)
			for _, sc := range spanCands(i, ws, q, false) {
				in := nearness(ws, sc.a, sc.b, q, idf, nil, nil, 0)
				sc.col = j + 1
				sc.start, sc.end = off+ws[sc.a].start, off+ws[sc.b-1].end
				sc.text = c[ws[sc.a].start:ws[sc.b-1].end]
				sc.score = (unitWeight*s.eff/maxEff+nearWeight*(0.5*near+0.5*in))*sc.fit + head + prior(s.pos)
				if keyed(ws, sc.a, q) {
					sc.score += headBonus
				}
				out = append(out, sc)
			}
		}
	}
	return out
}

// borrowedWeight is how much a term of a column header borrowed from an
// earlier table (borrowHeader) counts: the layout is a guess, less sure
// than a header printed over the table.
const borrowedWeight = 0.5

// namedRowBonus is added to the cells of a row that the question names by
// a term of its own cells or section label.
const namedRowBonus = 0.05

// typedOtherFit is the fit of a number cell for a question that asks for a
// name: a name is sometimes written with digits, a date never answers.
const typedOtherFit = 0.5

// Cell kinds: what a table cell holds, read from its form.
const (
	cellText = iota
	cellNumber
	cellYear
	cellDate
)

var (
	// dateCellRE is a date written with digits: 05/28/2019, 2019-05-28,
	// 28.05.2019 (not 3/4, which may be a fraction).
	dateCellRE = regexp.MustCompile(`^(?:\d{1,2}[/.-]\d{1,2}[/.-](?:\d{2}|\d{4})|\d{4}-\d{1,2}-\d{1,2})$`)
	// monthDateRE is a date with a month's name: "Feb 24, 2017", "24 May
	// 2019", "Fri, Feb 24, 2017", "March 2025".
	monthDateRE = regexp.MustCompile(`(?i)^(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:\s+\d{1,2}(?:st|nd|rd|th)?,?)?(?:\s+\d{4})?$`)
)

// cellKind reads what a cell holds: a date, a year, a number (an amount,
// a count, a range of them) or text.
func cellKind(c string) int {
	c = strings.TrimSpace(c)
	switch {
	case dateCellRE.MatchString(c) || monthDateRE.MatchString(c) && strings.ContainsAny(c, "0123456789"):
		return cellDate
	case yearRE.MatchString(c):
		return cellYear
	case isNumeric(strings.Fields(c + " x")[0]):
		return cellNumber
	}
	return cellText
}

// superlative reads the direction of a question's superlative: +1 for
// the largest, highest, most …, −1 for the smallest, lowest, least …, 0
// for none.
func superlative(q string) int {
	for _, w := range strings.Fields(strings.ToLower(q)) {
		switch strings.Trim(w, "?,.;:") {
		case "largest", "highest", "most", "biggest", "greatest", "maximum", "longest", "best":
			return 1
		case "smallest", "lowest", "least", "fewest", "minimum", "shortest", "worst":
			return -1
		}
	}
	return 0
}

// extreme serves a superlative over a table ("Which city has the largest
// population?"): among the rows of one table that are candidates, it
// finds the column the question's terms name, with a number in every
// row, and gives the candidates of the row with the extreme value the
// head-noun bonus. The rows compete on their values, not on how many
// question words their labels hold.
func extreme(cs []cand, us []scored, q *question, dir int) {
	rows := map[int][]int{} // node → row units among the candidates
	seen := map[int]bool{}
	for _, c := range cs {
		if us[c.u].u.kind == unitRow && !seen[c.u] {
			seen[c.u] = true
			rows[us[c.u].node] = append(rows[us[c.u].node], c.u)
		}
	}
	for _, rs := range rows {
		if len(rs) < 2 {
			continue
		}
		header := us[rs[0]].u.header
		for j := 1; j < len(header); j++ {
			named := false
			for _, t := range stems(header[j]) {
				named = named || q.set[t]
			}
			if !named {
				continue
			}
			best, bestV, ok := -1, 0.0, true
			for _, r := range rs {
				cells := us[r].u.cells
				if j >= len(cells) {
					ok = false
					break
				}
				v, isNum := cellValue(cells[j])
				if !isNum {
					ok = false
					break
				}
				if best < 0 || float64(dir)*(v-bestV) > 0 {
					best, bestV = r, v
				}
			}
			if !ok || best < 0 {
				continue
			}
			for k := range cs {
				if cs[k].u == best {
					cs[k].score += headBonus
				}
			}
			break
		}
	}
}

// cellValue reads a table cell as a number: "20,116,842", "$3.50",
// "12.5%".
func cellValue(c string) (float64, bool) {
	f := strings.Fields(c)
	if len(f) == 0 {
		return 0, false
	}
	t := strings.NewReplacer(",", "", "$", "", "€", "", "£", "", "%", "", "−", "-").Replace(f[0])
	v, err := strconv.ParseFloat(t, 64)
	return v, err == nil
}
