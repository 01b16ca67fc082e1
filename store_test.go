package flowreader_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/memstore"
	"github.com/flowreader/flowreader/score"
)

// topicDocs are 12 documents of 4 passages on 6 topics, each with
// metadata: kind (report or notes, alternating) and topic.
func topicDocs() []graph.Document {
	topics := []struct{ name, text string }{
		{"harbour", "The harbour wall and the breakwater were repaired after the storm surge flooded the quay."},
		{"birds", "Seabird colonies of terns and gulls nest on the breakwaters every June and July."},
		{"rain", "Rainfall at the weather station was highest in November and lowest in the dry July."},
		{"ferry", "The ferry timetable changes in winter when the crossing to the island runs twice a day."},
		{"lighthouse", "The lighthouse keeper lit the lamp at dusk and logged every passing ship."},
		{"fishing", "Fishing boats landed cod and herring at the market before dawn each morning."},
	}
	var docs []graph.Document
	for i := 0; i < 12; i++ {
		t := topics[i%len(topics)]
		kind := "report"
		if i%2 == 1 {
			kind = "notes"
		}
		d := graph.Document{ID: fmt.Sprintf("doc%02d", i), Title: t.name, Metadata: map[string]string{"kind": kind, "topic": t.name}}
		for k := 0; k < 4; k++ {
			d.Items = append(d.Items, graph.Item{Modality: graph.ModalityText, Page: k / 2,
				Text: fmt.Sprintf("%s Entry %d of file %d notes %s detail %d.", t.text, k, i, topics[(i+k)%len(topics)].name, k*i)})
		}
		docs = append(docs, d)
	}
	return docs
}

