//go:build flowexp

// This file is an experiment harness, built only with -tags flowexp: it runs
// routing variants of the default preset through the eval runner on a dev
// dataset with the local embedder, at 16 distinct nodes, against top-k:
//
//	FLOWEXP=qasper FLOWEXP_ROUTERS=topk,f16,f16-k0,f16-nc,f16-k0-nc,f16-b02-nc,f16-top32,f16-tc-nc \
//	  go test -tags flowexp ./flow -run ExpLocal -v -timeout 25m
//
// FLOWEXP is the dataset name (qasper, fetaqa, papertab), read from
// ../shared/data. Every variant sets FMin = FMax = budget, so that it reads
// the budget whatever the participation ratio says.
package flow_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/eval"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/llm/local"
)

// TestExpLocal runs the experiment when FLOWEXP is set.
func TestExpLocal(t *testing.T) {
	if os.Getenv("FLOWEXP") == "" {
		t.Skip()
	}
	emb := local.Embedder()
	if err := emb.Load(); err != nil {
		t.Fatal(err)
	}
	reg := eval.DefaultRegistry()
	zero := 0.0
	add := func(name string, f func(a *flow.Aspects)) {
		reg.AddRouter(eval.RouterDef{Name: name, Scoring: eval.ScoreAspects, BudgetAware: true, New: func(b int) flow.Router {
			a := flow.DefaultAspects()
			a.FMax, a.FMin = float64(b), float64(b)
			f(a)
			a.Label = name
			return a
		}})
	}
	add("f16", func(a *flow.Aspects) {})
	add("f16-k0", func(a *flow.Aspects) { a.Kappa = &zero })
	add("f16-nc", func(a *flow.Aspects) { a.NodeCredit = false })
	add("f16-k0-nc", func(a *flow.Aspects) { a.Kappa = &zero; a.NodeCredit = false })
	add("f16-b02-nc", func(a *flow.Aspects) { a.B = 0.2; a.NodeCredit = false })
	add("f16-top32", func(a *flow.Aspects) { a.TopM = 32 })
	add("f16-tc-nc", func(a *flow.Aspects) { a.TerminalsFromC = true; a.TopM = 32; a.NodeCredit = false })
	routers := strings.Split(os.Getenv("FLOWEXP_ROUTERS"), ",")
	specs, err := reg.Specs(routers, []string{"greedy"})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := eval.Load(os.Getenv("FLOWEXP"), "../../shared/data", eval.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := &eval.Runner{Embedder: emb, Scorings: reg.Scorings(), Routers: specs, Budgets: []int{16}, Concurrency: 2}
	res, err := run.Run(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	cmps, err := res.Compare("topk", 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	eval.WriteMarkdown(&b, res.Rows(), cmps, nil)
	fmt.Println(b.String())
}
