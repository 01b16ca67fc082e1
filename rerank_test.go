package flowreader_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
)

// wordReranker scores a text by the share of the question's words it
// holds, and records what it was sent.
type wordReranker struct {
	calls int
	texts []string
	err   error
	bad   bool // answer a score outside [0, 1]
}

func (r *wordReranker) Rerank(ctx context.Context, q string, texts []string) ([]float64, error) {
	r.calls++
	r.texts = texts
	if r.err != nil {
		return nil, r.err
	}
	out := make([]float64, len(texts))
	words := strings.Fields(strings.ToLower(q))
	for i, t := range texts {
		t = strings.ToLower(t)
		for _, w := range words {
			if strings.Contains(t, strings.Trim(w, "?")) {
				out[i]++
			}
		}
		out[i] /= float64(len(words))
	}
	if r.bad {
		out[0] = 3.5
	}
	return out, nil
}

const rerankQ = "Which storm flooded the East Arm in May?"

// The reranker's scores are fused into h as the package doc says, on the
// top RerankTop nodes, and h keeps its scale; the scores reported are the
// ones routing used.
func TestRerankFusion(t *testing.T) {
	_, base := build(t, flowreader.Config{})
	s0, err := base.Score(context.Background(), rerankQ)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		top int
		w   float64
	}{{0, 0}, {2, 0.5}, {3, 1}, {64, 0.25}} {
		r := &wordReranker{}
		cfg := flowreader.Config{Reranker: r, RerankTop: c.top, RerankWeight: c.w}
		p2, err := flowreader.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := p2.Open(context.Background(), base.Graph())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ix.Score(context.Background(), rerankQ)
		if err != nil {
			t.Fatal(err)
		}
		top, w := c.top, c.w
		if top == 0 {
			top = 64
		}
		if w == 0 {
			w = 0.5
		}
		// The expected scores, from the unreranked ones.
		var order []int
		for v, x := range s0.H {
			if x > 0 {
				order = append(order, v)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case s0.H[a] > s0.H[b]:
				return -1
			case s0.H[a] < s0.H[b]:
				return 1
			}
			return a - b
		})
		order = order[:min(top, len(order))]
		if r.calls != 1 || len(r.texts) != len(order) {
			t.Fatalf("top %d: %d calls with %d texts, want 1 with %d", c.top, r.calls, len(r.texts), len(order))
		}
		rho, _ := (&wordReranker{}).Rerank(context.Background(), rerankQ, r.texts)
		want := make([]float64, len(s0.H))
		for v, x := range s0.H {
			want[v] = (1 - w) * x
		}
		for i, v := range order {
			want[v] += w * rho[i]
		}
		m := slices.Max(want)
		for v := range want {
			want[v] *= slices.Max(s0.H) / m
		}
		for v := range want {
			if math.Abs(s.H[v]-want[v]) > 1e-12 {
				t.Fatalf("top %d w %v: h[%d] = %v, want %v", c.top, c.w, v, s.H[v], want[v])
			}
		}
		if s.Steps[len(s.Steps)-1] != "rerank" || len(s.Reranked) != len(order) || len(s.Rerank) != len(s.H) {
			t.Fatalf("steps %v, reranked %v", s.Steps, s.Reranked)
		}
		// Ask reports these scores and counts the call.
		res, err := ix.Ask(context.Background(), rerankQ, flowreader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Usage.RerankCalls != 1 || !slices.Contains(res.Evidence.Scoring, "rerank") {
			t.Fatalf("usage %+v, scoring %v", res.Usage, res.Evidence.Scoring)
		}
		for _, ch := range res.Evidence.Chains {
			for _, n := range ch.Nodes {
				if n.Score != s.H[n.Node] {
					t.Fatalf("node %d reported %v, routed with %v", n.Node, n.Score, s.H[n.Node])
				}
			}
		}
	}
}

// A failing reranker fails the question; one that answers outside [0, 1]
// too; bad settings are refused by New.
func TestRerankErrors(t *testing.T) {
	_, base := build(t, flowreader.Config{})
	for _, r := range []*wordReranker{{err: llm.ErrUnavailable}, {bad: true}} {
		p, err := flowreader.New(flowreader.Config{Reranker: r})
		if err != nil {
			t.Fatal(err)
		}
		ix, _ := p.Open(context.Background(), base.Graph())
		_, err = ix.Ask(context.Background(), rerankQ, flowreader.Options{})
		if r.err != nil && !errors.Is(err, llm.ErrUnavailable) || r.bad && !errors.Is(err, llm.ErrInvalidOutput) {
			t.Fatalf("err %v", err)
		}
	}
	for _, cfg := range []flowreader.Config{{RerankTop: -1}, {RerankWeight: 1.5}, {RerankWeight: -0.1}, {RerankWeight: math.NaN()}} {
		if _, err := flowreader.New(cfg); !errors.Is(err, flowreader.ErrConfig) {
			t.Fatalf("%+v: %v", cfg, err)
		}
	}
}
