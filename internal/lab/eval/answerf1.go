package eval

import (
	"context"
	"strings"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/score"
)

// asciiPunct is Python's string.punctuation, which QASPER's evaluator strips.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// NormalizeAnswer is QASPER's (and SQuAD's) answer normalisation: lower
// case, ASCII punctuation removed, the articles a, an and the removed, white
// space collapsed.
func NormalizeAnswer(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(asciiPunct, r) {
			continue
		}
		b.WriteRune(r)
	}
	words := strings.Fields(b.String())
	out := words[:0]
	for _, w := range words {
		if w != "a" && w != "an" && w != "the" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// TokenF1 is the token-level F1 of a predicted against a reference answer
// after NormalizeAnswer (bag of tokens, counted with multiplicity); 0 when
// they share no token.
func TokenF1(pred, ref string) float64 {
	p := strings.Fields(NormalizeAnswer(pred))
	r := strings.Fields(NormalizeAnswer(ref))
	if len(p) == 0 || len(r) == 0 {
		return 0 // as QASPER's evaluator: no common token
	}
	count := make(map[string]int, len(r))
	for _, t := range r {
		count[t]++
	}
	same := 0
	for _, t := range p {
		if count[t] > 0 {
			count[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	prec := float64(same) / float64(len(p))
	rec := float64(same) / float64(len(r))
	return 2 * prec * rec / (prec + rec)
}

// qasperReference is the answer string QASPER's evaluator compares against:
// extractive spans joined by ", ", else the free-form answer, "Yes"/"No",
// or "Unanswerable".
func (a qasperAnswer) reference() string {
	switch {
	case a.Unanswerable:
		return "Unanswerable"
	case len(a.Extractive) > 0:
		return strings.Join(a.Extractive, ", ")
	case a.FreeForm != "":
		return a.FreeForm
	case a.YesNo != nil && *a.YesNo:
		return "Yes"
	case a.YesNo != nil:
		return "No"
	}
	return ""
}

// AnswerF1 is QASPER's answer F1: the best TokenF1 over the references
// (one per annotator); 0 without references.
func AnswerF1(pred string, refs []string) float64 {
	best := 0.0
	for _, r := range refs {
		best = max(best, TokenF1(pred, r))
	}
	return best
}

// ExtractiveAnswerer answers with reader.Extractive over the chains read
// (no generative model): the best-matching verbatim span of their nodes.
// emb, when set, adds embedding cosine to the reader's ranking. It reads
// neither the router nor the scores.
func ExtractiveAnswerer(emb llm.Embedder) AnswerFunc {
	rd := &reader.Extractive{Embedder: emb}
	return func(ctx context.Context, _ *RouterSpec, q *Question, g *graph.Graph, _ *score.Scores, chains []flow.Chain) (string, error) {
		if len(chains) == 0 {
			return "", nil
		}
		a, err := rd.Read(ctx, &reader.Input{Question: q.Text, Graph: g, Chains: chains})
		if err != nil {
			return "", err
		}
		return a.Text, nil
	}
}
