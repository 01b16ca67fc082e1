package reader

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/score"
)

// System-2 defaults (v1 Table 5 and METHOD A.7).
const (
	// DefaultLambda is λ of the damped re-weighting.
	DefaultLambda = 0.6
	// DefaultBound is ε_w, the largest change of one re-weighting.
	DefaultBound = 0.30
	// DefaultBridgeAccept: a bridge is added when its SCORE exceeds this.
	DefaultBridgeAccept = 0.10
	// DefaultScorerTemperature is the B.5/B.6 decoding temperature.
	DefaultScorerTemperature = 0.2
	// DefaultPairs caps T1 bridge candidates, and every edge-scorer list (proposed).
	DefaultPairs = 8
	// DefaultSeedDepth is the T3 BFS depth and DefaultSeeds the new seeds.
	DefaultSeedDepth = 2
	DefaultSeeds     = 8
	// DefaultMaxCalls bounds the model calls of one Read with System 2 (the
	// paper's worst case).
	DefaultMaxCalls = 48
)

// System2Config configures the System-2 pass. Zero values mean defaults.
type System2Config struct {
	// Lambda and Bound are λ and ε_w of p_new = p_old + sign(Δ)·min(ε_w, |Δ|),
	// Δ = λ(p̂ − p_old).
	Lambda, Bound float64
	// BridgeAccept is the SCORE a bridge must exceed (0: 0.10).
	BridgeAccept float64
	// Temperature of the bridge and edge scorers (0: 0.2; negative: 0).
	Temperature float64
	// Pairs caps the T1 bridge candidates and each list of edges re-scored
	// by B.6 (0: 8).
	Pairs int
	// SeedDepth and Seeds shape T3's source expansion (0: 2 and 8).
	SeedDepth, Seeds int
	// MaxCalls bounds the calls of the whole Read: scorer calls are cut so
	// that the re-read and synthesis still fit (0: 48).
	MaxCalls int
	// CitedBoost, when positive, raises h (clipped to 1) of the nodes that
	// supported System-1 drafts cite before re-routing (METHOD A.7's
	// optional h-boost; 0: off, the default).
	CitedBoost float64
}

func (c System2Config) withDefaults() System2Config {
	if c.Lambda == 0 {
		c.Lambda = DefaultLambda
	}
	if c.Bound == 0 {
		c.Bound = DefaultBound
	}
	if c.BridgeAccept == 0 {
		c.BridgeAccept = DefaultBridgeAccept
	}
	switch {
	case c.Temperature == 0:
		c.Temperature = DefaultScorerTemperature
	case c.Temperature < 0:
		c.Temperature = 0
	}
	c.Pairs = orDefault(c.Pairs, DefaultPairs)
	c.SeedDepth = orDefault(c.SeedDepth, DefaultSeedDepth)
	c.Seeds = orDefault(c.Seeds, DefaultSeeds)
	c.MaxCalls = orDefault(c.MaxCalls, DefaultMaxCalls)
	return c
}

// Editor picks what System 2 edits (METHOD A.7). The flow package's
// functions are the default (FlowEditor); tests substitute their own.
type Editor interface {
	// CutPairs: T1 non-edges across the min cut, top k.
	CutPairs(g *graph.Graph, s *score.Scores, r *flow.Routing, k int) [][2]int
	// CutEdges: T1 existing edges incident to cut nodes, at most k.
	CutEdges(g *graph.Graph, r *flow.Routing, k int) [][2]int
	// TopFlowEdges: T2 content edges in the top decile of flow.
	TopFlowEdges(r *flow.Routing) [][2]int
	// ExpandSources: T3 new seeds, BFS to depth from the sources, top k by φ.
	ExpandSources(g *graph.Graph, s *score.Scores, r *flow.Routing, depth, k int) []int
	// SourceEdges: T3 edges incident to sources, at most k.
	SourceEdges(g *graph.Graph, r *flow.Routing, sources []int, k int) [][2]int
	// Affinity is the current affinity w_uv of a pair (after earlier edits).
	Affinity(g *graph.Graph, r *flow.Routing, u, v int) float64
}

// System2Trace records the System-2 pass.
type System2Trace struct {
	// Ran is true when the pass re-routed and re-read.
	Ran bool
	// Skipped says why a fired gate did not lead to a pass.
	Skipped string
	// Bridges is the number of T1 bridges added; Reweighted the number of
	// affinities changed; Seeds the T3 seeds added.
	Bridges, Reweighted, Seeds int
	// Edits are the edits sent to the Rerouter.
	Edits flow.Edits
	// ScorerCalls is the number of B.5/B.6 calls; ScorerCut the calls left
	// out to respect MaxCalls.
	ScorerCalls, ScorerCut int
	// ChainsRead and Reused count the System-2 chains, and those whose
	// System-1 reading of the identical chain was reused.
	ChainsRead, Reused int
	// Saturation is σ of the new routing.
	Saturation float64
	// Supported counts the supported System-2 drafts; KeptSystem1 is true
	// when there were none and the System-1 answer stands.
	Supported   int
	KeptSystem1 bool
}

