package eval

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/baselines"
	"github.com/flowreader/flowreader/score"
	"github.com/flowreader/flowreader/selector"
)

// Scoring names of the default registry.
const (
	// ScoreAspects is the default preset's scoring (hybrid relevance and
	// the hop step).
	ScoreAspects = "aspects"
	// ScoreRelevance is the default preset's relevance without the hop
	// step: what top-k and the ablations rank and route by.
	ScoreRelevance = "relevance"
	// ScoreAspectsPaper is paper v3's dense relevance with the reference boost.
	ScoreAspectsPaper = "aspects-paper"
	// ScoreClassic is paper v1's fused h with φ, ψ, sources and sinks.
	ScoreClassic = "classic"
	// ScoreDense is cosine-only relevance: what a plain RAG pipeline ranks by.
	ScoreDense = "dense"
)

// SelectRank is the selector label of ranked baselines, whose chains are read
// in rank order without a selector.
const SelectRank = "rank"

// RouterDef is one router of a Registry.
type RouterDef struct {
	Name string
	// Scoring names the scoring it reads.
	Scoring string
	// Ranked routers produce single-node chains in rank order; they take no
	// selector (their rows have selector "rank").
	Ranked bool
	// Router and BudgetAware as in RouterSpec.
	Router      flow.Router
	BudgetAware bool
	// Selector names the registered selector used when Specs is given no
	// selector list ("" = greedy): a preset's own selector.
	Selector string
	// Doc says what the router is, for --help.
	Doc string
	// Param, when set, makes the router with a parameter given in the
	// router's name as NAME@VALUE (MMR's λ: "hop-mmr@0.8"); the row is named
	// as given.
	Param func(v float64) (flow.Router, error)
}

// Registry maps router, scoring and selector names to constructors. Add
// entries to compare new variants; the zero Registry is empty and
// DefaultRegistry holds every router of the paper's comparisons.
type Registry struct {
	routers   []RouterDef
	scorings  []Scoring
	selectors []selectorDef
}

type selectorDef struct {
	name string
	sel  selector.Selector
}

// AddRouter adds (or replaces, by name) a router.
func (r *Registry) AddRouter(d RouterDef) {
	for i := range r.routers {
		if r.routers[i].Name == d.Name {
			r.routers[i] = d
			return
		}
	}
	r.routers = append(r.routers, d)
}

// AddScoring adds (or replaces) a scoring built from a score.Config: one
// score.Index per graph, shared by every question on it.
func (r *Registry) AddScoring(name string, c score.Config) {
	s := Scoring{Name: name, NewScorer: func(g *graph.Graph) ScoreFunc {
		ix := score.NewIndex(g)
		return func(_ context.Context, question string, qv []float32) (*score.Scores, error) {
			return ix.Score(c, score.Query{Text: question, Embedding: qv})
		}
	}}
	for i := range r.scorings {
		if r.scorings[i].Name == name {
			r.scorings[i] = s
			return
		}
	}
	r.scorings = append(r.scorings, s)
}

// AddSelector adds (or replaces) a chain selector.
func (r *Registry) AddSelector(name string, s selector.Selector) {
	for i := range r.selectors {
		if r.selectors[i].name == name {
			r.selectors[i].sel = s
			return
		}
	}
	r.selectors = append(r.selectors, selectorDef{name, s})
}

// Routers returns the router definitions in registration order.
func (r *Registry) Routers() []RouterDef { return append([]RouterDef(nil), r.routers...) }

// Scorings returns the scorings in registration order.
func (r *Registry) Scorings() []Scoring { return append([]Scoring(nil), r.scorings...) }

// Selectors returns the selector names in registration order.
func (r *Registry) Selectors() []string {
	out := make([]string, len(r.selectors))
	for i, s := range r.selectors {
		out[i] = s.name
	}
	return out
}

