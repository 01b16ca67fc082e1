package reader

import (
	"regexp"
	"strings"
	"unicode"
)

// Answer kinds: what a question asks for, read from its wording alone
// (the extractive reader's answer typing; no model).
const (
	kindOther      = "other"      // a sentence: why, how, yes/no, lists
	kindNumber     = "number"     // how many / how much / what value, size, rate …
	kindDate       = "date"       // when / what year
	kindPerson     = "person"     // who
	kindPlace      = "place"      // where / which city, country …
	kindName       = "name"       // which/what NOUN: a named thing
	kindAcronym    = "acronym"    // what does X stand for
	kindDefinition = "definition" // what is X / what does X do
)

// question is what the extractive reader reads from a question.
type question struct {
	text string
	kind string
	// terms are the question's stemmed terms (stop words out); set the
	// same as a set.
	terms []string
	set   map[string]bool
	// head is the stem of the noun a which/what question asks for ("gpu"
	// in "On which GPU …", "command" in "Which command …"); "" when none.
	head string
	// acronym is the abbreviation an acronym question asks to expand.
	acronym string
	// nums are the question's own numbers (normalised): a number the
	// question states is not its answer.
	nums map[string]bool
	// plural: the noun asked for is plural ("Which datasets …"): the
	// answer may be a list.
	plural bool
	// preps are the prepositions the question binds its answer with ("On
	// which model is TAPEX based?"): "based on BART" binds BART as "the
	// default is 512" binds 512.
	preps map[string]bool
	// counted is the stem of what a "how many" question counts ("node"
	// in "How many unique paper nodes …"), "" for other questions. It is
	// not the head: a column or a word that names it does not make a
	// value the answer (a table of other questions has "#Questions" too),
	// but a value that counts something else is not.
	counted string
}

// quantityNouns make a what/which question a number question ("What
// speed-up …", "What F1 …", "Which port …").
var quantityNouns = wordSet(`number numbers count amount size length value values rate percentage percent share proportion
	fraction ratio score scores accuracy f1 precision recall bleu rouge speed speedup speed-up port version temperature
	margin batch capability cost price duration frequency dimension dimensionality weight height width depth population
	total average mean median maximum minimum limit threshold budget quantity degree level error loss perplexity
	improvement gain increase decrease difference time times distance area volume capacity memory performance
	result results`)

// nameNouns make a what/which question ask for something that is written
// as code or a proper name.
var codeNouns = wordSet(`command commands variable variables flag flags option options parameter parameters setting settings
	function functions instruction instructions key keys field fields endpoint endpoints path file files directory folder
	view table column method class package module library libraries tool tools api`)

var placeNouns = wordSet(`city cities country countries state states region regions place location locations town village
	continent province county island river lake site venue`)

var personNouns = wordSet(`person people author authors researcher researchers inventor founder leader president director
	scientist editor writer ceo manager`)

var dateNouns = wordSet(`year years date dates day month decade century`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	// acronymRE finds "what does X stand for", "what is X short for",
	// "what is the full form of X", "expand X".
	acronymRE = regexp.MustCompile(`(?i)\b(?:what\s+(?:does|do|did|is|was)\s+(?:the\s+)?(?:acronym\s+|abbreviation\s+|name\s+)?(\S+)\s+(?:stand|short)\s+for|(?:full\s+form|expansion|long\s+form)\s+of\s+(?:the\s+)?(?:acronym\s+|abbreviation\s+)?(\S+)|expand\s+(\S+))`)
	// meanRE finds "what does X mean" for an all-capitals X.
	meanRE = regexp.MustCompile(`(?i)\bwhat\s+(?:does|do|is)\s+(\S+)\s+(?:mean|abbreviate)`)
)

// acronymFrame are the stems of an acronym question's frame ("stand for",
// "short for", "full form of", "mean"): a passage that expands the
// acronym need not repeat them ("Sequential Question Answering (SQA)"),
// so they neither rank units nor count as open terms.
var acronymFrame = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range stems("stand stands short full long form expansion expand mean means abbreviate acronym abbreviation") {
		m[t] = true
	}
	return m
}()

