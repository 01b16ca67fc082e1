//go:build flowexp

// This file is issue 11's experiment harness, built only with -tags flowexp:
// it runs routing variants of the default preset through the eval runner on
// the dev datasets with the local embedder and prints the comparison against
// top-k by the same relevance:
//
//	QEXP=fetaqa,qasper,papertab QEXP_ROUTERS=topk,aspects,v-nc QEXP_BUDGETS=16 \
//	  go test -tags flowexp ./flow -run QualityExp -v -timeout 30m
//
// QEXP_LIMIT limits the questions per dataset.
package flow_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/eval"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/llm/local"
)

func TestQualityExp(t *testing.T) {
	if os.Getenv("QEXP") == "" {
		t.Skip()
	}
	emb := local.Embedder()
	if err := emb.Load(); err != nil {
		t.Fatal(err)
	}
	reg := eval.DefaultRegistry()
	zero := 0.0
	add := func(name string, f func(a *flow.Aspects, b int)) {
		reg.AddRouter(eval.RouterDef{Name: name, Scoring: eval.ScoreAspects, BudgetAware: true, New: func(b int) flow.Router {
			a := flow.PaperAspects()
			a.FMax = float64(b)
			f(a, b)
			a.Label = name
			return a
		}})
	}
	fixed := func(a *flow.Aspects, b int) { a.FMin, a.FMax = float64(b), float64(b) }
	add("v-paper", func(a *flow.Aspects, b int) {})
	add("v-rel-b02-nc", func(a *flow.Aspects, b int) { a.DemandRule = flow.DemandRelevant; a.B = 0.2; a.NodeCredit = false })
	add("v-rel-k0-nc", func(a *flow.Aspects, b int) {
		a.DemandRule = flow.DemandRelevant
		a.Kappa = &zero
		a.NodeCredit = false
	})
	add("v-f", fixed)
	add("v-f-nc", func(a *flow.Aspects, b int) { fixed(a, b); a.NodeCredit = false })
	add("v-f-k0", func(a *flow.Aspects, b int) { fixed(a, b); a.Kappa = &zero })
	add("v-f-k0-nc", func(a *flow.Aspects, b int) { fixed(a, b); a.Kappa = &zero; a.NodeCredit = false })
	add("v-f-b02-nc", func(a *flow.Aspects, b int) { fixed(a, b); a.B = 0.2; a.NodeCredit = false })
	add("v-f-b01-nc", func(a *flow.Aspects, b int) { fixed(a, b); a.B = 0.1; a.NodeCredit = false })
	add("v-f-b02-nc-top", func(a *flow.Aspects, b int) { fixed(a, b); a.B = 0.2; a.NodeCredit = false; a.TopM = 2 * b })
	add("v-f-b02-nc-qa", func(a *flow.Aspects, b int) {
		fixed(a, b)
		a.B = 0.2
		a.NodeCredit = false
		a.TopM = 2 * b
		a.Center = true
		a.QueryAspect = true
	})
	add("v-f-kr-nc", func(a *flow.Aspects, b int) {
		fixed(a, b)
		a.KappaMode = flow.KappaRelevance
		a.B = 0.2
		a.NodeCredit = false
	})
	add("v-f-b02", func(a *flow.Aspects, b int) { fixed(a, b); a.B = 0.2 })
	add("v-f-k0-nc-ow", func(a *flow.Aspects, b int) { fixed(a, b); a.Kappa = &zero; a.NodeCredit = false; a.OrderWindow = 2 })
	for _, oc := range []float64{0.1, 0.2, 0.4} {
		add(fmt.Sprintf("v-oc%g", oc), func(a *flow.Aspects, b int) {
			fixed(a, b)
			a.B = 0.2
			a.NodeCredit = false
			a.OrderCredit = oc
		})
		add(fmt.Sprintf("v-oc%g-w2", oc), func(a *flow.Aspects, b int) {
			fixed(a, b)
			a.B = 0.2
			a.NodeCredit = false
			a.OrderCredit = oc
			a.OrderWindow = 2
		})
	}
	// d-<rule>-oc<credit>: the default's settings with another demand rule
	// and order credit (rel = DemandRelevant, bud = DemandBudget).
	for _, floor := range []float64{0, 0.1, 0.25} {
		for _, oc := range []float64{0, 0.05, 0.1, 0.15, 0.2} {
			name := fmt.Sprintf("d-f%g-oc%g", floor, oc)
			reg.AddRouter(eval.RouterDef{Name: name, Scoring: eval.ScoreAspects, BudgetAware: true, New: func(b int) flow.Router {
				a := flow.DefaultAspects()
				a.FMax = float64(b)
				a.DemandRule = flow.DemandBudget
				a.DemandFloor = floor
				a.OrderCredit = oc
				a.Label = name
				return a
			}})
		}
	}
	for _, floor := range []float64{0, 0.25} {
		for _, merge := range []bool{false, true} {
			name := fmt.Sprintf("m-f%g-merge%v", floor, merge)
			reg.AddRouter(eval.RouterDef{Name: name, Scoring: eval.ScoreAspects, BudgetAware: true, New: func(b int) flow.Router {
				a := flow.DefaultAspects()
				a.FMax = float64(b)
				a.DemandFloor = floor
				a.MergeChains = merge
				a.Label = name
				return a
			}})
		}
	}
	// def-*: the final default with one change each.
	def := func(name string, f func(a *flow.Aspects)) {
		reg.AddRouter(eval.RouterDef{Name: name, Scoring: eval.ScoreAspects, BudgetAware: true, New: func(b int) flow.Router {
			a := flow.DefaultAspects()
			a.FMax = float64(b)
			f(a)
			a.Label = name
			return a
		}})
	}
	def("def-oc0.1", func(a *flow.Aspects) { a.OrderCredit = 0.1 })
	def("def-oc0.2-w2", func(a *flow.Aspects) { a.OrderCredit, a.OrderWindow = 0.2, 2 })
	def("def-fac", func(a *flow.Aspects) { k := 0.5; a.Aspects, a.FacetShare, a.Kappa = flow.TermFacets, 1, &k })
	def("def-fac-oc0.2", func(a *flow.Aspects) {
		k := 0.5
		a.Aspects, a.FacetShare, a.Kappa, a.OrderCredit = flow.TermFacets, 1, &k, 0.2
	})
	def("def-floor0", func(a *flow.Aspects) { a.DemandFloor = 0 })
	def("def-k0", func(a *flow.Aspects) { k := 0.0; a.Kappa = &k })
	def("def-credit", func(a *flow.Aspects) { a.NodeCredit = true })
	def("def-b0634", func(a *flow.Aspects) { a.B = 0.634 })
	def("def-ratio", func(a *flow.Aspects) { a.DemandRule = flow.DemandRatio })
	registerFacets(reg)
	routers := strings.Split(os.Getenv("QEXP_ROUTERS"), ",")
	sels := []string{"greedy"}
	if s := os.Getenv("QEXP_SEL"); s != "" {
		sels = strings.Split(s, ",")
	}
	specs, err := reg.Specs(routers, sels)
	if err != nil {
		t.Fatal(err)
	}
	budgets := []int{16}
	if s := os.Getenv("QEXP_BUDGETS"); s != "" {
		budgets = nil
		for _, f := range strings.Split(s, ",") {
			b, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			budgets = append(budgets, b)
		}
	}
	limit, _ := strconv.Atoi(os.Getenv("QEXP_LIMIT"))
	var sets []*eval.Dataset
	for _, name := range strings.Split(os.Getenv("QEXP"), ",") {
		ds, err := eval.Load(name, "../../shared/data", eval.LoadOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, ds)
	}
	run := &eval.Runner{Embedder: emb, Scorings: reg.Scorings(), Routers: specs, Budgets: budgets, Concurrency: 2}
	res, err := run.Run(context.Background(), sets...)
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
	if out := os.Getenv("QEXP_OUT"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := eval.WriteQuestions(f, res); err != nil {
			t.Fatal(err)
		}
	}
}

