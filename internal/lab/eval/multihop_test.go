package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
)

func TestLoadMultihopTiny(t *testing.T) {
	cases := []struct {
		name, file string
		questions  int
		subset     string
		gold       []string // first question's gold docs
	}{
		{TwoWiki, "testdata/multihop/2wiki/tiny.dev.jsonl", 2, "compositional", []string{"p0", "p1"}},
		{MuSiQue, "testdata/multihop/musique/tiny.dev.jsonl", 2, "2hop", []string{"p0", "p2"}},
		{HotpotQA, "testdata/multihop/hotpotqa/tiny.dev.json", 1, "bridge", []string{"p0", "p1"}},
	}
	for _, c := range cases {
		ds, err := LoadMultihop(c.name, c.file, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(ds.Questions) != c.questions || !ds.Overall {
			t.Fatalf("%s: %d questions (overall %v)", c.name, len(ds.Questions), ds.Overall)
		}
		q := ds.Questions[0]
		if q.Subset != c.subset || q.DocSet != ds.Questions[len(ds.Questions)-1].DocSet {
			t.Errorf("%s: subset %q, docsets %q", c.name, q.Subset, q.DocSet)
		}
		if len(q.Gold) != 1 || len(q.Gold[0]) != len(c.gold) {
			t.Fatalf("%s: gold %+v", c.name, q.Gold)
		}
		for i, u := range q.Gold[0] {
			if len(u.Items) != 1 || u.Items[0].Doc != c.gold[i] || u.Items[0].Item != 0 {
				t.Errorf("%s: gold unit %d = %+v, want %s", c.name, i, u, c.gold[i])
			}
		}
		if d := q.Docs[0]; d.Items[0].Section != d.Title || d.Items[0].Text[:len(d.Title)+1] != d.Title+"\n" {
			t.Errorf("%s: passage item %+v", c.name, d.Items[0])
		}
	}
	// 2Wiki's third question names a passage the corpus lacks: skipped, noted.
	ds, _ := LoadMultihop(TwoWiki, "testdata/multihop/2wiki/tiny.dev.jsonl", LoadOptions{})
	if len(ds.Notes) != 2 {
		t.Errorf("notes %q", ds.Notes)
	}
	if _, err := LoadMultihop(TwoWiki, "testdata/multihop/none.jsonl", LoadOptions{}); err == nil {
		t.Error("no corpus: no error")
	}
}

// TestMultihopRun runs one shared graph with title links: the recall is
// HippoRAG's |read ∩ gold| / |gold| and whole-dataset rows sit beside the
// per-type rows, outside the macro average.
func TestMultihopRun(t *testing.T) {
	ds, err := LoadMultihop(TwoWiki, "testdata/multihop/2wiki/tiny.dev.jsonl", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	built := 0
	run := &Runner{
		Embedder: &fake.Embedder{Dim: 32},
		Scorings: DefaultRegistry().Scorings(),
		Budgets:  []int{1, 4},
		Graph: GraphOptions{Links: func(nodes []graph.Node) []graph.Edge {
			built++
			return graph.MentionLinks(nodes, true)
		}},
	}
	if run.Routers, err = DefaultRegistry().Specs([]string{"topk", "hop-topk"}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := run.Run(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if built != 1 {
		t.Errorf("%d graphs built, want one per dataset", built)
	}
	for ri := range res.Routers {
		for qi := range res.Questions {
			if m := res.Metrics[ri][1][qi]; m.EvidenceRecall != 1 || !m.AllGold {
				t.Errorf("%s q%d at 4 of 4 passages: %+v", res.Routers[ri].Name, qi, m)
			}
			if m := res.Metrics[ri][0][qi]; m.EvidenceRecall != 0 && m.EvidenceRecall != 0.5 {
				t.Errorf("%s q%d at 1: recall %g", res.Routers[ri].Name, qi, m.EvidenceRecall)
			}
		}
	}
	groups := map[string]int{}
	for _, r := range res.Rows() {
		groups[r.Dataset]++
	}
	if groups["2wiki"] != 4 || groups["2wiki/compositional"] != 4 || groups[MacroName] != 4 {
		t.Errorf("rows per group %v", groups)
	}
}

// TestLoadMultihopShared loads the real dev halves when ../shared/data is
// present, by folder as the CLI's --data does.
func TestLoadMultihopShared(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(dir, "multihop")); err != nil {
		t.Skip("no ../shared/data/multihop")
	}
	want := map[string]int{TwoWiki: 178, MuSiQue: 146, HotpotQA: 45}
	for name, n := range want {
		ds, err := Load(name, dir, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ds.Questions) != n {
			t.Errorf("%s: %d questions, want %d (notes %q)", name, len(ds.Questions), n, ds.Notes)
		}
	}
}