// dropFrame removes the acronym frame's terms from q's terms.
func (q *question) dropFrame() *question {
	kept := q.terms[:0]
	for _, t := range q.terms {
		if acronymFrame[t] {
			delete(q.set, t)
			continue
		}
		kept = append(kept, t)
	}
	q.terms = kept
	return q
}

// analyse reads the question's answer kind, head noun and acronym.
func analyse(q string) *question {
	out := &question{text: q, kind: kindOther, set: map[string]bool{}, nums: map[string]bool{}}
	out.terms = stems(q)
	for _, t := range out.terms {
		out.set[t] = true
	}
	for _, w := range wordsOf(q) {
		if isNumeric(w.text) {
			out.nums[normNum(w.text)] = true
		}
		if l := strings.ToLower(w.text); bindPreps[l] {
			if out.preps == nil {
				out.preps = map[string]bool{}
			}
			out.preps[l] = true
		}
	}
	if m := acronymRE.FindStringSubmatch(q); m != nil {
		for _, g := range m[1:] {
			if a := strings.Trim(g, `"'“”‘’?.,()`); g != "" && a != "" {
				out.kind, out.acronym = kindAcronym, a
				return out.dropFrame()
			}
		}
	}
	if m := meanRE.FindStringSubmatch(q); m != nil {
		if a := strings.Trim(m[1], `"'“”‘’?.,()`); isAcronym(a) {
			out.kind, out.acronym = kindAcronym, a
			return out.dropFrame()
		}
	}
	lw := strings.Fields(strings.ToLower(strings.NewReplacer("?", " ", ",", " ", "'s", "").Replace(q)))
	at := func(i int) string {
		if i >= 0 && i < len(lw) {
			return lw[i]
		}
		return ""
	}
	// The wh-word: the first of who/when/where/how/which/what.
	wh := -1
	for i, w := range lw {
		switch w {
		case "who", "whom", "whose", "when", "where", "how", "which", "what":
			wh = i
		}
		if wh >= 0 {
			break
		}
	}
	if wh < 0 {
		return out // yes/no or an instruction: a sentence answers it
	}
	switch lw[wh] {
	case "who", "whom", "whose":
		out.kind = kindPerson
		return out
	case "when":
		out.kind = kindDate
		return out
	case "where":
		out.kind = kindPlace
		return out
	case "how":
		switch at(wh + 1) {
		case "many", "much", "long", "large", "big", "old", "far", "fast", "high", "tall", "often", "deep", "wide", "heavy", "small", "short":
			out.kind = kindNumber
		}
		if m := at(wh + 1); m == "many" || m == "much" {
			// "How many unique paper nodes …": the head is what is
			// counted, the last of the content words after "many".
			for j := wh + 2; j < len(lw) && j < wh+5 && !stopwords[lw[j]] && !auxiliaries[lw[j]]; j++ {
				out.counted = stem(lw[j])
			}
		}
		return out
	}
	// which/what: the noun asked for is the first content word after it
	// (skipping determiners and auxiliaries), the head the last of a short
	// run of content words ("which GPU", "what compute capability").
	i := wh + 1
	for i < len(lw) && (lw[i] == "is" || lw[i] == "are" || lw[i] == "was" || lw[i] == "were" || lw[i] == "the" || lw[i] == "a" || lw[i] == "an" || lw[i] == "of" || lw[i] == "kind" || lw[i] == "type" || lw[i] == "sort") {
		i++
	}
	if countWords[at(i)] && i+1 < len(lw) && !stopwords[lw[i+1]] && !auxiliaries[lw[i+1]] {
		// "Which two fact checking datasets …": the count says how many
		// names the answer lists; it is not the noun asked for, and it
		// must not push the noun out of the run.
		i++
		out.plural = true
	}
	var run []string
	for j := i; j < len(lw) && j < i+3; j++ {
		w := lw[j]
		if stopwords[w] || auxiliaries[w] {
			break
		}
		run = append(run, w)
	}
	aux := at(wh+1) == "is" || at(wh+1) == "are" || at(wh+1) == "was" || at(wh+1) == "were" || at(wh+1) == "does" || at(wh+1) == "do"
	if n := len(run); !aux && n >= 2 && verbNext[at(i+n)] && !kindNoun(run[n-1]) {
		// "Which card paid for …", "Which agency publishes the …": with no
		// auxiliary after the wh-word, a last word that takes an object or
		// a preposition (not "of") is the question's verb, not the noun
		// asked for; the head is the noun before it.
		run = run[:n-1]
	}
	for _, w := range run {
		switch {
		case codeNouns[w] || codeNouns[stem(w)]:
			// "Which variable limits …": a name, though "limit" is a
			// quantity.
			out.kind = kindName
		case quantityNouns[w] || quantityNouns[stem(w)]:
			out.kind = kindNumber
		case dateNouns[w] || dateNouns[stem(w)]:
			out.kind = kindDate
		case placeNouns[w] || placeNouns[stem(w)]:
			out.kind = kindPlace
		case personNouns[w] || personNouns[stem(w)]:
			out.kind = kindPerson
		}
		if out.kind != kindOther {
			out.head = stem(w)
			return out
		}
	}
	if len(run) > 0 {
		last := run[len(run)-1]
		out.plural = out.plural || strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && stem(last) != last
	}
	switch {
	case len(run) > 0 && !aux:
		// "Which library converts …", "What GPU …"; in "Which environment
		// variable sets …" the head is the noun, not the verb after it.
		out.kind, out.head = kindName, stem(run[len(run)-1])
		for _, w := range run {
			if codeNouns[w] || codeNouns[stem(w)] {
				out.head = stem(w)
				break
			}
		}
	case aux && len(run) > 0 && (at(wh+1) == "is" || at(wh+1) == "was") && (at(wh+2) == "the" || at(wh+2) == "a" || at(wh+2) == "an") && namedRun(run):
		// "What is the default quantization type of …": a named value of
		// a property; "What is the problem of …" is a definition.
		out.kind, out.head = kindName, stem(run[len(run)-1])
	case aux:
		// "What is X?", "What does X do?", "What are hard negatives?"
		out.kind = kindDefinition
		if len(run) > 0 && (at(wh+2) == "the" || at(wh+2) == "a" || at(wh+2) == "an") {
			// "What was the peak gust …": a property whose value may be a
			// number or a name standing next to it.
			out.head = stem(run[len(run)-1])
		}
	}
	return out
}

