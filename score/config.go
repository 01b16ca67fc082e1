package score

import (
	"fmt"
	"math"
)

// Config holds the constants of query scoring. Start from a preset
// ([AspectsConfig], [AspectsPaperConfig] or [ClassicConfig]) and change
// fields. A zero field switches its signal off where its comment says so;
// the zero Config is dense relevance alone, r = max(cos,0) and
// h = r / max r.
//
// The paper's ablations are single fields: no BM25 is BM25Weight = 0
// (Scores.BM25 is nil), no reference boost RefBoost = 0 (Scores.Ref is nil),
// no propagation PropagationWeight = 0 (Scores.Phi is nil), no diffusion
// DiffusionWeight = 0 (Scores.Psi is nil), and relevance only (classic)
// RelevanceWeight = 1 with the other two weights 0.
type Config struct {
	// BM25Weight is α in r = (1-α)·max(cos,0) + α·b + ρ_ref·ℓ (paper v1
	// §3.3: 0.5). Zero means dense relevance only.
	BM25Weight float64
	// RefBoost is ρ_ref, the boost of a node whose references meet the
	// question's (paper v3 §3.1, Eq. 1: 0.3). Zero switches it off.
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
	// and λ_ψ (paper v1 Table 5: 0.5, 0.3, 0.2), used with Fusion only. A
	// zero weight switches its signal off (it is then not computed). They
	// must sum to at most 1 so that h stays in [0,1].
	RelevanceWeight, PropagationWeight, DiffusionWeight float64

	// MinEdgeWeight is r_min: φ and ψ see only the edges of weight w ≥ r_min
	// (paper v1 Table 5: 0.22). Zero keeps every edge.
	MinEdgeWeight float64

	// Sources is |S|, the number of sources picked by maximal marginal
	// relevance with weight λ_MMR = 0.7 (paper v1 §3.4: 8); zero picks none
	// (Scores.Sources is nil).
	Sources int
	// Sinks is |T|, the number of sinks by answerability with visual bonus
	// β_v = 0.05 (paper v1 §3.4: 8); zero switches answerability off
	// (Scores.A and Sinks are nil).
	Sinks int
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

// ClassicConfig is the classic formulation (paper v1 §3.3–3.4):
// r = 0.5·max(cos,0) + 0.5·BM25, edges below 0.22 pruned, φ and ψ,
// h = 0.5r + 0.3φ + 0.2ψ, 8 MMR sources and 8 sinks by answerability. No
// reference boost.
func ClassicConfig() Config {
	return Config{
		BM25Weight:      0.5,
		Fusion:          true,
		RelevanceWeight: 0.5, PropagationWeight: 0.3, DiffusionWeight: 0.2,
		MinEdgeWeight: 0.22,
		Sources:       8,
		Sinks:         8,
	}
}

// AspectsPaperConfig is the aspect formulation exactly as paper v3 §3.1
// states it: r = clip(cos + 0.3·ℓ, 0, 1), h = r / max r. No BM25.
func AspectsPaperConfig() Config {
	return Config{RefBoost: 0.3, RawCosine: true}
}

// AspectsConfig is the default: the aspect formulation with hybrid
// relevance r = clip(0.5·max(cos,0) + 0.5·BM25 + 0.3·ℓ, 0, 1) and
// h = r / max r. BM25 is back from paper v1 because with a static embedder
// it is the largest single gain in evidence recall.
func AspectsConfig() Config {
	return Config{BM25Weight: 0.5, RefBoost: 0.3}
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
		{"BM25Weight", c.BM25Weight}, {"RefBoost", c.RefBoost},
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
	case c.Sinks < 0:
		return bad("Sinks = %d, want ≥ 0", c.Sinks)
	}
	return nil
}