type s2result struct {
	text   string
	drafts []Draft
}

// damped is METHOD A.7's re-weighting, flow.Damped, clipped to [0, 1]
// (which only bites for affinities outside [0, 1] to begin with).
func damped(pOld, pHat, lambda, bound float64) float64 {
	return math.Min(1, math.Max(0, flow.Damped(pOld, pHat, lambda, bound)))
}

// system2 runs the one System-2 pass. It returns nil (and records why) when
// the pass cannot run or finds nothing supported.
func (v *VLM) system2(ctx context.Context, r *run, s1 []Draft) (*s2result, error) {
	tr := &r.trace.System2
	in := r.in
	switch {
	case v.Rerouter == nil:
		tr.Skipped = "no Rerouter configured"
		return nil, nil
	case in.Routing == nil:
		tr.Skipped = "no routing in the input"
		return nil, nil
	}
	cfg := v.Pass.withDefaults()
	ed := v.Editor
	if ed == nil {
		ed = FlowEditor{}
	}
	s := in.Scores
	if s == nil {
		s = in.Routing.Scores
	}
	g, prev := in.Graph, in.Routing
	if s == nil {
		tr.Skipped = "no scores in the input or routing"
		return nil, nil
	}

	budget := v.Budget
	if budget <= 0 {
		budget = len(in.Chains)
	}
	// Scorer calls get what is left after the re-read and the synthesis.
	scorerLeft := cfg.MaxCalls - r.meter.count() - budget - 1
	if scorerLeft < 0 {
		scorerLeft = 0
	}
	take := func(ps [][2]int, k int) [][2]int {
		if len(ps) > k {
			ps = ps[:k]
		}
		if len(ps) > scorerLeft {
			tr.ScorerCut += len(ps) - scorerLeft
			ps = ps[:scorerLeft]
		}
		scorerLeft -= len(ps)
		return ps
	}
	var edits flow.Edits
	reweight := func(ps [][2]int) error {
		scores, err := r.scorePairs(ctx, kindEdge, ps, cfg.Temperature)
		if err != nil {
			return err
		}
		for i, p := range ps {
			if math.IsNaN(scores[i]) {
				continue
			}
			old := ed.Affinity(g, prev, p[0], p[1])
			edits.Edges = append(edits.Edges, flow.EdgeEdit{U: p[0], V: p[1], Affinity: damped(old, scores[i], cfg.Lambda, cfg.Bound)})
			tr.Reweighted++
		}
		return nil
	}

	gate := r.trace.Gate
	if gate.Has(LowSaturation) {
		ps := take(ed.CutPairs(g, s, prev, cfg.Pairs), cfg.Pairs)
		scores, err := r.scorePairs(ctx, kindBridge, ps, cfg.Temperature)
		if err != nil {
			return nil, err
		}
		for i, p := range ps {
			if math.IsNaN(scores[i]) || scores[i] <= cfg.BridgeAccept {
				continue
			}
			init := math.Max(g.Cos(p[0], p[1]), 0)
			edits.Edges = append(edits.Edges, flow.EdgeEdit{U: p[0], V: p[1], Affinity: damped(init, scores[i], cfg.Lambda, cfg.Bound), Add: true})
			tr.Bridges++
		}
		if err := reweight(take(ed.CutEdges(g, prev, cfg.Pairs), cfg.Pairs)); err != nil {
			return nil, err
		}
	}
	if gate.Has(LowConsistency) {
		if err := reweight(take(ed.TopFlowEdges(prev), cfg.Pairs)); err != nil {
			return nil, err
		}
	}
	if gate.Has(NoSupport) {
		seeds := ed.ExpandSources(g, s, prev, cfg.SeedDepth, cfg.Seeds)
		edits.Sources = append(edits.Sources, seeds...)
		tr.Seeds = len(seeds)
		srcs := append(append([]int(nil), prev.Sources...), seeds...)
		if err := reweight(take(ed.SourceEdges(g, prev, srcs, cfg.Pairs), cfg.Pairs)); err != nil {
			return nil, err
		}
	}
	tr.Edits = edits

	if cfg.CitedBoost > 0 {
		s = boostCited(s, r.citations("", s1), cfg.CitedBoost)
	}
	gr, err := v.Rerouter.Open(ctx, g)
	var next *flow.Routing
	if err == nil {
		if rr, ok := gr.(flow.Rerouter); ok {
			next, err = rr.Reroute(ctx, s, budget, prev, edits)
		} else {
			err = fmt.Errorf("%T cannot reroute", gr)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reader: system 2: %w", ctx.Err())
		}
		tr.Skipped = "reroute failed: " + err.Error()
		return nil, nil
	}
	tr.Saturation = next.Saturation
	var chains []flow.Chain
	if v.Selector != nil {
		chains = v.Selector.Select(next, budget)
	} else {
		chains = next.Chains
		if len(chains) > budget {
			chains = chains[:budget]
		}
	}
	var ok []flow.Chain
	for _, c := range chains {
		if validChain(g, c) && len(c.Nodes) > 0 {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		tr.Skipped = "the new routing has no chains"
		return nil, nil
	}
	reuse := map[string]Draft{}
	for _, d := range s1 {
		if d.Status != Failed {
			reuse[chainKey(d.Nodes)] = d
		}
	}
	for _, c := range ok {
		if _, hit := reuse[chainKey(c.Nodes)]; hit {
			tr.Reused++
		}
	}
	tr.Ran = true
	tr.ChainsRead = len(ok)
	drafts, err := r.readChains(ctx, ok, 2, reuse)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// All System-2 workers failed: System 1's answer stands.
		tr.KeptSystem1 = true
		return nil, nil
	}
	tr.Supported = countSupported(drafts)
	if tr.Supported == 0 {
		tr.KeptSystem1 = true
		return nil, nil
	}
	text, fb, err := r.reason(ctx, drafts)
	if err != nil {
		return nil, err
	}
	if fb != "" {
		r.trace.ReasonerFallback = fb
	}
	return &s2result{text: text, drafts: drafts}, nil
}

