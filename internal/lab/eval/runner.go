package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/score"
)

// ErrConfig is returned (wrapped) for an unusable Runner configuration.
var ErrConfig = errors.New("eval: bad configuration")

// ScoreFunc scores one question over the graph it was made for; qv is the
// question's embedding.
type ScoreFunc func(ctx context.Context, question string, qv []float32) (*score.Scores, error)

// Scoring is a named scorer configuration. NewScorer is called once per
// graph (so that per-graph state such as a BM25 index is built once) and
// the result is used for every question on that graph.
type Scoring struct {
	Name      string
	NewScorer func(g *graph.Graph) ScoreFunc
}

// RouterSpec is one row of a comparison: a router, the scoring it reads and
// the selector that picks its chains.
type RouterSpec struct {
	// Name and Selector label the row ("aspects", "greedy").
	Name, Selector string
	// Scoring names the Scoring the router's scores come from.
	Scoring string
	// Router routes the row's questions; the runner opens it once per
	// graph and passes each budget of distinct nodes to Route.
	Router flow.Router
	// BudgetAware says the routing depends on the budget; otherwise one
	// routing (at the first budget) serves every budget.
	BudgetAware bool
	// Select picks chains for a budget; nil keeps the routing's chains in
	// order. The runner then caps them at the budget in distinct nodes.
	Select func(ctx context.Context, r *flow.Routing, budget int) ([]flow.Chain, error)
}

// Runner evaluates routers on datasets: for each question it builds (or
// reuses) the graph of the question's documents, embeds the question, scores
// it once per scoring, runs every router, caps the selected chains at each
// budget of distinct nodes and measures them. All routers see the same
// graph, embedder and scores.
type Runner struct {
	// Embedder embeds nodes and questions. Required.
	Embedder llm.Embedder
	// Scorings are the scorer configurations RouterSpecs refer to.
	Scorings []Scoring
	// Routers are compared in this order.
	Routers []RouterSpec
	// Budgets are the distinct-node budgets (nil = {16}).
	Budgets []int
	// Graph configures graph construction.
	Graph GraphOptions
	// Concurrency is the number of questions in flight (0 = 2; the
	// evaluation machine has two cores).
	Concurrency int
	// Answer and JudgeModel switch on answer-accuracy mode: every router's
	// chains at every budget are answered by Answer and the answer is
	// scored by JudgeModel with the paper's judge prompt (P7). Both or
	// neither must be set.
	Answer     AnswerFunc
	JudgeModel llm.Model
	// Extract, when set, answers every extractive question with answer
	// references (Question.Extractive, AnswerRefs) from each router's
	// chains at each budget and scores the answer with QASPER's answer F1
	// (Metrics.F1); ExtractiveAnswerer is the offline reader's.
	Extract AnswerFunc
	// Progress, when set, is called after each question (from one
	// goroutine at a time).
	Progress func(done, total int)
}

// Results hold per-question metrics for every router and budget, aligned
// with Questions.
type Results struct {
	Datasets  []*Dataset
	Questions []*Question
	// DatasetOf[i] is the index in Datasets of question i.
	DatasetOf []int
	Routers   []RouterSpec
	Budgets   []int
	// Metrics[r][b][i] is question i under router r at budget b.
	Metrics [][][]Metrics
}

type graphEntry struct {
	once    sync.Once
	g       *graph.Graph
	err     error
	mu      sync.Mutex
	scorers map[string]ScoreFunc
	routers []graphRouter // per RouterSpec: the router opened on g
	refs    int
}

// graphRouter is one router opened on an entry's graph, once.
type graphRouter struct {
	once sync.Once
	gr   flow.GraphRouter
	err  error
}

// router returns router i opened on the entry's graph, opening it on first
// use: every question on the graph shares its per-graph work.
func (e *graphEntry) router(ctx context.Context, i int, rt flow.Router) (flow.GraphRouter, error) {
	o := &e.routers[i]
	o.once.Do(func() { o.gr, o.err = rt.Open(ctx, e.g) })
	return o.gr, o.err
}

