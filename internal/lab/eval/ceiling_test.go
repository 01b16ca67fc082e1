package eval

import (
	"context"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/local"
	"github.com/flowreader/flowreader/score"
)

// sentenceEnd splits a node's text into sentences for the ceiling: after
// . ! or ? and white space before a capital, and at line breaks.
var sentenceEnd = regexp.MustCompile(`([.!?])\s+([A-Z])`)

func ceilingSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, s := range strings.Split(sentenceEnd.ReplaceAllString(line, "$1\x00$2"), "\x00") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// maxSpanWords is the longest span the span ceiling tries.
const maxSpanWords = 40

// spanCeiling is the best answer F1 of any run of at most maxSpanWords
// words of one sentence, against any reference: the F1 an extractive
// reader that picks the perfect span of the evidence would reach.
func spanCeiling(sentences, refs []string) float64 {
	best := 0.0
	for _, ref := range refs {
		r := strings.Fields(NormalizeAnswer(ref))
		if len(r) == 0 {
			continue
		}
		want := map[string]int{}
		for _, t := range r {
			want[t]++
		}
		for _, s := range sentences {
			ws := strings.Fields(NormalizeAnswer(s))
			for a := range ws {
				got := map[string]int{}
				same := 0
				for b := a; b < len(ws) && b-a < maxSpanWords; b++ {
					got[ws[b]]++
					if got[ws[b]] <= want[ws[b]] {
						same++
					}
					if same > 0 {
						p, rc := float64(same)/float64(b-a+1), float64(same)/float64(len(r))
						best = max(best, 2*p*rc/(p+rc))
					}
				}
			}
		}
	}
	return best
}

// TestAnswerF1Ceiling measures how far an extractive reader can go on
// QASPER and PaperTab (data directory $FLOWREADER_F1_CEILING; skipped
// without it): over the evidence each router reads at budget 16, the answer
// F1 of the best whole node, the best sentence and the best span of at most
// 40 words, beside the extractive reader's own.
//
//	FLOWREADER_F1_CEILING=/path/to/data go test -count=1 -run TestAnswerF1Ceiling -v ./internal/lab/eval
func TestAnswerF1Ceiling(t *testing.T) {
	data := os.Getenv("FLOWREADER_F1_CEILING")
	if data == "" {
		t.Skip("FLOWREADER_F1_CEILING (the evaluation data directory) is not set")
	}
	emb := local.Embedder()
	reg := DefaultRegistry()
	specs, err := reg.Specs([]string{"aspects", "topk"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sets []*Dataset
	for _, name := range []string{"qasper", "papertab"} {
		ds, err := Load(name, data, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, ds)
	}
	type sums struct{ n, reader, node, sentence, span float64 }
	var mu sync.Mutex
	agg := map[string]*sums{}
	ans := ExtractiveAnswerer(emb)
	run := &Runner{Embedder: emb, Scorings: reg.Scorings(), Routers: specs, Budgets: []int{16}}
	run.Extract = func(ctx context.Context, rs *RouterSpec, q *Question, g *graph.Graph, sc *score.Scores, chains []flow.Chain) (string, error) {
		a, err := ans(ctx, rs, q, g, sc, chains)
		if err != nil {
			return "", err
		}
		node, sentence := 0.0, 0.0
		var sents []string
		seen := map[int]bool{}
		for _, c := range chains {
			for _, v := range c.Nodes {
				if seen[v] {
					continue
				}
				seen[v] = true
				node = max(node, AnswerF1(g.Nodes[v].Content, q.AnswerRefs))
				for _, s := range ceilingSentences(g.Nodes[v].Content) {
					sents = append(sents, s)
					sentence = max(sentence, AnswerF1(s, q.AnswerRefs))
				}
			}
		}
		span := spanCeiling(sents, q.AnswerRefs)
		ds := "qasper"
		if len(q.MainDocs) > 0 {
			ds = "papertab"
		}
		mu.Lock()
		defer mu.Unlock()
		k := ds + " " + rs.Name
		if agg[k] == nil {
			agg[k] = &sums{}
		}
		s := agg[k]
		s.n++
		s.reader += AnswerF1(a, q.AnswerRefs)
		s.node += node
		s.sentence += sentence
		s.span += span
		return a, nil
	}
	if _, err := run.Run(context.Background(), sets...); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"qasper aspects", "qasper topk", "papertab aspects", "papertab topk"} {
		s := agg[k]
		if s == nil || s.n == 0 {
			t.Errorf("%s: no extractive question", k)
			continue
		}
		t.Logf("%-17s %3.0f questions: reader %.1f; best node %.1f, best sentence %.1f, best span of ≤ %d words %.1f",
			k, s.n, 100*s.reader/s.n, 100*s.node/s.n, 100*s.sentence/s.n, maxSpanWords, 100*s.span/s.n)
	}
}

// The span ceiling is at least the sentence's own F1 when the sentence is
// short, and finds the exact answer inside a longer one.
func TestSpanCeiling(t *testing.T) {
	refs := []string{"16 datasets"}
	if got := spanCeiling([]string{"We evaluate on 16 datasets, spanning 7 diverse IE tasks."}, refs); got != 1 {
		t.Errorf("span ceiling %v, want 1", got)
	}
	if got := spanCeiling([]string{"no overlap here"}, refs); got != 0 {
		t.Errorf("span ceiling %v, want 0", got)
	}
	s := ceilingSentences("First one. Second one!\nThird e.g. not split")
	if len(s) != 3 || s[2] != "Third e.g. not split" {
		t.Errorf("sentences %q", s)
	}
}