// boostCited returns a copy of s whose h is raised by boost (clipped to 1)
// on the cited nodes; s itself is not modified.
func boostCited(s *score.Scores, cs []Citation, boost float64) *score.Scores {
	c := *s
	c.H = append([]float64(nil), s.H...)
	for _, x := range cs {
		if x.Node < len(c.H) {
			c.H[x.Node] = math.Min(1, c.H[x.Node]+boost)
		}
	}
	return &c
}

// scorePairs runs the bridge (B.5) or edge (B.6) scorer on each pair in
// parallel; an unreadable or failed reply scores NaN (no edit).
func (r *run) scorePairs(ctx context.Context, kind string, ps [][2]int, temp float64) ([]float64, error) {
	out := make([]float64, len(ps))
	if len(ps) == 0 {
		return out, nil
	}
	tmpl := Prompt(tmplEdge)
	if kind == kindBridge {
		tmpl = Prompt(tmplBridge)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.limit)
	for k, p := range ps {
		g.Go(func() error {
			a := truncate(nodeBody(&r.in.Graph.Nodes[p[0]], false), r.keyNodeChars)
			b := truncate(nodeBody(&r.in.Graph.Nodes[p[1]], false), r.keyNodeChars)
			req := llm.UserText(fill(tmpl, "$Q$", r.in.Question, "$A$", a, "$B$", b))
			req.Temperature = temp
			req.TopP = 1
			resp, err := r.meter.generate(gctx, kind, req)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				out[k] = math.NaN()
				return nil
			}
			if kind == kindBridge {
				out[k] = ParseBridge(resp.Text)
			} else {
				out[k] = ParseEdgeScore(resp.Text)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("reader: system 2 %s scorer: %w", kind, err)
	}
	return out, nil
}

var (
	floatRE     = regexp.MustCompile(`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)
	existsRE    = regexp.MustCompile(`(?i)EXISTS\s*[:=]?\s*\**\s*(YES|NO)`)
	bridgeScore = regexp.MustCompile(`(?i)SCORE\s*[:=]?\s*\**\s*([-+]?(?:\d+\.?\d*|\.\d+))`)
)

// ParseBridge reads a B.5 reply ("EXISTS: YES SCORE: 0.7"): the score in
// [0,1] when a connection exists, 0 when EXISTS is NO, NaN when unreadable.
func ParseBridge(s string) float64 {
	m := existsRE.FindStringSubmatch(s)
	if m == nil {
		return math.NaN()
	}
	if strings.EqualFold(m[1], "NO") {
		return 0
	}
	sm := bridgeScore.FindStringSubmatch(s)
	if sm == nil {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(sm[1], 64)
	if err != nil || math.IsNaN(f) {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, f))
}

// ParseEdgeScore reads a B.6 reply: its first number, clipped to [0,1];
// NaN when there is none.
func ParseEdgeScore(s string) float64 {
	m := floatRE.FindString(s)
	if m == "" {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(m, 64)
	if err != nil || math.IsNaN(f) {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, f))
}
