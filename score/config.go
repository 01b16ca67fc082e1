package score

import (
	"fmt"
	"math"
)

// Config holds the constants of query scoring. The zero Config is the
// default: hybrid relevance r = clip(0.5·max(cos,0) + 0.5·BM25 + 0.3·ℓ, 0, 1),
// the aspect score h = r / max r, and the hop step. The paper's presets
// are flowreader.PaperAspects().Scoring (v3 as written) and
// flowreader.Classic().Scoring (v1); every other variant is a change of
// fields.
//
// A field's zero value is the default's: a weight whose default is not
// zero (BM25Weight, RefBoost, HopAlpha, HopEntityAlpha) is switched off by
// a negative value. The paper's ablations are single fields: no BM25 is
// BM25Weight < 0 (Scores.BM25 is nil), no reference boost RefBoost < 0
// (Scores.Ref is nil), no hop step HopAlpha < 0, no propagation
// PropagationWeight = 0 (Scores.Phi is nil), no diffusion
// DiffusionWeight = 0 (Scores.Psi is nil).
type Config struct {
	// BM25Weight is α in r = (1-α)·max(cos,0) + α·b + ρ_ref·ℓ (paper v1
	// §3.3: 0.5). Zero means 0.5; negative means dense relevance only.
	BM25Weight float64
	// RefBoost is ρ_ref, the boost of a node whose references meet the
	// question's (paper v3 §3.1, Eq. 1: 0.3). Zero means 0.3; negative
	// switches it off.
	RefBoost float64
	// RawCosine makes the dense term the cosine itself instead of
	// max(cos,0), as in paper v3's r = clip(cos + ρ_ref·ℓ, 0, 1) (Eq. 1).
	// It differs only for a node with a negative cosine and a reference
	// match: clip(-0.1 + 0.3) = 0.2 rather than 0.3.
	RawCosine bool

	// Fusion selects the classic node score h = λ_r r + λ_φ φ + λ_ψ ψ,
	// clipped to [0,1] (paper v1 §3.3); false selects the aspect score
	// h = r / max r (paper v3 §3.1).
	Fusion bool
	// RelevanceWeight, PropagationWeight and DiffusionWeight are λ_r, λ_φ
	// and λ_ψ (paper v1 Table 5: 0.5, 0.3, 0.2, as flowreader.Classic sets them),
	// read with Fusion only. A zero weight switches its signal off (it is
	// then not computed). They must sum to at most 1 so that h stays in
	// [0,1], and to more than 0.
	RelevanceWeight, PropagationWeight, DiffusionWeight float64

	// MinEdgeWeight is r_min: φ and ψ see only the edges of weight w ≥ r_min
	// (paper v1 Table 5: 0.22, as flowreader.Classic sets it). Zero keeps every edge.
	MinEdgeWeight float64

	// Sources is |S|, the number of sources picked by maximal marginal
	// relevance with weight λ_MMR = 0.7 (paper v1 §3.4: 8, as flowreader.Classic
	// sets it); zero picks none (Scores.Sources is nil).
	Sources int
	// Sinks is |T|, the number of sinks by answerability with visual bonus
	// β_v = 0.05 (paper v1 §3.4: 8, as flowreader.Classic sets it); zero switches
	// answerability off (Scores.A and Sinks are nil).
	Sinks int

	// HopSeeds is |S| of the hop step, the most relevant nodes whose
	// relevance the nodes they name inherit (0 means 5).
	HopSeeds int
	// HopAlpha is α of the hop step, the share of a seed's relevance a node
	// it names by title inherits, in (0, 1). Zero means 0.9; negative
	// switches the hop step off.
	HopAlpha float64
	// HopEntityAlpha is the share inherited over the graph's other Link
	// edges (a shared entity, graph.MentionLinks), below 1. Zero means
	// 0.6; negative means none.
	HopEntityAlpha float64
}

// The classic score's constants, which no preset changes (paper v1
// §3.3–3.4).
const (
	// neighbourShare is α_φ in Eq. 4 of paper v1, the share of φ_v drawn
	// from its neighbours rather than from r_v (the paper does not state
	// it).
	neighbourShare = 0.5
	// damping is d, PageRank's damping factor for ψ (paper v1 §3.3, after
	// networkx).
	damping = 0.85
	// mmrWeight is λ_MMR, the weight of h against the similarity to the
	// sources picked before (paper v1 §3.4).
	mmrWeight = 0.7
	// visualBonus is β_v, added to a visual node's normalised summary
	// length in answerability (paper v1 §3.4).
	visualBonus = 0.05
)

