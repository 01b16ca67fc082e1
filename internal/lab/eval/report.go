package eval

import (
	"fmt"
	"sort"
	"strings"
)

// Row is one line of the results table: a router with its selector at one
// budget on one dataset (or subset, or the macro average).
type Row struct {
	Dataset, Router, Selector string
	Budget                    int
	Summary
}

// Comparison is a router against the baseline router on the same questions
// of one dataset at one budget.
type Comparison struct {
	Dataset, Router, Selector string
	Budget                    int
	// Baseline names the baseline router, or OriginalBaseline for a
	// comparison of an augmented dataset with its original
	// (CompareVariants).
	Baseline string
	// Recall is the paired difference in evidence recall (router −
	// baseline) over questions with evidence; DocRecall likewise.
	Recall, DocRecall Interval
	// AnswerF1 is the paired difference in the extractive reader's answer
	// F1 over the questions both answered (N = 0 without Runner.Extract).
	AnswerF1 Interval
	// OnlyRouter and OnlyBaseline count questions where only one of the two
	// covered all gold; P is McNemar's two-sided p-value.
	OnlyRouter, OnlyBaseline int
	P                        float64
}

// MacroName is the Dataset of macro-average rows.
const MacroName = "macro"

// groups returns the reporting groups in order: each dataset, or each of
// its subsets when it has them, as (name, question indexes); then each
// dataset with subsets and Dataset.Overall, as a whole.
func (res *Results) groups() (names []string, members [][]int) {
	names, members, _ = res.allGroups()
	return names, members
}

// allGroups is groups with, for each group, whether it is a whole
// dataset reported beside its subsets (left out of the macro average).
func (res *Results) allGroups() (names []string, members [][]int, whole []bool) {
	idx := map[string]int{}
	for i, q := range res.Questions {
		name := res.Datasets[res.DatasetOf[i]].Name
		if q.Subset != "" {
			name += "/" + q.Subset
		}
		k, ok := idx[name]
		if !ok {
			k = len(names)
			idx[name] = k
			names = append(names, name)
			members = append(members, nil)
		}
		members[k] = append(members[k], i)
	}
	whole = make([]bool, len(names))
	for di, ds := range res.Datasets {
		if !ds.Overall {
			continue
		}
		var all []int
		sub := false
		for i, q := range res.Questions {
			if res.DatasetOf[i] == di {
				all = append(all, i)
				sub = sub || q.Subset != ""
			}
		}
		if sub {
			names = append(names, ds.Name)
			members = append(members, all)
			whole = append(whole, true)
		}
	}
	return names, members, whole
}

// Rows summarises the results per group, router and budget, with a macro
// row per router and budget when there is more than one group.
func (res *Results) Rows() []Row {
	names, members, whole := res.allGroups()
	var rows []Row
	for gi, name := range names {
		for ri, spec := range res.Routers {
			for bi, b := range res.Budgets {
				ms := make([]Metrics, len(members[gi]))
				for k, qi := range members[gi] {
					ms[k] = res.Metrics[ri][bi][qi]
				}
				rows = append(rows, Row{Dataset: name, Router: spec.Name, Selector: spec.Selector, Budget: b, Summary: Summarize(ms)})
			}
		}
	}
	// One macro row per variant: the original datasets' groups, and each
	// augmentation's ("macro+dup").
	var variants []string
	parts := map[string]int{}
	for gi, name := range names {
		if whole[gi] {
			continue
		}
		v := variantOf(name)
		if parts[v] == 0 {
			variants = append(variants, v)
		}
		parts[v]++
	}
	groupRows := rows
	for _, v := range variants {
		if parts[v] < 2 {
			continue
		}
		for _, spec := range res.Routers {
			for _, b := range res.Budgets {
				var ss []Summary
				for k, row := range groupRows {
					gi := k / (len(res.Routers) * len(res.Budgets))
					if whole[gi] || variantOf(names[gi]) != v {
						continue
					}
					if row.Router == spec.Name && row.Selector == spec.Selector && row.Budget == b {
						ss = append(ss, row.Summary)
					}
				}
				rows = append(rows, Row{Dataset: MacroName + v, Router: spec.Name, Selector: spec.Selector, Budget: b, Summary: Macro(ss)})
			}
		}
	}
	return rows
}

// variantOf is the augmentation suffix of a group name ("+dup" of
// "2wiki+dup/comparison"), "" for an original dataset.
func variantOf(group string) string {
	ds, _, _ := strings.Cut(group, "/")
	if i := strings.IndexByte(ds, '+'); i >= 0 {
		return ds[i:]
	}
	return ""
}

