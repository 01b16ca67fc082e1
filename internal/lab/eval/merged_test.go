package eval

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local"
)

// TestMergedCollection merges every dev document of FeTaQA, QASPER and
// PaperTab into one graph (built by graph.Builder with the offline
// analysis and the embedded GloVe embedder), asks every question against
// all of it, and compares the evidence recall at 16 distinct nodes of the
// default (Config.Candidates 0), of candidates forced on (the merged graph
// may be below the default's size) and of scoring every node. It takes
// minutes: it runs only with FLOWREADER_MERGED=1. docs/scale.md has the
// figures.
func TestMergedCollection(t *testing.T) {
	if os.Getenv("FLOWREADER_MERGED") == "" {
		t.Skip("set FLOWREADER_MERGED=1 to run the merged-collection evaluation")
	}
	data := sharedData(t)
	ctx := context.Background()
	var qs []*Question
	docs := map[string]graph.Document{}
	var order []string
	for _, name := range []string{FeTaQA, QASPER, PaperTab} {
		ds, err := Load(name, data, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range ds.Questions {
			q := &ds.Questions[i]
			if q.Gold == nil {
				continue
			}
			qs = append(qs, q)
			for _, d := range q.Docs {
				if old, ok := docs[d.ID]; ok {
					if len(old.Items) != len(d.Items) {
						t.Fatalf("document %q differs between datasets (%d and %d items)", d.ID, len(old.Items), len(d.Items))
					}
					continue
				}
				docs[d.ID] = d
				order = append(order, d.ID)
			}
		}
	}
	all := make([]graph.Document, 0, len(order))
	for _, id := range order {
		all = append(all, docs[id])
	}
	emb := local.Embedder()
	var every [2]float64 // every-node evidence recall, float32 and int8
	for fi, i8 := range []bool{false, true} {
		format := map[bool]string{false: "float32", true: "int8"}[i8]
		every[fi] = mergedRun(t, ctx, emb, all, qs, i8, format)
	}
	t.Logf("int8 − float32 embeddings, every node: %+.2f points", 100*(every[1]-every[0]))
}

// mergedRun builds the merged graph with float32 or int8 embeddings, asks
// every question in each mode, and returns the every-node evidence recall.
func mergedRun(t *testing.T, ctx context.Context, emb llm.Embedder, all []graph.Document, qs []*Question, i8 bool, format string) float64 {
	t0 := time.Now()
	g, err := (&graph.Builder{Embedder: emb, Int8Embeddings: i8}).Build(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: merged graph: %d documents, %d nodes, %d edges, %d questions, built in %v", format, len(all), len(g.Nodes), len(g.Edges), len(qs), time.Since(t0))

	// The default scores every node below its size threshold: it is then
	// the every-node run, and is not run twice.
	pd, err := flowreader.New(flowreader.Config{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	id, err := pd.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	s0, err := id.Score(ctx, qs[0].Text)
	if err != nil {
		t.Fatal(err)
	}
	defaultAll := s0.Candidates == nil
	t.Logf("%s: default scores every node at %d nodes: %v", format, len(g.Nodes), defaultAll)

	modes := []struct {
		name string
		cand int
	}{{"candidates-256", 256}, {"every-node", -1}}
	if !defaultAll {
		modes = append(modes, struct {
			name string
			cand int
		}{"default", 0})
	}
	recall := make([][]float64, len(modes))
	for mi, m := range modes {
		p, err := flowreader.New(flowreader.Config{Embedder: emb, Candidates: m.cand})
		if err != nil {
			t.Fatal(err)
		}
		ix, err := p.Open(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		var times []time.Duration
		for _, q := range qs {
			t1 := time.Now()
			s, err := ix.Score(ctx, q.Text)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ix.Route(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			sel, err := ix.Select(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			chains := capDistinct(sel, 16)
			times = append(times, time.Since(t1))
			if s.Candidates != nil {
				mapped := make([]flow.Chain, len(chains))
				for i, c := range chains {
					c.Nodes = slices.Clone(c.Nodes)
					for j, v := range c.Nodes {
						c.Nodes[j] = s.Candidates[v]
					}
					mapped[i] = c
				}
				chains = mapped
			}
			recall[mi] = append(recall[mi], Measure(q, g, chains).EvidenceRecall)
		}
		slices.Sort(times)
		t.Logf("%s: %-15s evidence recall@16 %.4f  median Score+Route+Select %v", format, m.name, meanOf(recall[mi]), times[len(times)/2])
	}
	for mi, m := range modes {
		if m.cand < 0 {
			continue
		}
		d := 100 * (meanOf(recall[mi]) - meanOf(recall[1]))
		t.Logf("%s: %s − every node: %+.2f points", format, m.name, d)
		if d < -0.5 && m.cand == 0 {
			t.Errorf("%s: default: evidence recall %.2f points below scoring every node", format, -d)
		}
	}
	return meanOf(recall[1])
}

func meanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(max(len(x), 1))
}
