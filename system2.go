package flowreader

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/proposal"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/score"
)

// The dual-process gate and System 2 of paper v1 §3.5, with the constants
// of its Table 5; the ones the paper leaves open are marked.
const (
	// gateConsistency is τ: the gate fires when the consistency c < τ.
	gateConsistency = 0.65
	// gateSaturation is ξ: the gate fires when the saturation σ < ξ.
	gateSaturation = 0.60
	// reweightRate and reweightBound are λ and ε_w of the damped update
	// p_new = p_old + sign(Δ)·min(ε_w, |Δ|), Δ = λ(p̂ − p_old).
	reweightRate  = 0.6
	reweightBound = 0.30
	// bridgeAccept: a T1 bridge is added when its B.5 SCORE exceeds it.
	bridgeAccept = 0.10
	// The routing's proposal (package flow) caps the T1 bridge candidates
	// and every list of edges re-scored by B.6 at 8, and finds T3's seeds by BFS to depth 2
	// (left open by the paper).
	// maxCalls bounds the model calls of one answer with System 2, the
	// paper's worst case; scorer calls are cut so that the re-read and the
	// synthesis still fit.
	maxCalls = 48
)

// The gate's triggers, in the order their edits are applied.
const (
	triggerSaturation  = "T1 low saturation"      // σ < ξ: bridges across the min cut
	triggerConsistency = "T2 low consistency"     // c < τ: re-weight the top-flow edges
	triggerNoSupport   = "T3 no supported answer" // expand the sources
)

// System2 is the account of the dual-process gate and of the System-2 pass
// (paper v1 §3.5).
type System2 struct {
	// Consistency is c = 1 − contradictions/pairs over the distinct
	// supported System-1 answers (B.4 judge); Pairs and Contradictions the
	// judged pairs.
	Consistency           float64
	Pairs, Contradictions int
	// Saturation is σ = min(f_max/F, 1) of the System-1 routing.
	Saturation float64
	// Triggers are the triggers that fired ("T1 low saturation", "T2 low
	// consistency", "T3 no supported answer"), and Reason the decision
	// with the values measured.
	Triggers []string
	Reason   string
	// Ran is true when the pass re-routed and re-read; Skipped says why a
	// fired gate did not lead to one.
	Ran     bool
	Skipped string
	// Bridges, Reweighted and Seeds count the T1 bridges added, the
	// affinities changed and the T3 seeds added; Edits are all of them.
	Bridges, Reweighted, Seeds int
	Edits                      flow.Edits
	// ScorerCut counts the scorer calls left out to respect the call
	// bound of one answer.
	ScorerCut int
	// Routing is the new routing and Chains the chains read again.
	Routing *flow.Routing
	Chains  []flow.Chain
	// Answer is the System-2 reading (nil when the pass read nothing).
	// When it has no supported draft, KeptSystem1 is true and the
	// System-1 answer stands in Result; otherwise it is Result's answer and
	// System1 keeps the answer it replaced.
	Answer      *reader.Answer
	KeptSystem1 bool
	System1     *reader.Answer
	// Calls, PromptTokens and CompletionTokens count the judge and scorer
	// calls (the reads' calls are in the answers' traces).
	Calls, PromptTokens, CompletionTokens int
	// Total is the wall time of the gate and the pass.
	Total time.Duration
}

func (t *System2) spent(j reader.Judgement) {
	t.Calls += j.Calls
	t.PromptTokens += j.PromptTokens
	t.CompletionTokens += j.CompletionTokens
}

