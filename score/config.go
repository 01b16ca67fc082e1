package score

import (
	"fmt"
	"math"
)

// HMode selects how the node score h is made from the signals.
type HMode uint8

const (
	// HNormalised is the aspect formulation (METHOD B.1): h = r / max r, and
	// h = 0 everywhere when max r = 0. It is the zero value.
	HNormalised HMode = iota
	// HFusion is the classic formulation (METHOD A.1):
	// h = λ_r r + λ_φ φ + λ_ψ ψ, clipped to [0,1].
	HFusion
)

// String returns "normalised" or "fusion".
func (m HMode) String() string {
	switch m {
	case HNormalised:
		return "normalised"
	case HFusion:
		return "fusion"
	}
	return "unknown"
}

// Config holds every constant of query scoring. Start from a preset
// (AspectsConfig, AspectsPaperConfig or ClassicConfig) and change fields; a
// field set to zero switches its signal off where the field says so. The
// zero Config as a whole is read as AspectsConfig() by Scorer.
//
// Each signal has a switch for the paper's ablations:
//   - no BM25: Alpha = 0 (BM25 is then not computed, Scores.BM25 is nil);
//   - no reference boost: RhoRef = 0 (Scores.Ref is nil);
//   - φ = 0: LambdaPhi = 0 (Scores.Phi is nil);
//   - no diffusion: LambdaPsi = 0 (Scores.Psi is nil);
//   - relevance only: see Config.RelevanceOnly.
type Config struct {
	// Alpha is the BM25 weight α in r = (1-α)·max(cos,0) + α·BM25 + ρ_ref·ℓ
	// (METHOD A.1: 0.5). Zero means dense relevance only.
	Alpha float64
	// RhoRef is the reference boost ρ_ref (METHOD B.1: 0.3). Zero switches
	// the reference match off.
	RhoRef float64
	// RawCos makes the dense term the raw cosine instead of max(cos,0), as
	// in the paper's aspect relevance r = clip(cos + ρ_ref·ℓ, 0, 1) (B.1).
	// It only differs from max(cos,0) for a node with negative cosine and a
	// reference match: clip(-0.1 + 0.3) = 0.2 rather than 0.3.
	RawCos bool
	// K1 and B are the BM25 Okapi constants (METHOD A.1 [proposed]: 1.5 and
	// 0.75, the rank_bm25 defaults).
	K1, B float64

	// H selects h: HNormalised (aspects) or HFusion (classic).
	H HMode
	// LambdaR, LambdaPhi and LambdaPsi are the fusion weights of r, φ and ψ
	// (v1 Table 5: 0.5, 0.3, 0.2). Used with HFusion only. A zero weight
	// switches its signal off (it is then not computed). They must sum to at
	// most 1 so that h stays in [0,1].
	LambdaR, LambdaPhi, LambdaPsi float64

	// RMin prunes, for φ and ψ (and for flow.Classic through KeepEdge), the
	// edges with weight below it (v1 Table 5: 0.22). Zero keeps every edge.
	RMin float64

	// PhiAlpha is α_φ in Eq. 4 (METHOD A.1 [proposed]: 0.5); PhiEps is its ε
	// (1e-8); PhiTol stops the iteration at max|Δφ| < PhiTol (1e-6), or after
	// PhiMaxIter sweeps (100).
	PhiAlpha, PhiEps, PhiTol float64
	PhiMaxIter               int

	// Damping, PPRTol and PPRMaxIter are the personalised PageRank constants
	// (networkx defaults, v1 Table 4: 0.85, 1e-6, 100). The iteration stops
	// when the L1 change is below N·PPRTol, as in networkx.
	Damping, PPRTol float64
	PPRMaxIter      int
	// Seeds is the number of top-r nodes that personalise PageRank, with
	// weight ∝ r (METHOD A.1 [proposed]: 8).
	Seeds int

	// Sources is |S|, the number of MMR sources (v1: 8); zero means no
	// sources are selected (Scores.Sources is nil).
	Sources int
	// MMRLambda is λ_MMR (v1: 0.7).
	MMRLambda float64
	// MMRCandidates limits MMR to the top nodes by h; zero means every node,
	// as in the paper. The picks are exact either way: pruning by a cosine
	// bound (see doc.go) skips only nodes that cannot win.
	MMRCandidates int

	// Parallel splits the cosine pass over two goroutines from 2^19
	// multiply-adds (nodes × dimension) and, except on amd64, runs φ's and
	// PageRank's sweeps (HFusion) on two goroutines instead of sharing one
	// walk over the edges, on graphs with at least 32,768 kept edges (on
	// amd64 the shared walk's kernel serves both signals at the cost of
	// one, so splitting would only add work). The values are the same
	// either way; it shortens a query when a second core is free and
	// lengthens it when none is, and costs more CPU time in all.
	Parallel bool

	// Sinks is |T|, the number of top-answerability sinks (v1: 8); zero
	// switches answerability and sinks off (Scores.A and Sinks are nil).
	Sinks int
	// VisualBonus is β_v, added to a visual node's normalised summary length
	// (v1: 0.05).
	VisualBonus float64
}