// nameNouns are the nouns of "what is the NOUN of …" questions whose
// answer is a named thing, not a description.
var nameNouns = wordSet(`type name format model dataset corpus tool method algorithm architecture language framework
	software system platform toolkit package library metric measure baseline approach technique classifier encoder decoder
	optimizer gpu cpu device service company organization university venue conference journal publisher product brand
	protocol standard license default`)

func namedRun(run []string) bool {
	for _, w := range run {
		if nameNouns[w] || nameNouns[stem(w)] || codeNouns[w] || codeNouns[stem(w)] {
			return true
		}
	}
	return false
}

// countWords are the counts a which/what question may set before its
// noun ("Which two datasets …", "What 3 metrics …").
var countWords = wordSet(`two three four five six seven eight nine ten 2 3 4 5 6 7 8 9 10`)

// shareNouns make a number question ask for a share: a percentage or a
// fraction answers it, a count does not.
var shareNouns = wordSet(`share percentage percent proportion fraction`)

// bindPreps are the prepositions that bind a value to a question term
// when the question uses them too.
var bindPreps = wordSet(`on from by with into onto`)

// verbNext are the words that, right after the noun run of a which/what
// question, show its last word to be a verb: a determiner or a
// preposition other than "of" (a noun takes "of": "which version of").
var verbNext = wordSet(`the a an this that these those its their his her for to from by with on in at into onto`)

// kindNoun reports whether w is one of the nouns that set an answer kind.
func kindNoun(w string) bool {
	for _, set := range []map[string]bool{codeNouns, quantityNouns, dateNouns, placeNouns, personNouns, nameNouns} {
		if set[w] || set[stem(w)] {
			return true
		}
	}
	return false
}

// auxiliaries end the noun run of a which/what question.
var auxiliaries = wordSet(`does do did is are was were has have had can could should would will may might must shall`)

// isAcronym reports whether w is written as an abbreviation: at least two
// letters, mostly capitals ("RCAC", "SPECTER", "TRUE-UIE", "OTSL").
func isAcronym(w string) bool {
	up, letters := 0, 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				up++
			}
		}
	}
	return letters >= 2 && up*3 >= letters*2
}