// system2 runs the gate on res (read by System 1 from rd, the reading of
// ev) and, when it fires, the one System-2 pass: plan every fired
// trigger's edits, re-route once, re-select, re-read (reusing identical
// chains) and keep the new answer when it has support. Only a cancelled
// context or a failed judge call that the judge reports is an error; a
// pass that cannot run says why.
func (ix *Index) system2(ctx context.Context, ev *Evidence, rd *read, res *Result) error {
	start := time.Now()
	tr := &System2{Saturation: 1}
	res.System2 = tr
	defer func() { tr.Total = time.Since(start) }()
	switch {
	case ev.routing != nil:
		tr.Saturation = ev.routing.Saturation
	case ev.Routing.Router != "": // a decoded Evidence: its summary
		tr.Saturation = ev.Routing.Saturation
	}
	s1 := res.Answer
	j, err := ix.p.judge.Consistency(ctx, ev.Question, s1.Drafts)
	tr.spent(j)
	if err != nil {
		return err
	}
	tr.Consistency, tr.Pairs, tr.Contradictions = j.Consistency, j.Pairs, j.Contradictions
	tr.Triggers, tr.Reason = gate(tr.Consistency, tr.Saturation, s1.Trace.Supported)
	if len(tr.Triggers) == 0 {
		return nil
	}
	if !rd.state {
		tr.Skipped = "the evidence carries no routing to edit (decoded, or naming nodes its steps did not score)"
		return nil
	}

	// The judge reads pairs of any scored nodes, the re-read new chains:
	// over a store, every candidate's text (one call).
	if err := ix.withText(ctx, ev.scores, allNodes(len(ev.scores.H))); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		tr.Skipped = "reading the candidates' text failed: " + err.Error()
		return nil
	}
	gr, err := ix.routerOf(ctx, ev.scores)
	if err != nil {
		return err
	}
	rr, ok := gr.(flow.Rerouter)
	if !ok {
		tr.Skipped = "the router cannot re-route (no flow.Rerouter)"
		return nil
	}
	edits, err := ix.planEdits(ctx, ev, res, tr)
	if err != nil {
		return err
	}
	tr.Edits = edits
	budget := ev.Budget
	next, err := rr.Reroute(ctx, ev.scores, budget, ev.routing, edits)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		tr.Skipped = "reroute failed: " + err.Error()
		return nil
	}
	tr.Routing = next
	if tr.Chains, err = ix.p.selector.Select(ctx, next, budget); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		tr.Skipped = "re-selection failed: " + err.Error()
		return nil
	}
	if len(tr.Chains) == 0 {
		tr.Skipped = "the new routing has no chains"
		return nil
	}
	tr.Ran = true
	in := &reader.Input{Question: ev.Question, Graph: rd.g, Chains: tr.Chains, Relevance: rd.rel, Earlier: s1}
	res.stream.hook(in, 2)
	s2, err := ix.read(ctx, in)
	if err == nil {
		res.stream.read(s2, 2)
	}
	if err != nil {
		if ctx.Err() != nil {
			// The partial re-read (its calls and tokens) stays on the account.
			tr.Answer = s2
			return ctx.Err()
		}
		// Every System-2 worker failed: System 1's answer stands.
		tr.KeptSystem1 = true
		return nil
	}
	tr.Answer = s2
	if s2.Trace.Supported == 0 {
		tr.KeptSystem1 = true
		return nil
	}
	tr.System1, res.Answer = s1, s2
	return nil
}

// gate is the dual-process gate of paper v1 §3.5: the triggers that fire
// for consistency c, saturation sigma and the number of supported drafts,
// with the reason in words.
func gate(c, sigma float64, supported int) (triggers []string, reason string) {
	var why []string
	if sigma < gateSaturation {
		triggers = append(triggers, triggerSaturation)
		why = append(why, fmt.Sprintf("saturation %.3f < ξ %.2f", sigma, gateSaturation))
	}
	if c < gateConsistency {
		triggers = append(triggers, triggerConsistency)
		why = append(why, fmt.Sprintf("consistency %.3f < τ %.2f", c, gateConsistency))
	}
	if supported == 0 {
		triggers = append(triggers, triggerNoSupport)
		why = append(why, "no supported answer")
	}
	if len(triggers) == 0 {
		return nil, fmt.Sprintf("passed: saturation %.3f ≥ %.2f, consistency %.3f ≥ %.2f, %d supported", sigma, gateSaturation, c, gateConsistency, supported)
	}
	return triggers, strings.Join(why, "; ")
}

