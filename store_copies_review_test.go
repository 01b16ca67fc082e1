package flowreader_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/memstore"
	"github.com/flowreader/flowreader/score"
)

// copyIDs is the IDs of node v's copies in g, v left out, ascending.
func copyIDs(g *graph.Graph, v int) []string {
	var out []string
	for _, c := range g.Copies(v) {
		if int(c) != v {
			out = append(out, g.Nodes[c].ID)
		}
	}
	slices.Sort(out)
	return out
}

// Over a store, the evidence of steps run one by one (Score, Route,
// Select) and the answer's citations, also for an evidence of chains
// Select did not read, name every copy of a node's content, those
// outside the candidates included, as over the graph.
func TestStoreEvidenceStepsAlsoIn(t *testing.T) {
	ctx := context.Background()
	g, sx := noticeStore(t)
	q := "When was the harbour wall repaired after the storm surge?"
	s, err := sx.Score(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sx.Route(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	chains, err := sx.Select(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	ev := sx.Evidence(q, s, r, chains)
	copied := 0
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			want := copyIDs(g, n.Node)
			if len(want) > 0 {
				copied++
			}
			if got := slices.Sorted(slices.Values(n.AlsoIn)); !slices.Equal(got, want) {
				t.Errorf("evidence node %s: also in %v, want %v", n.ID, got, want)
			}
		}
	}
	if copied == 0 {
		t.Fatal("no node read has a copy: the test tests nothing")
	}
	// The routing's chains, whose text Select has not read (nor the IDs
	// of their copies outside the candidates): Answer reads them.
	s, err = sx.Score(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = sx.Route(ctx, s); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*flowreader.Evidence{ev, sx.Evidence(q, s, r, r.Chains)} {
		res, err := sx.Answer(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		checkCitedCopies(t, g, res)
	}
}

// noticeStore is topicDocs and one notice posted in 20 documents (more
// copies than candidates) over a store, with the graph.
func noticeStore(t *testing.T) (*graph.Graph, *flowreader.Index) {
	t.Helper()
	ctx := context.Background()
	docs := topicDocs()
	// One notice posted in 20 documents: more copies than candidates.
	for k := range 20 {
		docs = append(docs, graph.Document{ID: fmt.Sprintf("notice%02d", k), Title: "Notice", Items: []graph.Item{
			{Modality: graph.ModalityText, Text: "Notice: the harbour wall repairs after the storm surge closed the quay in March."},
			{Modality: graph.ModalityText, Text: fmt.Sprintf("Posted at board %d by the harbour office.", k)},
		}})
	}
	p, err := flowreader.New(flowreader.Config{Candidates: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	st := &memstore.Store{}
	st.Put("c", g)
	sx, err := p.OpenStore(ctx, st, "c")
	if err != nil {
		t.Fatal(err)
	}
	return g, sx
}

// Over a store whose candidates hold copies, the steps run one by one
// work: the router routes a content class as one node and returns its
// routing with scores of its own (the classes' scores moved to the node
// routed), over the question's candidate subgraph, which Select reads.
func TestStoreSelectWithCopies(t *testing.T) {
	ctx := context.Background()
	_, sx := noticeStore(t)
	s, err := sx.Score(ctx, "When was the harbour wall repaired after the storm surge?")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sx.Route(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	chains, err := sx.Select(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(chains) == 0 {
		t.Fatal("no chains selected")
	}
	for _, c := range chains {
		for _, v := range c.Nodes {
			if s.Graph.Nodes[v].Content == "" {
				t.Errorf("node %s selected without its text", s.Graph.Nodes[v].ID)
			}
		}
	}
}

// TestStoreCopiesConcurrent: one Scores over a store whose candidates
// hold copies, selected from one goroutine (which reads the chains' text
// and their copies' IDs) while another makes evidence of the routed
// chains and answers it: under -race no also_in is read unsynchronised.
func TestStoreCopiesConcurrent(t *testing.T) {
	ctx := context.Background()
	_, sx := noticeStore(t)
	q := "When was the harbour wall repaired after the storm surge?"
	s, err := sx.Score(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sx.Route(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := sx.Select(ctx, r); err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer wg.Done()
		if _, err := sx.Answer(ctx, sx.Evidence(q, s, r, r.Chains)); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()
}

// repeatStore is a store whose candidates' classes name a position twice.
type repeatStore struct{ *memstore.Store }

func (r repeatStore) Candidates(ctx context.Context, c string, q score.Query, m int, cfg score.Config, f flowreader.Filter) (*score.Candidates, error) {
	cs, err := r.Store.Candidates(ctx, c, q, m, cfg, f)
	if err != nil {
		return nil, err
	}
	for i, ps := range cs.Copies {
		if len(ps) > 1 {
			other := ps[0]
			if other == cs.Nodes[i] {
				other = ps[1]
			}
			cs.Copies[i] = slices.Sorted(slices.Values([]int{other, other, cs.Nodes[i]}))
		}
	}
	return cs, nil
}

// A store whose classes name a position twice is refused (its lists are
// not ascending), as any other malformed candidate set, not read as a
// class whose node is also in the same other document twice.
func TestStoreMalformedCopies(t *testing.T) {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{Candidates: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, sx := noticeStore(t)
	st := &memstore.Store{}
	st.Put("c", g)
	if sx, err = p.OpenStore(ctx, repeatStore{st}, "c"); err != nil {
		t.Fatal(err)
	}
	ev, err := sx.Retrieve(ctx, "When was the harbour wall repaired after the storm surge?", flowreader.Options{})
	if err == nil {
		for _, c := range ev.Chains {
			for _, n := range c.Nodes {
				t.Logf("%s also in %v", n.ID, n.AlsoIn)
			}
		}
		t.Fatal("classes naming a position twice accepted")
	}
	if !errors.Is(err, score.ErrConfig) {
		t.Fatalf("err = %v, want one wrapping score.ErrConfig", err)
	}
}

// An evidence decoded from JSON and answered over a store cites with the
// also_in its nodes carry: every copy, as over the graph.
func TestStoreDecodedEvidenceAlsoIn(t *testing.T) {
	ctx := context.Background()
	g, sx := noticeStore(t)
	ev, err := sx.Retrieve(ctx, "When was the harbour wall repaired after the storm surge?", flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var back flowreader.Evidence
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	res, err := sx.Answer(ctx, &back)
	if err != nil {
		t.Fatal(err)
	}
	checkCitedCopies(t, g, res)
}

// checkCitedCopies checks that each citation of res names every copy of
// its node in g (also_in), and that some citation has a copy.
func checkCitedCopies(t *testing.T, g *graph.Graph, res *flowreader.Result) {
	t.Helper()
	cited := 0
	for _, c := range res.Answer.Citations {
		want := copyIDs(g, c.Node)
		if len(want) > 0 {
			cited++
		}
		if got := slices.Sorted(slices.Values(c.AlsoIn)); !slices.Equal(got, want) {
			t.Errorf("citation %s: also in %v, want %v", c.NodeID, got, want)
		}
	}
	if cited == 0 {
		t.Fatal("no citation has a copy: the test tests nothing")
	}
}
