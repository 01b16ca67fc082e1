package flow

import (
	"context"
	"fmt"
	"math"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Triggers says which System-2 triggers fired (METHOD A.6): T1 low
// saturation, T2 low consistency, T3 no supported answer.
type Triggers struct{ T1, T2, T3 bool }

// PairScorer is the callback through which model judgements enter System 2;
// the reader implements it with prompts B.5 and B.6. Implementations must be
// safe for concurrent use.
type PairScorer interface {
	// Bridge judges a candidate bridge between u and v (prompt B.5):
	// whether a connection exists and its score in [0, 1].
	Bridge(ctx context.Context, u, v int) (exists bool, score float64, err error)
	// Edge rates the existing edge u–v (prompt B.6): the new affinity p̂.
	Edge(ctx context.Context, u, v int) (float64, error)
}

// System2 holds the constants of one System-2 pass (METHOD A.7, Table 5).
// DefaultSystem2 returns the paper's values.
type System2 struct {
	// Lambda and Bound are the damped-rule λ and ε_w (0.6, 0.3).
	Lambda, Bound float64
	// Accept is the bridge acceptance threshold: add when score > Accept (0.10).
	Accept float64
	// Pairs is the number of T1 candidate bridges scored (8) [proposed].
	Pairs int
	// Edges caps the edges re-weighted by T1 and by T3 (8 each) [proposed].
	Edges int
	// Depth is the T3 BFS depth (2) and Seeds the new seeds added (8) [proposed].
	Depth, Seeds int
	// Concurrency bounds concurrent scorer calls (4 when 0).
	Concurrency int
}

// DefaultSystem2 returns the paper's System-2 constants.
func DefaultSystem2() System2 {
	return System2{Lambda: 0.6, Bound: 0.3, Accept: 0.10, Pairs: 8, Edges: 8, Depth: 2, Seeds: 8}
}

// Plan computes the edits of one System-2 pass over routing r for the fired
// triggers, asking sc for every judgement: T1 scores the CutPairs bridges
// (added with affinity Damped(max(cos,0), score) when they exist and score >
// Accept) and re-weights the CutEdges; T2 re-weights the TopFlowEdges; T3
// adds the ExpandSources seeds and re-weights the SourceEdges of those seeds.
// Every re-weighting is Damped(current affinity, p̂, λ, bound). Scorer calls
// run concurrently, results are assembled in a fixed order, so the edits are
// deterministic for a deterministic scorer. Pass the result to a Rerouter.
func (c System2) Plan(ctx context.Context, g *graph.Graph, s *score.Scores, r *Routing, trig Triggers, sc PairScorer) (Edits, error) {
	var e Edits
	if sc == nil {
		return e, fmt.Errorf("%w: nil PairScorer", ErrConfig)
	}
	var bridges, reweight [][2]int
	if trig.T1 {
		bridges = CutPairs(g, s, r, c.Pairs)
		reweight = append(reweight, CutEdges(g, r, c.Edges)...)
	}
	if trig.T2 {
		reweight = append(reweight, TopFlowEdges(r)...)
	}
	if trig.T3 {
		e.Sources = ExpandSources(g, s, r, c.Depth, c.Seeds)
		reweight = append(reweight, SourceEdges(g, r, e.Sources, c.Edges)...)
	}
	type verdict struct {
		ok    bool
		score float64
	}
	bv := make([]verdict, len(bridges))
	pv := make([]float64, len(reweight))
	eg, ctx := errgroup.WithContext(ctx)
	lim := c.Concurrency
	if lim <= 0 {
		lim = 4
	}
	eg.SetLimit(lim)
	for i, p := range bridges {
		eg.Go(func() error {
			ok, sc, err := sc.Bridge(ctx, p[0], p[1])
			if err != nil {
				return fmt.Errorf("flow: bridge %d–%d: %w", p[0], p[1], err)
			}
			bv[i] = verdict{ok, sc}
			return nil
		})
	}
	for i, p := range reweight {
		eg.Go(func() error {
			x, err := sc.Edge(ctx, p[0], p[1])
			if err != nil {
				return fmt.Errorf("flow: edge %d–%d: %w", p[0], p[1], err)
			}
			pv[i] = x
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return Edits{}, err
	}
	for i, p := range bridges {
		if bv[i].ok && bv[i].score > c.Accept {
			old := math.Max(g.Cos(p[0], p[1]), 0)
			e.Edges = append(e.Edges, EdgeEdit{U: p[0], V: p[1], Affinity: Damped(old, bv[i].score, c.Lambda, c.Bound), Add: true})
		}
	}
	for i, p := range reweight {
		e.Edges = append(e.Edges, EdgeEdit{U: p[0], V: p[1], Affinity: Damped(r.Affinity(g, p[0], p[1]), pv[i], c.Lambda, c.Bound)})
	}
	return e, nil
}