// planEdits collects the edits of every fired trigger (paper v1 §3.5):
// T1 bridges across the min cut scored by B.5 and cut edges re-scored by
// B.6; T2 the top-decile-flow edges re-scored by B.6; T3 new seeds by BFS
// and their edges re-scored by B.6; each score applied by the damped update.
// The candidates come from the routing (internal/proposal.Propose).
func (ix *Index) planEdits(ctx context.Context, ev *Evidence, res *Result, tr *System2) (flow.Edits, error) {
	g, s, prev := ix.graphOf(ev.scores), ev.scores, ev.routing
	prop := ix.p.proposer.propose(g, s, prev, proposal.Triggers{LowSaturation: has(tr.Triggers, triggerSaturation),
		LowConsistency: has(tr.Triggers, triggerConsistency), NoSupport: has(tr.Triggers, triggerNoSupport)})
	// Scorer calls get what is left after the re-read and the synthesis.
	left := maxCalls - res.Answer.Trace.Calls - tr.Calls - ev.Budget - 1
	take := func(ps [][2]int) [][2]int {
		if n := max(left, 0); len(ps) > n {
			tr.ScorerCut += len(ps) - n
			ps = ps[:n]
		}
		left -= len(ps)
		return ps
	}
	var edits flow.Edits
	reweight := func(ps [][2]int) error {
		j, err := ix.p.judge.ScorePairs(ctx, ev.Question, g, ps, false)
		tr.spent(j)
		if err != nil {
			return err
		}
		for i, p := range ps {
			if math.IsNaN(j.Scores[i]) {
				continue
			}
			old := prop.Affinity(p[0], p[1])
			edits.Edges = append(edits.Edges, flow.EdgeEdit{U: p[0], V: p[1], Affinity: damped(old, j.Scores[i])})
			tr.Reweighted++
		}
		return nil
	}
	if has(tr.Triggers, triggerSaturation) {
		ps := take(prop.Bridges)
		j, err := ix.p.judge.ScorePairs(ctx, ev.Question, g, ps, true)
		tr.spent(j)
		if err != nil {
			return edits, err
		}
		for i, p := range ps {
			if math.IsNaN(j.Scores[i]) || j.Scores[i] <= bridgeAccept {
				continue
			}
			init := math.Max(g.Cos(p[0], p[1]), 0)
			edits.Edges = append(edits.Edges, flow.EdgeEdit{U: p[0], V: p[1], Affinity: damped(init, j.Scores[i]), Add: true})
			tr.Bridges++
		}
		if err := reweight(take(prop.CutEdges)); err != nil {
			return edits, err
		}
	}
	if has(tr.Triggers, triggerConsistency) {
		if err := reweight(take(prop.TopFlow)); err != nil {
			return edits, err
		}
	}
	if has(tr.Triggers, triggerNoSupport) {
		edits.Sources = append(edits.Sources, prop.Seeds...)
		tr.Seeds = len(prop.Seeds)
		if err := reweight(take(prop.SeedEdges)); err != nil {
			return edits, err
		}
	}
	return edits, nil
}

// damped is the damped re-weighting of paper v1 §3.5,
// p_old + sign(Δ)·min(ε_w, |Δ|) with Δ = λ(p̂ − p_old), clipped to [0, 1]
// (which only bites for affinities outside [0, 1] to begin with).
func damped(pOld, pHat float64) float64 {
	d := reweightRate * (pHat - pOld)
	p := pOld + math.Copysign(math.Min(reweightBound, math.Abs(d)), d)
	return math.Min(1, math.Max(0, p))
}

// proposer finds the candidates System 2 scores and edits (paper v1 §3.5).
// flowProposer, package flow's (internal/proposal.Propose), is the only
// production one; tests substitute theirs to pin the candidates.
type proposer interface {
	propose(g *graph.Graph, s *score.Scores, r *flow.Routing, t proposal.Triggers) proposal.Proposal
}

type flowProposer struct{}

func (flowProposer) propose(g *graph.Graph, s *score.Scores, r *flow.Routing, t proposal.Triggers) proposal.Proposal {
	return proposal.Propose(r, g, s, t)
}

func has(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