// Compare pairs every router with the baseline (the first router named
// baseline) per group and budget: bootstrap intervals (resamples, seed) on
// evidence and document recall, McNemar on all-gold coverage.
func (res *Results) Compare(baseline string, resamples int, seed uint64) ([]Comparison, error) {
	base := -1
	for i, s := range res.Routers {
		if s.Name == baseline {
			base = i
			break
		}
	}
	if base < 0 {
		return nil, fmt.Errorf("%w: baseline router %q not in the run", ErrConfig, baseline)
	}
	names, members := res.groups()
	var out []Comparison
	for gi, name := range names {
		for ri, spec := range res.Routers {
			if ri == base {
				continue
			}
			for bi, b := range res.Budgets {
				var ra, rb, da, db, fa, fb []float64
				var ga, gb []bool
				for _, qi := range members[gi] {
					x, y := res.Metrics[ri][bi][qi], res.Metrics[base][bi][qi]
					if x.HasEvidence && y.HasEvidence {
						ra, rb = append(ra, x.EvidenceRecall), append(rb, y.EvidenceRecall)
						ga, gb = append(ga, x.AllGold), append(gb, y.AllGold)
					}
					if x.HasDoc && y.HasDoc {
						da, db = append(da, x.DocRecall), append(db, y.DocRecall)
					}
					if x.HasF1 && y.HasF1 {
						fa, fb = append(fa, x.F1), append(fb, y.F1)
					}
				}
				c := Comparison{Dataset: name, Router: spec.Name, Selector: spec.Selector, Budget: b, Baseline: baseline,
					Recall:    PairedBootstrap(ra, rb, resamples, 0.95, seed),
					DocRecall: PairedBootstrap(da, db, resamples, 0.95, seed),
					AnswerF1:  PairedBootstrap(fa, fb, resamples, 0.95, seed)}
				c.OnlyRouter, c.OnlyBaseline, c.P = McNemar(ga, gb)
				out = append(out, c)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Budget < out[j].Budget })
	return out, nil
}

// OriginalBaseline is the Baseline of CompareVariants' comparisons: the same
// router on the original dataset.
const OriginalBaseline = "the original set"

// CompareVariants pairs every group of an augmented dataset ("X+name", made
// by Augment.Apply) with the same group of its original X in the run, for
// every router and budget: the differences (augmented − original) over the
// questions both hold, matched by question ID, with their bootstrap
// intervals and McNemar's test. Baseline is OriginalBaseline.
func (res *Results) CompareVariants(resamples int, seed uint64) []Comparison {
	names, members := res.groups()
	group := map[string]int{}
	for gi, n := range names {
		group[n] = gi
	}
	var out []Comparison
	for gi, name := range names {
		ds, sub, _ := strings.Cut(name, "/")
		orig, _, ok := strings.Cut(ds, "+")
		if !ok {
			continue
		}
		if sub != "" {
			orig += "/" + sub
		}
		oi, ok := group[orig]
		if !ok {
			continue
		}
		byID := map[string]int{}
		for _, qi := range members[oi] {
			byID[res.Questions[qi].ID] = qi
		}
		for ri, spec := range res.Routers {
			for bi, b := range res.Budgets {
				var ra, rb, da, db []float64
				var ga, gb []bool
				for _, qi := range members[gi] {
					oq, ok := byID[res.Questions[qi].ID]
					if !ok {
						continue
					}
					x, y := res.Metrics[ri][bi][qi], res.Metrics[ri][bi][oq]
					if x.HasEvidence && y.HasEvidence {
						ra, rb = append(ra, x.EvidenceRecall), append(rb, y.EvidenceRecall)
						ga, gb = append(ga, x.AllGold), append(gb, y.AllGold)
					}
					if x.HasDoc && y.HasDoc {
						da, db = append(da, x.DocRecall), append(db, y.DocRecall)
					}
				}
				c := Comparison{Dataset: name, Router: spec.Name, Selector: spec.Selector, Budget: b, Baseline: OriginalBaseline,
					Recall:    PairedBootstrap(ra, rb, resamples, 0.95, seed),
					DocRecall: PairedBootstrap(da, db, resamples, 0.95, seed)}
				c.OnlyRouter, c.OnlyBaseline, c.P = McNemar(ga, gb)
				out = append(out, c)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Budget < out[j].Budget })
	return out
}