// Specs returns one RouterSpec per router name and selector (ranked routers
// get one spec, with selector "rank"), in the order given. With no
// selectors, each router uses its own (RouterDef.Selector, else greedy).
func (r *Registry) Specs(routers, selectors []string) ([]RouterSpec, error) {
	lookup := func(names []string) ([]selectorDef, error) {
		sels := make([]selectorDef, 0, len(names))
		for _, name := range names {
			found := false
			for _, s := range r.selectors {
				if s.name == name {
					sels = append(sels, s)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("%w: unknown selector %q (have %s)", ErrConfig, name, strings.Join(r.Selectors(), ", "))
			}
		}
		return sels, nil
	}
	sels, err := lookup(selectors)
	if err != nil {
		return nil, err
	}
	var out []RouterSpec
	for _, name := range routers {
		var def *RouterDef
		base, param, hasParam := strings.Cut(name, "@")
		for i := range r.routers {
			if r.routers[i].Name == base {
				def = &r.routers[i]
			}
		}
		if def != nil && hasParam {
			v, err := strconv.ParseFloat(param, 64)
			if def.Param == nil || err != nil {
				return nil, fmt.Errorf("%w: router %q: %s takes no parameter %q", ErrConfig, name, base, param)
			}
			rt, err := def.Param(v)
			if err != nil {
				return nil, fmt.Errorf("%w: router %q: %w", ErrConfig, name, err)
			}
			d := *def
			d.Name, d.Router = name, rt
			def = &d
		}
		if def == nil {
			names := make([]string, len(r.routers))
			for i, d := range r.routers {
				names[i] = d.Name
			}
			return nil, fmt.Errorf("%w: unknown router %q (have %s)", ErrConfig, name, strings.Join(names, ", "))
		}
		spec := RouterSpec{Name: def.Name, Scoring: def.Scoring, Router: def.Router, BudgetAware: def.BudgetAware}
		if def.Ranked {
			spec.Selector = SelectRank
			out = append(out, spec)
			continue
		}
		use := sels
		if len(selectors) == 0 {
			own := def.Selector
			if own == "" {
				own = "greedy"
			}
			if use, err = lookup([]string{own}); err != nil {
				return nil, err
			}
		}
		for _, s := range use {
			sp := spec
			sp.Selector = s.name
			sp.Select = s.sel.Select
			out = append(out, sp)
		}
	}
	return out, nil
}

// DefaultRegistry holds the routers of the paper's comparisons and the
// ranked baselines:
//
//	aspects       the facade's default, the zero flowreader.Config: its
//	              scoring (hybrid relevance and the hop step), router and
//	              selector (annealed)
//	aspects-paper flowreader.PaperAspects(): paper v3 exactly
//	classic       flow.DefaultClassic, paper v1 scoring
//	topk          top-k by the default preset's relevance (no hop step)
//	topk-dense    top-k by cosine only (plain RAG)
//	mmr, ppr      MMR and personalised-PageRank top-k on the default
//	              relevance (no hop step; mmr@λ: MMR with that λ)
//	shortest, docorder, singlesink, noagreement, nocredit
//	              the Table 3 ablations of the default aspects router, on
//	              the default relevance (no hop step)
//	hop           the default aspects router on the default scoring with
//	              its hop step (hop-aware relevance over title and entity
//	              links): aspects under its earlier name
//	hop-topk      top-k by the hop-aware scores
//	hop-mmr       MMR top-k by the hop-aware scores (hop-mmr@λ: with that λ)
//
// Aspects routers read up to the budget: the budget passed to Route is
// their demand cap F_max (the read cap K of Table 4, 16 in the paper), so a
// budget curve moves the flow's own cap with it (and, with
// flow.DemandBudget, the demand itself). The presets' settings come from
// the facade, so that "aspects" here is exactly what
// flowreader.New(flowreader.Config{}) runs at the default budget. Ranked
// routers list budget nodes. Selectors: greedy (paper v3 §3.5) and annealed
// (replicator dynamics).
func DefaultRegistry() *Registry {
	r := &Registry{}
	// The zero Config's parts, as flowreader.New fills them.
	def := flowreader.Config{Router: &flow.Aspects{}, Selector: selector.Annealed()}
	paper := flowreader.PaperAspects()
	r.AddScoring(ScoreAspects, def.Scoring)
	noHop := def.Scoring
	noHop.HopAlpha = -1
	r.AddScoring(ScoreRelevance, noHop)
	r.AddScoring(ScoreAspectsPaper, paper.Scoring)
	r.AddScoring(ScoreClassic, flowreader.Classic().Scoring)
	r.AddScoring(ScoreDense, score.Config{BM25Weight: -1, RefBoost: -1, HopAlpha: -1}) // r = max(cos,0), h = r / max r
	r.AddSelector("greedy", selector.Greedy())
	r.AddSelector("annealed", selector.Annealed())

	preset := func(name, doc string, cfg flowreader.Config) {
		r.AddRouter(RouterDef{Name: name, Scoring: name, BudgetAware: true, Doc: doc, Selector: selectorName(cfg.Selector), Router: cfg.Router})
	}
	preset("aspects", "the default, the zero flowreader.Config (hybrid relevance and the hop step, demand = budget, no node credit, b = 0.2)", def)
	preset("aspects-paper", "aspects routing exactly as paper v3", paper)
	r.AddRouter(RouterDef{Name: "classic", Scoring: ScoreClassic, Doc: "classic v1 flow (paper v1)", Router: &flow.Classic{}})
	ranked := func(name, scoring, doc string, rt flow.Router) {
		r.AddRouter(RouterDef{Name: name, Scoring: scoring, Ranked: true, BudgetAware: true, Doc: doc, Router: rt})
	}
	ranked("topk", ScoreRelevance, "top-k by the default relevance", &baselines.TopK{})
	ranked("topk-dense", ScoreDense, "top-k by cosine only", &baselines.TopK{Name: "topk-dense"})
	mmrLambda := func(v float64) (flow.Router, error) {
		if !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("MMR λ %v not in (0, 1]", v)
		}
		return &baselines.MMRTopK{Lambda: v}, nil
	}
	r.AddRouter(RouterDef{Name: "mmr", Scoring: ScoreRelevance, Ranked: true, BudgetAware: true, Router: &baselines.MMRTopK{}, Param: mmrLambda,
		Doc: "MMR top-k on h (λ 0.7; mmr@λ sets λ)"})
	r.AddRouter(RouterDef{Name: "hop-mmr", Scoring: ScoreAspects, Ranked: true, BudgetAware: true, Router: &baselines.MMRTopK{}, Param: mmrLambda,
		Doc: "MMR top-k on the hop-aware h (λ 0.7; hop-mmr@λ sets λ)"})
	ranked("ppr", ScoreRelevance, "personalised PageRank top-k", &baselines.PPRTopK{})
	ablation := func(name, doc string, set func(a *flow.Aspects)) {
		a := &flow.Aspects{}
		set(a)
		r.AddRouter(RouterDef{Name: name, Scoring: ScoreRelevance, BudgetAware: true, Doc: doc, Router: a})
	}
	ablation("shortest", "aspects without unit capacities", func(a *flow.Aspects) { a.ShortestPath = true })
	ablation("docorder", "aspects with arcs in document order", func(a *flow.Aspects) { a.DocumentOrder = true })
	ablation("singlesink", "aspects with one aspect", func(a *flow.Aspects) { a.SingleSink = true })
	ablation("noagreement", "aspects with ω ≡ 1", func(a *flow.Aspects) { a.NoAgreement = true })
	ablation("nocredit", "aspects without node credit", func(a *flow.Aspects) { a.NodeCredit = false })
	r.AddRouter(RouterDef{Name: "hop", Scoring: ScoreAspects, BudgetAware: true, Selector: selectorName(def.Selector),
		Doc: "the default aspects router on the hop-aware scores (question titles, title mentions α 0.9, entities 0.6, 5 seeds): aspects", Router: &flow.Aspects{}})
	ranked("hop-topk", ScoreAspects, "top-k by the hop-aware scores", &baselines.TopK{Name: "hop-topk"})
	return r
}

// selectorName is the registry name of a preset's selector (nil: the
// facade's default, annealed).
func selectorName(s selector.Selector) string {
	if s == nil || s == selector.Annealed() {
		return "annealed"
	}
	return "greedy"
}
