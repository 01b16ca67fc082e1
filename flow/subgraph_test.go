package flow

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"

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
	router := &Aspects{}
	whole, err := router.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	so, ok := whole.(SubgraphOpener)
	if !ok {
		t.Fatal("the aspects router is not a SubgraphOpener")
	}
	ix := score.NewIndex(g)
	cfg := score.Config{}
	floor := 0.25 // the default DemandFloor
	checked, plainDiffers := 0, false
	for k := range 24 {
		v := (k*2477 + 11) % len(g.Nodes)
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

// TestPrepareSubgraphs: the aspects router prepares its whole-graph
// statistics on request, as OpenSubgraph would on first use.
func TestPrepareSubgraphs(t *testing.T) {
	g := synth.Topics(t, 600, 16)
	gr, err := (&Aspects{}).Open(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := gr.(SubgraphOpener)
	if !ok {
		t.Fatal("the aspects router is not a SubgraphOpener")
	}
	ag, _ := gr.(*aspectsGraph)
	if ag == nil || ag.whole.pos != nil {
		t.Fatal("whole-graph statistics computed before they were asked for")
	}
	p.PrepareSubgraphs()
	if len(ag.whole.pos) != len(g.Nodes) || ag.whole.cutoff != 25 {
		t.Fatalf("after PrepareSubgraphs: %d positions, cutoff %d", len(ag.whole.pos), ag.whole.cutoff)
	}
}

// TestOpenRankedRoutesAsOpenSubgraph: a router opened on a candidate
// subgraph from the statistics a store keeps (the whole graph's keyword
// frequencies, each node's rank in its document's reading order, the
// node count) routes exactly as OpenSubgraph's over the whole graph, on a
// graph whose documents span many nodes (reading-order pairs) and share
// keywords (bridge terms).
func TestOpenRankedRoutesAsOpenSubgraph(t *testing.T) {
	g := synth.Topics(t, 3000, 24)
	ctx := context.Background()
	router := &Aspects{}
	whole, err := router.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	so := whole.(SubgraphOpener)
	// The whole graph's statistics as a store keeps them.
	df := map[string]int32{}
	for v := range g.Nodes {
		var seen []string
		for _, k := range g.Nodes[v].Keywords {
			if k = normKeyword(k); k != "" && !slices.Contains(seen, k) {
				seen = append(seen, k)
				df[k]++
			}
		}
	}
	rankOf := make([]int32, len(g.Nodes))
	next := map[string]int32{}
	for _, v := range readingOrder(g) {
		d := g.Nodes[v].Doc
		rankOf[v] = next[d]
		next[d]++
	}
	if len(next) >= len(g.Nodes)/2 {
		t.Fatalf("%d documents for %d nodes: reading-order pairs would not be tested", len(next), len(g.Nodes))
	}
	ix := score.NewIndex(g)
	for k := range 8 {
		v := (k*977 + 5) % len(g.Nodes)
		cand, err := ix.ScoreCandidates(score.Config{}, score.Query{Text: g.Nodes[v].Summary, Embedding: g.Embedding(v)}, 64)
		if err != nil {
			t.Fatal(err)
		}
		rank := make([]int32, len(cand.Candidates))
		for i, u := range cand.Candidates {
			rank[i] = rankOf[u]
		}
		a, err := so.OpenSubgraph(ctx, cand.Graph, cand.Candidates)
		if err != nil {
			t.Fatal(err)
		}
		b, err := router.openRanked(ctx, cand.Graph, len(g.Nodes), df, rank)
		if err != nil {
			t.Fatal(err)
		}
		// The frequencies of only the keywords two or more candidates
		// hold (all a store reads, score.Candidates.KeywordDF) price
		// the same arcs.
		holders := map[string]int{}
		for _, nd := range cand.Graph.Nodes {
			var seen []string
			for _, kw := range nd.Keywords {
				if kw = normKeyword(kw); kw != "" && !slices.Contains(seen, kw) {
					seen = append(seen, kw)
					holders[kw]++
				}
			}
		}
		shared := map[string]int32{}
		for kw, c := range holders {
			if c >= 2 {
				shared[kw] = df[kw]
			}
		}
		if len(shared) == 0 || len(shared) == len(holders) {
			t.Fatalf("question %d: %d of %d keywords shared: the restriction would not be tested", k, len(shared), len(holders))
		}
		c, err := router.openRanked(ctx, cand.Graph, len(g.Nodes), shared, rank)
		if err != nil {
			t.Fatal(err)
		}
		pa, pb, pc := a.(*aspectsGraph).pairs, b.(*aspectsGraph).pairs, c.(*aspectsGraph).pairs
		if !reflect.DeepEqual(pa, pb) || !reflect.DeepEqual(pa, pc) {
			t.Fatalf("question %d: the content pairs differ", k)
		}
		ra, err := a.Route(ctx, cand, 16)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []GraphRouter{b, c} {
			rb, err := r.Route(ctx, cand, 16)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(ra.Kappa) != math.Float64bits(rb.Kappa) || !reflect.DeepEqual(ra.Chains, rb.Chains) {
				t.Fatalf("question %d: κ %v / %v, chains differ", k, ra.Kappa, rb.Kappa)
			}
		}
	}
	if _, err := router.openRanked(ctx, g, len(g.Nodes), df, nil); err == nil {
		t.Error("ranks of another length were taken")
	}
}
