package flow

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/score"
)

// TestOpenSubgraphRoutesAsWholeGraph routes questions over every node and
// over their candidate subgraph (score.Index.ScoreCandidates) opened with
// OpenSubgraph: when every node the whole routing can reach (h at least
// the demand floor) is a candidate, κ must be the same bit for bit and the
// chains the same nodes. Opening the plain router on the subgraph instead
// (its own keyword frequencies and bridge cutoff) must change κ for some
// question, or the check does not bite.
func TestOpenSubgraphRoutesAsWholeGraph(t *testing.T) {
	g := synth.Topics(t, 4000, 32)
	ctx := context.Background()
	router := &Hop{Router: DefaultAspects()}
	whole, err := router.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	so, ok := whole.(interface {
		OpenSubgraph(context.Context, *graph.Graph, []int) (GraphRouter, error)
	})
	if !ok {
		t.Fatal("Hop over aspects has no OpenSubgraph")
	}
	ix := score.NewIndex(g)
	cfg := score.AspectsConfig()
	floor := DefaultAspects().DemandFloor
	checked, plainDiffers := 0, false
	for k := range 24 {
		v := (k*2477 + 11) % g.Len()
		q := score.Query{Text: g.Nodes[v].Summary, Embedding: g.Embedding(v)}
		full, err := ix.Score(cfg, q)
		if err != nil {
			t.Fatal(err)
		}
		cand, err := ix.ScoreCandidates(cfg, q, 256)
		if err != nil {
			t.Fatal(err)
		}
		covered, live := true, 0
		for u, h := range full.H {
			if h >= floor {
				live++
			}
			if _, ok := slices.BinarySearch(cand.Candidates, u); h >= floor && !ok {
				covered = false
			}
		}
		if !covered {
			t.Logf("question %d: %d candidates do not hold every one of %d routable nodes", k, len(cand.Candidates), live)
			continue
		}
		// h̄ is a whole-graph mean that ScoreCandidates estimates; use the
		// exact one so that only the router's statistics are compared.
		cand.HMean = full.HMean
		rf, err := whole.Route(ctx, full, 16)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := so.OpenSubgraph(ctx, cand.Graph, cand.Candidates)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := sub.Route(ctx, cand, 16)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(rf.Kappa) != math.Float64bits(rs.Kappa) {
			t.Fatalf("question %d: κ %v over every node, %v over the candidates", k, rf.Kappa, rs.Kappa)
		}
		if len(rf.Chains) != len(rs.Chains) {
			t.Fatalf("question %d: %d chains over every node, %d over the candidates", k, len(rf.Chains), len(rs.Chains))
		}
		for i, ch := range rs.Chains {
			got := make([]int, len(ch.Nodes))
			for j, u := range ch.Nodes {
				got[j] = cand.Candidates[u]
			}
			if !slices.Equal(got, rf.Chains[i].Nodes) {
				t.Fatalf("question %d chain %d: %v over the candidates, %v over every node", k, i, got, rf.Chains[i].Nodes)
			}
		}
		plain, err := router.Open(ctx, cand.Graph)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := plain.Route(ctx, cand, 16)
		if err != nil {
			t.Fatal(err)
		}
		plainDiffers = plainDiffers || rp.Kappa != rf.Kappa
		checked++
	}
	if checked < 8 {
		t.Fatalf("only %d of 24 questions had every routable node among the candidates", checked)
	}
	if !plainDiffers {
		t.Fatal("the plain router on the subgraph routes like the whole graph: the check does not bite")
	}
	if _, err := so.OpenSubgraph(ctx, g, []int{2, 1}); err == nil {
		t.Fatal("OpenSubgraph accepted nodes that do not match the subgraph")
	}
}

// TestHopOpenSubgraph checks that Hop opened on a subgraph raises a node as
// the whole graph's Hop does: names and the title-mention pairs are the
// whole graph's, looked up through the subgraph's node map.
func TestHopOpenSubgraph(t *testing.T) {
	g := hopGraph4(t)
	ctx := context.Background()
	whole, err := (&Hop{Router: rankRouter{}}).Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	so := whole.(interface {
		OpenSubgraph(context.Context, *graph.Graph, []int) (GraphRouter, error)
	})
	q := "Where did the director of the harbour film study?"
	for _, c := range []struct {
		nodes []int
		r     []float64
		want  []float64
	}{
		// The film names its director: 0.9·1 + 0.1·0.1.
		{[]int{0, 1, 3}, []float64{1, 0.1, 0.2}, []float64{1, 0.91, 0.2}},
		// The director's entity link to the other teacher is not a
		// title mention in the whole graph (sub pair (0, 1) is the whole
		// graph's (1, 3)): 0.6·1 + 0.4·0.1.
		{[]int{1, 3}, []float64{1, 0.1}, []float64{1, 0.64}},
	} {
		sub := g.Subgraph(int32s(c.nodes))
		sr, err := so.OpenSubgraph(ctx, sub, c.nodes)
		if err != nil {
			t.Fatal(err)
		}
		s := &score.Scores{Question: q, R: c.r, H: append([]float64(nil), c.r...)}
		r, err := sr.Route(ctx, s, len(c.nodes))
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.want {
			if math.Abs(r.Scores.R[i]-w) > 1e-12 {
				t.Errorf("nodes %v: raised r %v, want %v", c.nodes, r.Scores.R, c.want)
				break
			}
		}
	}
}

func int32s(x []int) []int32 {
	out := make([]int32, len(x))
	for i, v := range x {
		out[i] = int32(v)
	}
	return out
}

// TestPrepareSubgraphs: Hop over aspects prepares its inner router's
// whole-graph statistics on request, as OpenSubgraph would on first use.
func TestPrepareSubgraphs(t *testing.T) {
	g := synth.Topics(t, 600, 16)
	gr, err := (&Hop{Router: DefaultAspects()}).Open(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := gr.(interface{ PrepareSubgraphs() })
	if !ok {
		t.Fatal("Hop over aspects has no PrepareSubgraphs")
	}
	var inner GraphRouter
	switch h := gr.(type) {
	case *hopRerouter:
		inner = h.hopGraph.inner
	case *hopGraph:
		inner = h.inner
	}
	ag, _ := inner.(*aspectsGraph)
	if ag == nil || ag.whole.pos != nil {
		t.Fatal("whole-graph statistics computed before they were asked for")
	}
	p.PrepareSubgraphs()
	if len(ag.whole.pos) != g.Len() || ag.whole.cutoff != 25 {
		t.Fatalf("after PrepareSubgraphs: %d positions, cutoff %d", len(ag.whole.pos), ag.whole.cutoff)
	}
}
