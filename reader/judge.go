package reader

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/llmfunc"
)

// Judge is an optional capability of a [Reader]: the model calls that the
// dual-process gate and its System-2 pass need besides reading (paper v1
// §3.5; prompts B.4–B.6). [VLM] implements it; the extractive reader, which
// has no model, does not, so System 2 cannot run over it.
type Judge interface {
	// Consistency judges the distinct supported answers of drafts pairwise
	// (B.4) and returns c = 1 − contradictions/pairs in
	// Judgement.Consistency (1 with fewer than two distinct answers).
	Consistency(ctx context.Context, question string, drafts []Draft) (Judgement, error)
	// ScorePairs scores node pairs of g for the question: with bridge set,
	// whether a bridging connection exists (B.5: the SCORE when EXISTS is
	// YES, 0 when NO), else the relevance of the pair as an edge (B.6);
	// each in [0, 1], NaN when the reply is unreadable or the call failed.
	ScorePairs(ctx context.Context, question string, g *graph.Graph, pairs [][2]int, bridge bool) (Judgement, error)
}

var _ Judge = (*VLM)(nil)

// Judgement is the outcome of a [Judge] call with the model calls it spent.
type Judgement struct {
	// Consistency is c, and Pairs and Contradictions the judged pairs and
	// those judged contradictory (Consistency only). A pair whose call
	// failed or whose reply is neither YES nor NO is not counted.
	Consistency           float64
	Pairs, Contradictions int
	// Scores holds one score per pair (ScorePairs only).
	Scores []float64
	// Calls, PromptTokens and CompletionTokens count what was spent.
	Calls, PromptTokens, CompletionTokens int
}

// judgeMaxPairs caps the pairs of answers the B.4 judge compares
// (heaviest chains first); the paper leaves it open.
const judgeMaxPairs = 10

// scorerTemperature is the decoding temperature of the B.5 and B.6
// scorers (paper v1 Table 5).
const scorerTemperature = 0.2

// Consistency implements [Judge] with the B.4 judge prompt.
func (v *VLM) Consistency(ctx context.Context, question string, drafts []Draft) (Judgement, error) {
	if v.Model == nil {
		return Judgement{}, fmt.Errorf("%w: no model", ErrInput)
	}
	m := newMeter(v.Model)
	as := distinctSupported(drafts)
	ps := judgePairs(as, judgeMaxPairs)
	j := Judgement{Consistency: 1}
	if len(ps) == 0 {
		return j, nil
	}
	verdict := make([]int, len(ps)) // 1 contradiction, 0 agreement, -1 unread
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(v.limit())
	tmpl := prompt(tmplJudge)
	for k, p := range ps {
		g.Go(func() error {
			req := llmfunc.UserText(fill(tmpl, "$Q$", question, "$A$", as[p[0]].text, "$B$", as[p[1]].text))
			req.TopP = 1
			resp, err := m.generate(gctx, kindJudge, req)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				verdict[k] = -1
				return nil
			}
			yes, ok := parseJudge(resp.Text)
			switch {
			case !ok:
				verdict[k] = -1
			case yes:
				verdict[k] = 1
			}
			return nil
		})
	}
	err := g.Wait()
	m.fillJudgement(&j)
	if err != nil {
		return j, fmt.Errorf("reader: consistency: %w", err)
	}
	for _, x := range verdict {
		if x >= 0 {
			j.Pairs++
			j.Contradictions += x
		}
	}
	if j.Pairs > 0 {
		j.Consistency = 1 - float64(j.Contradictions)/float64(j.Pairs)
	}
	return j, nil
}