// Run evaluates every question of the datasets.
func (r *Runner) Run(ctx context.Context, datasets ...*Dataset) (*Results, error) {
	if r.Embedder == nil {
		return nil, fmt.Errorf("%w: no embedder", ErrConfig)
	}
	if (r.Answer == nil) != (r.JudgeModel == nil) {
		return nil, fmt.Errorf("%w: accuracy mode needs both an answerer and a judge model", ErrConfig)
	}
	if len(r.Routers) == 0 {
		return nil, fmt.Errorf("%w: no routers", ErrConfig)
	}
	budgets := r.Budgets
	if len(budgets) == 0 {
		budgets = []int{16}
	}
	for _, b := range budgets {
		if b <= 0 {
			return nil, fmt.Errorf("%w: budget %d", ErrConfig, b)
		}
	}
	scorings := map[string]Scoring{}
	for _, s := range r.Scorings {
		scorings[s.Name] = s
	}
	for _, spec := range r.Routers {
		if _, ok := scorings[spec.Scoring]; !ok {
			return nil, fmt.Errorf("%w: router %s uses unknown scoring %q", ErrConfig, spec.Name, spec.Scoring)
		}
		if spec.Router == nil {
			return nil, fmt.Errorf("%w: router %s has no Router", ErrConfig, spec.Name)
		}
	}
	res := &Results{Datasets: datasets, Routers: r.Routers, Budgets: budgets}
	for di, ds := range datasets {
		for qi := range ds.Questions {
			res.Questions = append(res.Questions, &ds.Questions[qi])
			res.DatasetOf = append(res.DatasetOf, di)
		}
	}
	nq := len(res.Questions)
	res.Metrics = make([][][]Metrics, len(r.Routers))
	for i := range res.Metrics {
		res.Metrics[i] = make([][]Metrics, len(budgets))
		for b := range budgets {
			res.Metrics[i][b] = make([]Metrics, nq)
		}
	}

	// Graphs are cached per document set and dropped after their last
	// question.
	var cmu sync.Mutex
	cache := map[string]*graphEntry{}
	for _, q := range res.Questions {
		e := cache[q.DocSet]
		if e == nil {
			e = &graphEntry{scorers: map[string]ScoreFunc{}, routers: make([]graphRouter, len(r.Routers))}
			cache[q.DocSet] = e
		}
		e.refs++
	}
	emb := NewEmbedCache()

	workers := r.Concurrency
	if workers <= 0 {
		workers = 2
	}
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(workers)
	var pmu sync.Mutex
	done := 0
	for qi, q := range res.Questions {
		eg.Go(func() error {
			cmu.Lock()
			e := cache[q.DocSet]
			cmu.Unlock()
			e.once.Do(func() {
				if r.Graph.Build != nil {
					e.g, e.err = r.Graph.Build(ctx, q.Docs)
				} else {
					e.g, e.err = BuildGraph(ctx, r.Embedder, q.Docs, r.Graph, emb)
				}
			})
			if e.err != nil {
				return fmt.Errorf("eval: question %s: graph: %w", q.ID, e.err)
			}
			if err := r.question(ctx, res, scorings, e, qi); err != nil {
				return fmt.Errorf("eval: question %s: %w", q.ID, err)
			}
			cmu.Lock()
			if e.refs--; e.refs == 0 {
				delete(cache, q.DocSet)
			}
			cmu.Unlock()
			if r.Progress != nil {
				pmu.Lock()
				done++
				r.Progress(done, nq)
				pmu.Unlock()
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return res, nil
}

func (r *Runner) question(ctx context.Context, res *Results, scorings map[string]Scoring, e *graphEntry, qi int) error {
	q := res.Questions[qi]
	g := e.g
	vs, err := r.Embedder.Embed(ctx, []string{q.Text}, llm.KindQuery)
	if err != nil {
		return fmt.Errorf("embedding the question: %w", err)
	}
	if len(vs) != 1 {
		return fmt.Errorf("embedder returned %d vectors for one question", len(vs))
	}
	qv := vs[0]
	scores := map[string]*score.Scores{}
	for i, spec := range res.Routers {
		s, ok := scores[spec.Scoring]
		if !ok {
			e.mu.Lock()
			f := e.scorers[spec.Scoring]
			if f == nil {
				f = scorings[spec.Scoring].NewScorer(g)
				e.scorers[spec.Scoring] = f
			}
			e.mu.Unlock()
			if s, err = f(ctx, q.Text, qv); err != nil {
				return fmt.Errorf("scoring %s: %w", spec.Scoring, err)
			}
			scores[spec.Scoring] = s
		}
		gr, err := e.router(ctx, i, spec.Router)
		if err != nil {
			return fmt.Errorf("router %s: %w", spec.Name, err)
		}
		var routing *flow.Routing
		for b, budget := range res.Budgets {
			if routing == nil || spec.BudgetAware {
				if routing, err = gr.Route(ctx, s, budget); err != nil {
					return fmt.Errorf("router %s: %w", spec.Name, err)
				}
			}
			chains := routing.Chains
			if spec.Select != nil {
				if chains, err = spec.Select(ctx, routing, budget); err != nil {
					return fmt.Errorf("router %s: %w", spec.Name, err)
				}
			}
			chains = capDistinct(chains, budget)
			m := Measure(q, g, chains)
			if r.Answer != nil && len(q.Answers) > 0 {
				ans, err := r.Answer(ctx, &res.Routers[i], q, g, s, chains)
				if err != nil {
					return fmt.Errorf("router %s: %w", spec.Name, err)
				}
				v, err := Judge(ctx, r.JudgeModel, q.Text, q.Answers, ans)
				if err != nil {
					return fmt.Errorf("router %s: %w", spec.Name, err)
				}
				m.Judged, m.Correct = true, v.Accuracy == 1
			}
			if r.Extract != nil && q.Extractive && len(q.AnswerRefs) > 0 {
				ans, err := r.Extract(ctx, &res.Routers[i], q, g, s, chains)
				if err != nil {
					return fmt.Errorf("router %s: extractive answer: %w", spec.Name, err)
				}
				m.HasF1, m.F1, m.Heldout = true, AnswerF1(ans, q.AnswerRefs), HeldOut(q.ID)
			}
			res.Metrics[i][b][qi] = m
		}
	}
	return nil
}
