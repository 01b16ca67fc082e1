package flowreader

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/score"
)

// Reranking defaults (Config.RerankTop, Config.RerankWeight) and the text
// a node is reranked on: at most rerankChars runes of it, about the 512
// tokens cross-encoders such as bge-reranker read.
const (
	defaultRerankTop    = 64
	defaultRerankWeight = 0.5
	rerankChars         = 2000
)

// rerank fuses Config.Reranker's scores into s.H, the node score routing,
// selection and reading use (the package doc's "Reranking"): the top n
// nodes by h (ties by index) are scored against the question, ρ_v ∈ [0, 1],
// and
//
//	h̃_v = (1−w)·h_v + w·ρ_v   (ρ_v = 0 for a node not reranked)
//	h'_v = h̃_v · max_u h_u / max_u h̃_u
//
// so that h' keeps h's scale (max 1 for the aspects score, which the
// demand floor is set against). s.Rerank holds ρ, s.Reranked the nodes
// scored, and s.Steps ends in "rerank". Without a reranker, or with no
// node of positive h, s is left as it is.
func (ix *Index) rerank(ctx context.Context, s *score.Scores) error {
	r := ix.p.reranker
	if r == nil {
		return nil
	}
	n := ix.p.cfg.RerankTop
	if n == 0 {
		n = defaultRerankTop
	}
	w := ix.p.cfg.RerankWeight
	if w == 0 {
		w = defaultRerankWeight
	}
	top := topNodes(s.H, n)
	if len(top) == 0 {
		return nil
	}
	if err := ix.withText(ctx, s, top); err != nil {
		return err
	}
	g := ix.graphOf(s)
	texts := make([]string, len(top))
	for i, v := range top {
		texts[i] = rerankText(&g.Nodes[v])
	}
	rho, err := r.Rerank(ctx, s.Question, texts)
	if err != nil {
		return fmt.Errorf("flowreader: rerank: %w", err)
	}
	if len(rho) != len(top) {
		return fmt.Errorf("flowreader: rerank: %w: %d scores for %d texts", llm.ErrInvalidOutput, len(rho), len(top))
	}
	for i, x := range rho {
		if math.IsNaN(x) || x < 0 || x > 1 {
			return fmt.Errorf("flowreader: rerank: %w: score %d is %v, outside [0, 1]", llm.ErrInvalidOutput, i, x)
		}
	}
	h := make([]float64, len(s.H))
	maxH := 0.0
	for v, x := range s.H {
		h[v] = (1 - w) * x
		maxH = max(maxH, x)
	}
	s.Rerank = make([]float64, len(s.H))
	for i, v := range top {
		h[v] += w * rho[i]
		s.Rerank[v] = rho[i]
	}
	if m := slices.Max(h); m > 0 {
		for v := range h {
			h[v] *= maxH / m
		}
	}
	s.H = h
	s.Reranked = slices.Sorted(slices.Values(top))
	s.Steps = append(s.Steps, "rerank")
	return nil
}

// topNodes returns the at most n nodes of positive h, highest first, ties
// by index.
func topNodes(h []float64, n int) []int {
	var out []int
	for v, x := range h {
		if x > 0 {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		switch {
		case h[a] > h[b]:
			return -1
		case h[a] < h[b]:
			return 1
		}
		return a - b
	})
	return out[:min(n, len(out))]
}

// rerankText is what a node is reranked on: its caption and content, or
// for a visual node without content its caption, summary and in-image
// text, cut to rerankChars runes.
func rerankText(n *graph.Node) string {
	t := nodeText(n)
	if n.Caption != "" && n.Content != "" {
		t = n.Caption + "\n" + t
	}
	t = strings.TrimSpace(t)
	if utf8.RuneCountInString(t) <= rerankChars {
		return t
	}
	i, k := 0, 0
	for i = range t {
		if k == rerankChars {
			break
		}
		k++
	}
	return t[:i]
}