// ClassicConfig is the classic formulation (paper v1): r = 0.5·max(cos,0) +
// 0.5·BM25, edges below 0.22 pruned, φ and ψ, h = 0.5r + 0.3φ + 0.2ψ, 8 MMR
// sources and 8 sinks by answerability. No reference boost.
func ClassicConfig() Config {
	return Config{
		Alpha: 0.5, K1: 1.5, B: 0.75,
		H:       HFusion,
		LambdaR: 0.5, LambdaPhi: 0.3, LambdaPsi: 0.2,
		RMin:     0.22,
		PhiAlpha: 0.5, PhiEps: 1e-8, PhiTol: 1e-6, PhiMaxIter: 100,
		Damping: 0.85, PPRTol: 1e-6, PPRMaxIter: 100, Seeds: 8,
		Sources: 8, MMRLambda: 0.7,
		Sinks: 8, VisualBonus: 0.05,
	}
}

// AspectsPaperConfig is the aspect formulation exactly as paper v3 states it
// (METHOD B.1): r = clip(cos + 0.3·ℓ, 0, 1), h = r / max r. No BM25.
func AspectsPaperConfig() Config {
	return Config{RhoRef: 0.3, RawCos: true, K1: 1.5, B: 0.75, H: HNormalised}
}

// AspectsConfig is the default preset: the aspect formulation with hybrid
// relevance r = clip(0.5·max(cos,0) + 0.5·BM25 + 0.3·ℓ, 0, 1) and
// h = r / max r. BM25 is back because with a static embedder it is the
// largest single gain in evidence recall (METHOD B.13, issue 11).
func AspectsConfig() Config {
	return Config{Alpha: 0.5, RhoRef: 0.3, K1: 1.5, B: 0.75, H: HNormalised}
}

// RelevanceOnly returns c with h made from r alone: for HFusion, λ_r = 1 and
// φ and ψ off (the paper's "relevance only" ablation). HNormalised already
// uses r alone, so it is returned unchanged.
func (c Config) RelevanceOnly() Config {
	if c.H == HFusion {
		c.LambdaR, c.LambdaPhi, c.LambdaPsi = 1, 0, 0
	}
	return c
}

// KeepEdge reports whether an edge of weight w survives the classic graph
// filter (w ≥ RMin). flow.Classic prunes with it so that scoring and routing
// see the same graph. The comparison is in float32, the precision of edge
// weights, so that an edge of weight float32(0.22) survives RMin = 0.22.
func (c Config) KeepEdge(w float32) bool { return w >= float32(c.RMin) }

// usesPhi and usesPsi report whether φ and ψ are computed.
func (c Config) usesPhi() bool { return c.H == HFusion && c.LambdaPhi > 0 }
func (c Config) usesPsi() bool { return c.H == HFusion && c.LambdaPsi > 0 }

// Validate reports whether c is usable; the error wraps ErrConfig.
func (c Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"Alpha", c.Alpha}, {"RhoRef", c.RhoRef}, {"K1", c.K1}, {"B", c.B},
		{"LambdaR", c.LambdaR}, {"LambdaPhi", c.LambdaPhi}, {"LambdaPsi", c.LambdaPsi},
		{"RMin", c.RMin}, {"PhiAlpha", c.PhiAlpha}, {"PhiEps", c.PhiEps}, {"PhiTol", c.PhiTol},
		{"Damping", c.Damping}, {"PPRTol", c.PPRTol}, {"MMRLambda", c.MMRLambda},
		{"VisualBonus", c.VisualBonus},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return bad("%s = %v", f.name, f.v)
		}
	}
	switch {
	case c.Alpha > 1:
		return bad("Alpha = %v > 1", c.Alpha)
	case c.B > 1:
		return bad("B = %v > 1", c.B)
	case c.H != HNormalised && c.H != HFusion:
		return bad("H = %d", c.H)
	case c.H == HFusion && c.LambdaR+c.LambdaPhi+c.LambdaPsi > 1+1e-12:
		return bad("fusion weights sum to %v > 1", c.LambdaR+c.LambdaPhi+c.LambdaPsi)
	case c.usesPhi() && (c.PhiAlpha >= 1 || c.PhiMaxIter < 1):
		return bad("PhiAlpha = %v (must be < 1), PhiMaxIter = %d (must be ≥ 1)", c.PhiAlpha, c.PhiMaxIter)
	case c.usesPsi() && (c.Damping >= 1 || c.PPRMaxIter < 1 || c.Seeds < 1):
		return bad("Damping = %v (must be < 1), PPRMaxIter = %d, Seeds = %d (must be ≥ 1)", c.Damping, c.PPRMaxIter, c.Seeds)
	case c.Sources < 0 || c.Sinks < 0 || c.MMRCandidates < 0 || c.Seeds < 0:
		return bad("negative count")
	case c.MMRLambda > 1:
		return bad("MMRLambda = %v > 1", c.MMRLambda)
	}
	return nil
}
