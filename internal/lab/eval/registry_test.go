package eval

import (
	"context"
	"errors"
	"testing"

	"github.com/flowreader/flowreader/internal/lab/baselines"
	"github.com/flowreader/flowreader/llm/fake"
)

// allRouters is every router the CLI must accept (issues 9 and 11).
var allRouters = []string{"aspects", "aspects-paper", "classic", "topk", "topk-dense", "mmr", "hop-mmr", "ppr", "shortest", "docorder", "singlesink", "noagreement", "nocredit", "hop", "hop-topk"}

func TestDefaultRegistrySpecs(t *testing.T) {
	reg := DefaultRegistry()
	specs, err := reg.Specs(allRouters, []string{"greedy", "annealed"})
	if err != nil {
		t.Fatal(err)
	}
	// 6 ranked routers once, 9 flow routers twice.
	if len(specs) != 6+9*2 {
		t.Fatalf("%d specs", len(specs))
	}
	for _, s := range specs {
		if (s.Selector == SelectRank) != (s.Select == nil) {
			t.Errorf("%s/%s: selector mismatch", s.Name, s.Selector)
		}
	}
	if _, err := reg.Specs([]string{"nope"}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown router: %v", err)
	}
	if _, err := reg.Specs([]string{"topk"}, []string{"nope"}); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown selector: %v", err)
	}
	// MMR's λ in the name.
	specs, err = reg.Specs([]string{"mmr@0.5", "hop-mmr@0.9"}, nil)
	if err != nil || len(specs) != 2 || specs[0].Name != "mmr@0.5" || specs[1].Name != "hop-mmr@0.9" {
		t.Fatalf("%+v %v", specs, err)
	}
	if m, ok := specs[0].Router.(*baselines.MMRTopK); !ok || m.Lambda != 0.5 {
		t.Errorf("mmr@0.5 is %#v", specs[0].Router)
	}
	for _, bad := range []string{"mmr@x", "mmr@0", "mmr@1.5", "topk@0.5", "nope@1"} {
		if _, err := reg.Specs([]string{bad}, nil); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestDefaultRegistryRuns runs every registered router on the fixtures: the
// wiring to flow, score and selector works end to end and respects budgets.
func TestDefaultRegistryRuns(t *testing.T) {
	reg := DefaultRegistry()
	specs, err := reg.Specs(allRouters, []string{"greedy", "annealed"})
	if err != nil {
		t.Fatal(err)
	}
	run := &Runner{Embedder: &fake.Embedder{Dim: 64}, Scorings: reg.Scorings(), Routers: specs, Budgets: []int{4, 8}}
	res, err := run.Run(context.Background(), mustLoad(t, FeTaQA, LoadOptions{Distractors: 2}), mustLoad(t, PaperTab, LoadOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows() {
		if r.Distinct > float64(r.Budget) || (r.Dataset == FeTaQA && r.Distinct == 0) {
			t.Errorf("%s %s/%s at %d: %.2f distinct nodes", r.Dataset, r.Router, r.Selector, r.Budget, r.Distinct)
		}
	}
}