// storePair is one pipeline's index over a graph and over the same graph
// in a store.
func storePair(t *testing.T, cfg flowreader.Config, docs []graph.Document) (*flowreader.Index, *flowreader.Index, *memstore.Store) {
	t.Helper()
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := p.Build(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	st := &memstore.Store{}
	st.Put("c", g)
	sx, err := p.OpenStore(ctx, st, "c")
	if err != nil {
		t.Fatal(err)
	}
	return ix, sx, st
}

// evidenceJSON is ev's JSON without the wall times.
func evidenceJSON(t *testing.T, ev *flowreader.Evidence) string {
	t.Helper()
	e := *ev
	e.Stages = nil
	b, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var storeQuestions = []string{
	"When was the harbour wall repaired after the storm?",
	"Which birds nest on the breakwaters?",
	"When is rainfall highest at the weather station?",
	"How often does the ferry cross in winter?",
	"What did the lighthouse keeper log?",
	"zzz qqq",
}

// TestStoreIndexMatchesGraph: an index over a store answers as the index
// over the same graph scoring the same candidates: the same evidence (the
// nodes, their scores and flows, the routing), with and without filters
// and per-call budgets, and the same answers; the store's candidates come
// without their text, which the index reads for what it reads.
func TestStoreIndexMatchesGraph(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []flowreader.Config{{Candidates: 8}, {Candidates: 32}, {Candidates: 4, Scoring: flowreader.Classic().Scoring}} {
		ix, sx, _ := storePair(t, cfg, topicDocs())
		if sx.Graph() != nil {
			t.Fatal("an index over a store has a graph")
		}
		for _, o := range []flowreader.Options{{}, {Budget: 5},
			{Filter: flowreader.Filter{Metadata: map[string]string{"kind": "notes"}}},
			{Filter: flowreader.Filter{IDs: []string{"doc02", "doc03", "doc08"}}},
			{Filter: flowreader.Filter{IDs: []string{"doc02", "doc05"}, Metadata: map[string]string{"kind": "report"}}},
		} {
			for _, q := range storeQuestions {
				want, err := ix.Retrieve(ctx, q, o)
				if err != nil {
					t.Fatal(err)
				}
				got, err := sx.Retrieve(ctx, q, o)
				if err != nil {
					t.Fatal(err)
				}
				if w, g := evidenceJSON(t, want), evidenceJSON(t, got); w != g {
					t.Fatalf("Candidates %d, options %+v, %q:\ngraph %s\nstore %s", cfg.Candidates, o, q, w, g)
				}
				a, err := ix.Answer(ctx, want)
				if err != nil {
					t.Fatal(err)
				}
				b, err := sx.Answer(ctx, got)
				if err != nil {
					t.Fatal(err)
				}
				if a.Text != b.Text || !reflect.DeepEqual(a.Citations, b.Citations) {
					t.Fatalf("%q: answers differ: %q / %q", q, a.Text, b.Text)
				}
			}
		}
	}
}

// TestFilter: every evidence node is of a document the filter passes,
// over a graph and over a store; a filter that passes nothing gives empty
// evidence, no error and an answer without a model call; a filter naming
// no document is refused.
func TestFilter(t *testing.T) {
	ctx := context.Background()
	docs := topicDocs()
	meta := map[string]map[string]string{}
	for _, d := range docs {
		meta[d.ID] = d.Metadata
	}
	ix, sx, _ := storePair(t, flowreader.Config{}, docs)
	for _, f := range []flowreader.Filter{
		{Metadata: map[string]string{"kind": "notes"}},
		{Metadata: map[string]string{"kind": "report", "topic": "rain"}},
		{IDs: []string{"doc04"}},
		{IDs: []string{"doc06", "doc01"}, Metadata: map[string]string{"topic": "harbour"}},
	} {
		for name, x := range map[string]*flowreader.Index{"graph": ix, "store": sx} {
			ev, err := x.Retrieve(ctx, "Where do seabirds nest and when was the wall repaired?", flowreader.Options{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.Chains) == 0 {
				t.Errorf("%s %+v: no evidence", name, f)
			}
			for _, c := range ev.Chains {
				for _, n := range c.Nodes {
					ok := (len(f.IDs) == 0 || slices.Contains(f.IDs, n.Doc))
					for k, v := range f.Metadata {
						ok = ok && meta[n.Doc][k] == v
					}
					if !ok {
						t.Fatalf("%s %+v: node %s of document %s (%v)", name, f, n.ID, n.Doc, meta[n.Doc])
					}
				}
			}
		}
	}
	for name, x := range map[string]*flowreader.Index{"graph": ix, "store": sx} {
		for _, f := range []flowreader.Filter{{IDs: []string{"nope"}}, {Metadata: map[string]string{"kind": "poem"}}} {
			res, err := x.Ask(ctx, "Which birds nest on the breakwaters?", flowreader.Options{Filter: f})
			if err != nil {
				t.Fatalf("%s %+v: %v", name, f, err)
			}
			if len(res.Evidence.Chains) != 0 || len(res.Citations) != 0 || res.Trace.Calls != 0 {
				t.Fatalf("%s %+v: evidence %d chains, %d citations, %d calls", name, f, len(res.Evidence.Chains), len(res.Citations), res.Trace.Calls)
			}
		}
		for _, f := range []flowreader.Filter{{IDs: []string{""}}, {Metadata: map[string]string{"": "x"}}} {
			if _, err := x.Retrieve(ctx, "birds", flowreader.Options{Filter: f}); !errors.Is(err, flowreader.ErrConfig) {
				t.Errorf("%s %+v: %v", name, f, err)
			}
		}
	}
	if _, err := sx.Retrieve(ctx, "birds", flowreader.Options{Scores: true}); !errors.Is(err, flowreader.ErrConfig) {
		t.Errorf("Scores over a store: %v", err)
	}
}

// TestStoreSteps: Score, Route, Select and Evidence over a store give
// Retrieve's evidence, and an evidence decoded from JSON is answered as the
// original (its nodes read from the store by position).
func TestStoreSteps(t *testing.T) {
	ctx := context.Background()
	_, sx, _ := storePair(t, flowreader.Config{}, topicDocs())
	q := storeQuestions[1]
	ev, err := sx.Retrieve(ctx, q, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sx.Score(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	// Score reads no text over a store; Select reads the text of the
	// chains it picks, and only theirs.
	for i, n := range s.Graph.Nodes {
		if n.Content != "" {
			t.Fatalf("Score's node %d has its text before Select", i)
		}
	}
	r, err := sx.Route(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	chains, err := sx.Select(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	picked := map[int]bool{}
	for _, c := range chains {
		for _, v := range c.Nodes {
			picked[v] = true
		}
	}
	if len(picked) == 0 {
		t.Fatal("no chain selected")
	}
	for i, n := range s.Graph.Nodes {
		if (n.Content != "") != picked[i] {
			t.Fatalf("after Select node %d: text %q, picked %v", i, n.Content, picked[i])
		}
	}
	if a, b := evidenceJSON(t, ev), evidenceJSON(t, sx.Evidence(q, s, r, chains)); a != b {
		t.Fatalf("steps differ from Retrieve:\n%s\n%s", a, b)
	}
	res, err := sx.Answer(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	dec := exported(ev)
	res2, err := sx.Answer(ctx, dec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != res2.Text || !reflect.DeepEqual(res.Citations, res2.Citations) {
		t.Fatalf("decoded evidence answered %q, original %q", res2.Text, res.Text)
	}
	dec.Chains[0].Nodes[0].ID = "doc99#0"
	if _, err := sx.Answer(ctx, dec); !errors.Is(err, flowreader.ErrEvidence) {
		t.Fatalf("a node of another ID: %v", err)
	}
	dec.Chains[0].Nodes[0].Node = 1 << 40
	if _, err := sx.Answer(ctx, dec); !errors.Is(err, flowreader.ErrEvidence) {
		t.Fatalf("a position the collection lacks: %v", err)
	}
	// Scores another index made are refused.
	other, _, _ := storePair(t, flowreader.Config{}, topicDocs())
	if _, err := sx.Route(ctx, scoreOf(t, other, q)); !errors.Is(err, flowreader.ErrEvidence) {
		t.Fatalf("foreign scores: %v", err)
	}
}

func scoreOf(t *testing.T, ix *flowreader.Index, q string) *score.Scores {
	t.Helper()
	s, err := ix.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// flakyStore is a store whose calls fail with err while it is set, and
// whose Nodes reports the first gone nodes as removed.
type flakyStore struct {
	*memstore.Store
	err  atomic.Pointer[error]
	gone atomic.Int32
}

func (f *flakyStore) Candidates(ctx context.Context, c string, q score.Query, m int, cfg score.Config, fl flowreader.Filter) (*score.Candidates, error) {
	if e := f.err.Load(); e != nil {
		return nil, *e
	}
	return f.Store.Candidates(ctx, c, q, m, cfg, fl)
}

func (f *flakyStore) Nodes(ctx context.Context, c string, pos []int) ([]graph.Node, error) {
	if e := f.err.Load(); e != nil {
		return nil, *e
	}
	ns, err := f.Store.Nodes(ctx, c, pos)
	if err == nil && f.gone.Add(-1) >= 0 {
		ns[0] = graph.Node{}
	}
	return ns, err
}

// TestStoreFaults: a store out of reach fails the question with an error
// wrapping ErrUnavailable, and the next question after it is back
// succeeds; a node removed while a question was asked makes the question
// be asked again, at most three times in all.
func TestStoreFaults(t *testing.T) {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctx, topicDocs())
	if err != nil {
		t.Fatal(err)
	}
	fs := &flakyStore{Store: &memstore.Store{}}
	fs.Put("c", g)
	sx, err := p.OpenStore(ctx, fs, "c")
	if err != nil {
		t.Fatal(err)
	}
	down := fmt.Errorf("dial: connection refused: %w", flowreader.ErrUnavailable)
	fs.err.Store(&down)
	if _, err := sx.Retrieve(ctx, storeQuestions[0], flowreader.Options{}); !errors.Is(err, flowreader.ErrUnavailable) {
		t.Fatalf("store down: %v", err)
	}
	fs.err.Store(nil)
	want, err := sx.Retrieve(ctx, storeQuestions[0], flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs.gone.Store(2)
	got, err := sx.Retrieve(ctx, storeQuestions[0], flowreader.Options{})
	if err != nil || evidenceJSON(t, got) != evidenceJSON(t, want) {
		t.Fatalf("after two removals: %v", err)
	}
	fs.gone.Store(3)
	if _, err := sx.Retrieve(ctx, storeQuestions[0], flowreader.Options{}); err == nil || !strings.Contains(err.Error(), "removed") {
		t.Fatalf("after three removals: %v", err)
	}
	// Step by step, a node removed between Score and Select fails Select
	// with ErrEvidence (the question is to be asked again); the store out
	// of reach there is ErrUnavailable.
	sc, err := sx.Score(ctx, storeQuestions[0])
	if err != nil {
		t.Fatal(err)
	}
	r, err := sx.Route(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	fs.gone.Store(1)
	if _, err := sx.Select(ctx, r); !errors.Is(err, flowreader.ErrEvidence) || !strings.Contains(err.Error(), "removed") {
		t.Fatalf("Select after a removal: %v", err)
	}
	fs.err.Store(&down)
	if _, err := sx.Select(ctx, r); !errors.Is(err, flowreader.ErrUnavailable) {
		t.Fatalf("Select with the store down: %v", err)
	}
	fs.err.Store(nil)
	chains, err := sx.Select(ctx, r)
	if err != nil || len(chains) == 0 {
		t.Fatalf("Select once the store is back: %d chains, %v", len(chains), err)
	}
	if got := sx.Evidence(storeQuestions[0], sc, r, chains); evidenceJSON(t, got) != evidenceJSON(t, want) {
		t.Fatalf("steps after the faults differ from Retrieve")
	}
	// Answer over chains whose text nobody read yet (the routing's own,
	// not Select's): the store out of reach is ErrUnavailable with the
	// evidence in a Result, not a stale evidence; back, it answers.
	sc, err = sx.Score(ctx, storeQuestions[1])
	if err != nil {
		t.Fatal(err)
	}
	if r, err = sx.Route(ctx, sc); err != nil {
		t.Fatal(err)
	}
	ev := sx.Evidence(storeQuestions[1], sc, r, r.Chains)
	fs.err.Store(&down)
	res, err := sx.Answer(ctx, ev)
	if !errors.Is(err, flowreader.ErrUnavailable) || errors.Is(err, flowreader.ErrEvidence) || res == nil || res.Evidence != ev {
		t.Fatalf("Answer with the store down: %v, result %v", err, res)
	}
	fs.err.Store(nil)
	if res, err = sx.Answer(ctx, ev); err != nil || res.Text == "" {
		t.Fatalf("Answer once the store is back: %v", err)
	}
	// A routing of another index's scores is refused by Select as by Route.
	other, err := p.OpenStore(ctx, fs, "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Select(ctx, r); !errors.Is(err, flowreader.ErrEvidence) {
		t.Fatalf("Select of another index's routing: %v", err)
	}
	for _, bad := range []func() (*flowreader.Index, error){
		func() (*flowreader.Index, error) { return p.OpenStore(ctx, nil, "c") },
		func() (*flowreader.Index, error) { return p.OpenStore(ctx, fs, " ") },
	} {
		if _, err := bad(); !errors.Is(err, flowreader.ErrConfig) {
			t.Errorf("OpenStore: %v", err)
		}
	}
	q, _ := flowreader.New(flowreader.Config{Candidates: -1})
	if _, err := q.OpenStore(ctx, fs, "c"); !errors.Is(err, flowreader.ErrConfig) {
		t.Errorf("every node over a store: %v", err)
	}
}