// registerFacets adds the term-facet variants: fac-s<share>-k<kappa>, all
// with demand fixed at the budget and node credit off.
// fac-...-c<m> joins only the top m·budget nodes by h to the terminals;
// -b02 keeps b = 0.2 instead of a fixed κ.
func registerFacets(reg *eval.Registry) {
	for _, share := range []float64{0.25, 0.5, 0.75, 1} {
		for _, kappa := range []float64{0.1, 0.2, 0.5, 1} {
			for _, topC := range []int{0, 2, 3, 4} {
				for _, order := range []float64{0, 0.2} {
					name := fmt.Sprintf("fac-s%g-k%g", share, kappa)
					if topC > 0 {
						name += fmt.Sprintf("-c%d", topC)
					}
					if order > 0 {
						name += fmt.Sprintf("-oc%g", order)
					}
					reg.AddRouter(eval.RouterDef{Name: name, Scoring: eval.ScoreAspects, BudgetAware: true, New: func(b int) flow.Router {
						a := flow.PaperAspects()
						a.FMin, a.FMax = float64(b), float64(b)
						a.DemandRule = flow.DemandBudget
						a.NodeCredit = false
						a.Aspects = flow.TermFacets
						a.FacetShare = share
						k := kappa
						a.Kappa = &k
						if topC > 0 {
							a.TopM = topC * b
							a.TerminalsFromC = true
						}
						a.OrderCredit = order
						a.Label = name
						return a
					}})
				}
			}
		}
	}
}
