package flowreader_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

// TestAnswerReadsFilteredEvidence: Answer reads the evidence the caller
// holds. Dropping chains or nodes leaves the reader only what is left; an
// Evidence decoded from its JSON form gives the same answer as the
// original; an Evidence naming a node of another graph is refused.
func TestAnswerReadsFilteredEvidence(t *testing.T) {
	_, ix := build(t, flowreader.Config{})
	ctx := context.Background()
	ev, err := ix.Retrieve(ctx, nestsQ, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Chains) < 2 {
		t.Fatalf("%d chains: too few to filter", len(ev.Chains))
	}
	full, err := ix.Answer(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	asked, err := ix.Ask(ctx, nestsQ, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Text != asked.Text || !reflect.DeepEqual(full.Citations, asked.Citations) {
		t.Fatalf("Answer(Retrieve) %q, Ask %q", full.Text, asked.Text)
	}

	// Keep the last chain only: every citation is one of its nodes.
	kept := *ev
	kept.Chains = ev.Chains[len(ev.Chains)-1:]
	in := map[int]bool{}
	for _, n := range kept.Chains[0].Nodes {
		in[n.Node] = true
	}
	res, err := ix.Answer(ctx, &kept)
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace.ChainsRead != 1 {
		t.Errorf("read %d chains of 1", res.Trace.ChainsRead)
	}
	for _, c := range res.Citations {
		if !in[c.Node] {
			t.Errorf("citation of node %d (%s), not in the kept chain", c.Node, c.NodeID)
		}
	}
	// Drop every node of every chain: nothing to read, and no citation.
	empty := *ev
	empty.Chains = nil
	for _, c := range ev.Chains {
		c.Nodes = nil
		empty.Chains = append(empty.Chains, c)
	}
	res, err = ix.Answer(ctx, &empty)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "" || len(res.Citations) != 0 || res.Trace.ChainsRead != 0 {
		t.Errorf("empty evidence answered %q with %d citations", res.Text, len(res.Citations))
	}

	// The JSON round trip answers alike.
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var dec flowreader.Evidence
	if err := json.Unmarshal(b, &dec); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dec.Chains, ev.Chains) || !reflect.DeepEqual(dec.Routing, ev.Routing) || dec.Question != ev.Question || dec.Budget != ev.Budget || len(dec.Stages) != len(ev.Stages) {
		t.Fatalf("decoded evidence differs from the original")
	}
	res, err = ix.Answer(ctx, &dec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != full.Text || !reflect.DeepEqual(res.Citations, full.Citations) || res.Scores != nil || res.Routing != nil {
		t.Errorf("decoded evidence: %q %v, original %q %v", res.Text, res.Citations, full.Text, full.Citations)
	}

	// Evidence from another graph (another ID at a node index), a node
	// out of range, a NaN score, no question: refused, no Result.
	for name, edit := range map[string]func(e *flowreader.Evidence){
		"id":       func(e *flowreader.Evidence) { e.Chains[0].Nodes[0].ID = "elsewhere" },
		"range":    func(e *flowreader.Evidence) { e.Chains[0].Nodes[0].Node = 1 << 20 },
		"negative": func(e *flowreader.Evidence) { e.Chains[0].Nodes[0].Node = -1 },
	} {
		var bad flowreader.Evidence
		if err := json.Unmarshal(b, &bad); err != nil {
			t.Fatal(err)
		}
		edit(&bad)
		if res, err := ix.Answer(ctx, &bad); !errors.Is(err, flowreader.ErrEvidence) || res != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if res, err := ix.Answer(ctx, &flowreader.Evidence{}); !errors.Is(err, flowreader.ErrQuestion) || res != nil {
		t.Errorf("no question: %v", err)
	}
	if res, err := ix.Answer(ctx, nil); !errors.Is(err, flowreader.ErrQuestion) || res != nil {
		t.Errorf("nil evidence: %v", err)
	}
}

// TestReportedScoresAreUsed: on four titled passages where the hop step
// raises the passage a relevant one names, every score the evidence and the
// result report is the one routing used, and the step is named.
func TestReportedScoresAreUsed(t *testing.T) {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	nodes := []graph.Node{
		{ID: "a", Doc: "a", Section: "Alice Harbour", Content: "Alice Harbour is a fishing village founded by Tom Reed."},
		{ID: "b", Doc: "b", Section: "Tom Reed", Content: "Tom Reed was a sailor from Hull, born in 1801."},
		{ID: "c", Doc: "c", Section: "Red Cove", Content: "Red Cove is a fishing village on the coast."},
		{ID: "d", Doc: "d", Section: "Ann Lind", Content: "Ann Lind was a painter from Hull."},
	}
	texts := make([]string, len(nodes))
	for i := range nodes {
		texts[i] = nodes[i].Content
	}
	vs, err := p.Embedder().Embed(ctx, texts, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	var emb []float32
	for _, v := range vs {
		emb = append(emb, v...)
	}
	g, err := graph.New(nodes, len(vs[0]), emb, graph.MentionLinks(nodes, true))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Ask(ctx, "When was the founder of Alice Harbour born?", flowreader.Options{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Scores.Steps, "hop") || !slices.Contains(res.Evidence.Scoring, "hop") || !slices.Contains(res.Scores.Raised, 1) {
		t.Fatalf("steps %v, raised %v: the hop step did not raise the founder", res.Scores.Steps, res.Scores.Raised)
	}
	if res.Routing.Scores != res.Scores {
		t.Fatal("the routing used other scores than the result reports")
	}
	founder := false
	for _, c := range res.Evidence.Chains {
		for _, n := range c.Nodes {
			if n.Score != res.Scores.H[n.Node] {
				t.Errorf("node %s reported at %v, routed at %v", n.ID, n.Score, res.Scores.H[n.Node])
			}
			if n.ID == "b" {
				founder = true
				if !n.Raised {
					t.Error("the founder's node is not marked raised")
				}
			}
		}
	}
	if !founder {
		t.Error("the founder's passage was not read at budget 2")
	}
}