// ScorePairs implements [Judge] with the B.5 (bridge) and B.6 (edge)
// scorer prompts, one call per pair in parallel.
func (v *VLM) ScorePairs(ctx context.Context, question string, gr *graph.Graph, pairs [][2]int, bridge bool) (Judgement, error) {
	if v.Model == nil {
		return Judgement{}, fmt.Errorf("%w: no model", ErrInput)
	}
	if gr == nil {
		return Judgement{}, fmt.Errorf("%w: no graph", ErrInput)
	}
	for _, p := range pairs {
		if p[0] < 0 || p[1] < 0 || p[0] >= len(gr.Nodes) || p[1] >= len(gr.Nodes) {
			return Judgement{}, fmt.Errorf("%w: pair (%d,%d) outside the graph of %d nodes", ErrInput, p[0], p[1], len(gr.Nodes))
		}
	}
	m := newMeter(v.Model)
	j := Judgement{Scores: make([]float64, len(pairs))}
	if len(pairs) == 0 {
		return j, nil
	}
	kind, tmpl, parse := kindEdge, prompt(tmplEdge), parseEdgeScore
	if bridge {
		kind, tmpl, parse = kindBridge, prompt(tmplBridge), parseBridge
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(v.limit())
	for k, p := range pairs {
		g.Go(func() error {
			a := truncate(nodeBody(&gr.Nodes[p[0]], false), keyNodeChars)
			b := truncate(nodeBody(&gr.Nodes[p[1]], false), keyNodeChars)
			req := llmfunc.UserText(fill(tmpl, "$Q$", question, "$A$", a, "$B$", b))
			req.Temperature = scorerTemperature
			req.TopP = 1
			resp, err := m.generate(gctx, kind, req)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				j.Scores[k] = math.NaN()
				return nil
			}
			j.Scores[k] = parse(resp.Text)
			return nil
		})
	}
	err := g.Wait()
	m.fillJudgement(&j)
	if err != nil {
		return j, fmt.Errorf("reader: %s scorer: %w", kind, err)
	}
	return j, nil
}

// distinctAnswer is one distinct normalised supported answer with the
// largest flow among the drafts that gave it.
type distinctAnswer struct {
	text   string
	weight float64
}

func distinctSupported(drafts []Draft) []distinctAnswer {
	var out []distinctAnswer
	at := map[string]int{}
	for _, d := range drafts {
		if d.Status != StatusSupported {
			continue
		}
		k := normalise(d.Answer)
		if i, ok := at[k]; ok {
			out[i].weight = max(out[i].weight, d.Flow)
			continue
		}
		at[k] = len(out)
		out = append(out, distinctAnswer{text: d.Answer, weight: d.Flow})
	}
	return out
}

// judgePairs orders all pairs of distinct answers by the summed weight of
// their chains (ties: lower indexes) and keeps the first limit.
func judgePairs(as []distinctAnswer, limit int) [][2]int {
	var ps [][2]int
	for i := range as {
		for j := i + 1; j < len(as); j++ {
			ps = append(ps, [2]int{i, j})
		}
	}
	sort.SliceStable(ps, func(a, b int) bool {
		return as[ps[a][0]].weight+as[ps[a][1]].weight > as[ps[b][0]].weight+as[ps[b][1]].weight
	})
	if len(ps) > limit {
		ps = ps[:limit]
	}
	return ps
}

// parseJudge reads the consistency judge's reply: contradiction is true for
// YES; ok is false when the reply starts with neither YES nor NO.
func parseJudge(s string) (contradiction, ok bool) {
	f := strings.Fields(strings.ToUpper(stripFences(s)))
	for _, w := range f {
		w = strings.Trim(w, ".,;:!*\"'`()[]")
		switch w {
		case "YES":
			return true, true
		case "NO":
			return false, true
		case "":
			continue
		}
		return false, false
	}
	return false, false
}

var (
	floatRE     = regexp.MustCompile(`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)
	existsRE    = regexp.MustCompile(`(?i)EXISTS\s*[:=]?\s*\**\s*(YES|NO)`)
	bridgeScore = regexp.MustCompile(`(?i)SCORE\s*[:=]?\s*\**\s*([-+]?(?:\d+\.?\d*|\.\d+))`)
)

// parseBridge reads a B.5 reply ("EXISTS: YES SCORE: 0.7"): the score in
// [0,1] when a connection exists, 0 when EXISTS is NO, NaN when unreadable.
func parseBridge(s string) float64 {
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

// parseEdgeScore reads a B.6 reply: its first number, clipped to [0,1];
// NaN when there is none.
func parseEdgeScore(s string) float64 {
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
