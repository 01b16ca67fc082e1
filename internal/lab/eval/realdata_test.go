package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowreader/flowreader/llm/fake"
)

// sharedData is ../shared/data relative to the module root (this package
// is three levels below it).
func sharedData(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "shared", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Skipf("no shared data at %s", dir)
	}
	return dir
}

// TestRealDataSlices loads every dev slice and evaluates a few questions of
// each with every router: the loaders accept the real files and the whole
// pipeline runs on real graphs.
func TestRealDataSlices(t *testing.T) {
	data := sharedData(t)
	limit := 2
	if testing.Short() {
		limit = 1
	}
	var sets []*Dataset
	for _, name := range Datasets() {
		ds, err := Load(name, data, LoadOptions{Limit: limit})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ds.Questions) != limit {
			t.Errorf("%s: %d questions with limit %d", name, len(ds.Questions), limit)
		}
		sets = append(sets, ds)
	}
	reg := DefaultRegistry()
	specs, err := reg.Specs([]string{"aspects", "aspects-paper", "classic", "topk", "topk-dense", "mmr", "ppr"}, []string{"greedy"})
	if err != nil {
		t.Fatal(err)
	}
	run := &Runner{Embedder: &fake.Embedder{Dim: 64}, Scorings: reg.Scorings(), Routers: specs, Budgets: []int{16}}
	res, err := run.Run(context.Background(), sets...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows() {
		if r.Distinct > 16 || r.Distinct == 0 {
			t.Errorf("%s %s: %.1f distinct nodes", r.Dataset, r.Router, r.Distinct)
		}
	}
}
