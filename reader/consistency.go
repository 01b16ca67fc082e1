package reader

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/llm"
)

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
		if d.Status != Supported {
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

// ParseJudge reads the consistency judge's reply: contradiction is true for
// YES; ok is false when the reply starts with neither YES nor NO.
func ParseJudge(s string) (contradiction, ok bool) {
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

// consistency computes c = 1 − contradictions/pairs with the B.4 judge over
// the distinct supported answers of drafts (c = 1 below two answers). A
// judge call that fails or answers neither YES nor NO leaves its pair out.
func (r *run) consistency(ctx context.Context, drafts []Draft) (c float64, pairs, contradictions int, err error) {
	as := distinctSupported(drafts)
	ps := judgePairs(as, r.gate.maxPairs())
	if len(ps) == 0 {
		return 1, 0, 0, nil
	}
	verdict := make([]int, len(ps)) // 1 contradiction, 0 agreement, -1 unread
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.limit)
	tmpl := Prompt(tmplJudge)
	for k, p := range ps {
		g.Go(func() error {
			req := llm.UserText(fill(tmpl, "$Q$", r.in.Question, "$A$", as[p[0]].text, "$B$", as[p[1]].text))
			req.TopP = 1
			resp, err := r.meter.generate(gctx, kindJudge, req)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				verdict[k] = -1
				return nil
			}
			yes, ok := ParseJudge(resp.Text)
			switch {
			case !ok:
				verdict[k] = -1
			case yes:
				verdict[k] = 1
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, 0, 0, fmt.Errorf("reader: consistency: %w", err)
	}
	for _, v := range verdict {
		if v >= 0 {
			pairs++
			contradictions += v
		}
	}
	if pairs == 0 {
		return 1, 0, 0, nil
	}
	return 1 - float64(contradictions)/float64(pairs), pairs, contradictions, nil
}