// Numerical constants that no preset changes. BM25 is Okapi with
// rank_bm25's defaults; φ and PageRank stop as networkx's pagerank does.
const (
	bm25K1     = 1.5  // k1 of BM25 Okapi
	bm25B      = 0.75 // b of BM25 Okapi
	phiEps     = 1e-8 // ε in Eq. 4's denominator
	phiTol     = 1e-6 // φ stops at max|Δφ| < phiTol
	phiMaxIter = 100
	pprTol     = 1e-6 // PageRank stops at Σ|Δx| < N·pprTol (networkx)
	pprMaxIter = 100
	// pprSeeds is the number of top-r nodes that personalise PageRank,
	// with weight ∝ r (as many as the sources, |S| = 8).
	pprSeeds = 8
)

// bm25Weight and refBoost are α and ρ_ref after the defaults (0 when off).
func (c Config) bm25Weight() float64 { return weight(c.BM25Weight, 0.5) }
func (c Config) refBoost() float64   { return weight(c.RefBoost, 0.3) }

// weight is a weight field's value: def for 0, 0 for negative.
func weight(x, def float64) float64 {
	switch {
	case x == 0:
		return def
	case x < 0:
		return 0
	}
	return x
}

// hop returns the hop step's settings and whether it is on.
func (c Config) hop() (hopSettings, bool) {
	st := hopSettings{seeds: c.HopSeeds, alpha: weight(c.HopAlpha, 0.9), entity: weight(c.HopEntityAlpha, 0.6)}
	if st.seeds == 0 {
		st.seeds = 5
	}
	return st, c.HopAlpha >= 0
}

// usesPhi and usesPsi report whether φ and ψ are computed.
func (c Config) usesPhi() bool { return c.Fusion && c.PropagationWeight > 0 }
func (c Config) usesPsi() bool { return c.Fusion && c.DiffusionWeight > 0 }

// Validate reports whether c is usable, naming the first bad field; the
// error wraps [ErrConfig]. The zero Config is valid.
func (c Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"BM25Weight", c.BM25Weight}, {"RefBoost", c.RefBoost}, {"HopAlpha", c.HopAlpha}, {"HopEntityAlpha", c.HopEntityAlpha},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return bad("%s = %v, want a finite value", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"RelevanceWeight", c.RelevanceWeight}, {"PropagationWeight", c.PropagationWeight},
		{"DiffusionWeight", c.DiffusionWeight}, {"MinEdgeWeight", c.MinEdgeWeight},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return bad("%s = %v, want a finite value ≥ 0", f.name, f.v)
		}
	}
	switch {
	case c.BM25Weight > 1:
		return bad("BM25Weight = %v, want ≤ 1", c.BM25Weight)
	case c.Fusion && c.RelevanceWeight+c.PropagationWeight+c.DiffusionWeight > 1+1e-12:
		return bad("RelevanceWeight + PropagationWeight + DiffusionWeight = %v, want ≤ 1",
			c.RelevanceWeight+c.PropagationWeight+c.DiffusionWeight)
	case c.Sources < 0:
		return bad("Sources = %d, want ≥ 0", c.Sources)
	case c.Fusion && c.RelevanceWeight+c.PropagationWeight+c.DiffusionWeight == 0:
		return bad("Fusion with RelevanceWeight, PropagationWeight and DiffusionWeight all 0 (start from flowreader.Classic().Scoring)")
	case c.Sinks < 0:
		return bad("Sinks = %d, want ≥ 0", c.Sinks)
	case c.HopSeeds < 0:
		return bad("HopSeeds = %d, want ≥ 0", c.HopSeeds)
	case c.HopAlpha >= 1:
		return bad("HopAlpha = %v, want < 1", c.HopAlpha)
	case c.HopEntityAlpha >= 1:
		return bad("HopEntityAlpha = %v, want < 1", c.HopEntityAlpha)
	}
	return nil
}
