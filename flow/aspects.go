package flow

import (
	"context"
	"fmt"
	"math"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// Orientation says how an undirected content edge becomes one arc.
type Orientation int

const (
	// ByRelevance orients u→v when (h_u, u) < (h_v, v) lexicographically
	// (METHOD B.2): chains climb in relevance and the network is a DAG.
	ByRelevance Orientation = iota
	// ByDocument orients by (document, reading order, index): the
	// "document order" ablation of Table 3. Also a DAG.
	ByDocument
)

// BridgeMode selects the bridge term of the edge score p_uv.
type BridgeMode int

const (
	// BridgeBinary is 1 when the two nodes share a keyword whose document
	// frequency is in [2, cutoff] (METHOD B.3).
	BridgeBinary BridgeMode = iota
	// BridgeGraded is max over such keywords of log(N/df)/log(N).
	BridgeGraded
	// BridgeOff drops the bridge term.
	BridgeOff
)

// DemandRule selects the demand F0 of an aspects network.
type DemandRule int

const (
	// DemandRatio is the paper's participation ratio (Σ z)²/Σ z² of the
	// excess relevance z_v = max(0, h_v − τ) (METHOD B.4).
	DemandRatio DemandRule = iota
	// DemandRelevant is the number of nodes with h_v ≥ τ, the size of the
	// paper's relevant set C (issue 11). Under hybrid relevance the
	// participation ratio is far below that count (a few nodes near h = 1
	// dominate Σ z²), so the flow would read fewer nodes than there is
	// relevant evidence; the count still reads nothing off-topic.
	DemandRelevant
	// DemandBudget is F0 = FMax, the read budget, but no more than the
	// number of nodes with h_v ≥ DemandFloor: the flow reads as many nodes
	// as top-k would, yet never pads the budget with nodes far below the
	// best one (a small corpus with off-topic documents).
	DemandBudget
)

// KappaMode selects the spread that calibrates the termination scale κ.
type KappaMode int

const (
	// KappaCost is the paper's κ = b/(1-b) · sd(w_uv) / sd(c_a(v)).
	KappaCost KappaMode = iota
	// KappaRelevance uses the spread of h over nodes instead of sd(w)
	// (a METHOD B.13 remedy): κ = b/(1-b) · sd(h) / sd(c_a(v)).
	KappaRelevance
)

// KappaPool selects the arcs whose costs calibrate the termination scale κ.
type KappaPool int

const (
	// PoolAll pools every content arc (sd(w)) and every terminal arc
	// (sd(c_a(v))), as the paper does (METHOD B.6).
	PoolAll KappaPool = iota
	// PoolLive pools only the arcs of the live sub-network, those whose
	// tail the source can reach (see liveNodes): the only arcs that can
	// carry flow. Dead arcs cannot influence the flow, but pooled they let
	// nodes that can never be routed (under DemandFloor, most of a large
	// corpus) set the cost scale of the ones that can. It also lets the
	// router compute the alignments c_a(v) of live nodes only, about A
	// cosine passes over the corpus saved per query. It equals PoolAll
	// when every node is live.
	PoolLive
)

// Aspects is the v3 aspect formulation (METHOD B.2–B.8): a DAG of content
// arcs oriented toward higher relevance, entry arcs from s at every node,
// spectral aspect terminals with capacities d_a summing to the demand F0, and
// one min-cost flow whose decomposition gives the chains.
//
// Start from PaperAspects (METHOD B exactly) or DefaultAspects and change
// fields; the zero value is rejected with ErrConfig. Routers from those
// constructors remember the content edges of the last graph routed (graphs
// are immutable), so routing many queries over one graph skips rebuilding
// them; an Aspects is safe for concurrent use. Fields marked
// [proposed] are the spec's reconstructions of terms the paper lost.
type Aspects struct {
	// Label names the router in Routing.Router ("" = "aspects").
	Label string
	// Solver solves the network; nil means &mcf.SSP{}.
	Solver mcf.Solver

	// EdgeKinds selects the graph edges that are content edges (METHOD
	// B.2: links and kNN; reading order comes from OrderWindow).
	EdgeKinds graph.EdgeKind
	// OrderWindow adds reading-order edges between nodes of one document at
	// most this many positions apart (B.2: 1); 0 adds none. [proposed]
	OrderWindow int
	// Orientation orients content edges (B.2: ByRelevance).
	Orientation Orientation
	// OrderCredit is subtracted from w_uv on arcs between nodes of one
	// document at most OrderWindow positions apart, so that chains can
	// follow adjacent table rows and paragraphs into the most relevant
	// node (issue 11; paper: 0). It never makes a cycle: arcs stay oriented.
	OrderCredit float64

	// Beta weighs the bridge term and Gamma the cross-modal bonus in
	// p_uv = clip((1-β) gain + β bridge + γ 1[mod differs], 0, 1) (0.3, 0.2).
	Beta, Gamma float64
	// Bridge selects the bridge term [proposed: binary].
	Bridge BridgeMode
	// BridgeCutoff is the largest keyword document frequency that counts as
	// a bridge; 0 means ceil(sqrt(N)) (Table 4).
	BridgeCutoff int
	// Climb keeps Δ_uv = h_v - h_u in the traversal cost [proposed: on].
	Climb bool
	// Agreement uses ω_uv = max(cos, 0); false sets ω ≡ 1 (the
	// "− agreement" ablation) [proposed: on].
	Agreement bool
	// NodeCredit keeps the credit (ω_uv h_v − h̄) in the traversal cost;
	// false is the "− node credit" ablation.
	NodeCredit bool

	// Tau is the demand floor and relevant-set threshold τ (0.5).
	Tau float64
	// FMin and FMax clip the demand F0 (1 [proposed], 16).
	FMin, FMax float64
	// DemandRule selects how F0 is set before the clip to [FMin, FMax]
	// (paper: DemandRatio, Eq. 3).
	DemandRule DemandRule
	// DemandFloor is the relevance h a node needs under DemandBudget to
	// count toward the demand and to be routed at all: nodes below it get
	// no entry capacity, and since arcs climb in h no chain reaches them
	// (0: every node counts).
	DemandFloor float64
	// TopM, when > 0, takes the relevant set C as the TopM nodes by h
	// instead of {h ≥ τ} (a B.13 remedy); 0 is the paper's threshold.
	TopM int
	// Eta is the spectral energy fraction η (0.9).
	Eta float64
	// Aspects selects the aspect terminals: SpectralAspects (B.5, the
	// paper) or TermFacets (the query's own keywords).
	Aspects AspectSource
	// FacetShare is the share of the demand given to term facets under
	// TermFacets; the rest goes to a general facet (0 means 1: all).
	FacetShare float64
	// MaxAspects caps the aspect count further (0 = no extra cap; 1 is the
	// single-sink ablation).
	MaxAspects int
	// Center centres the rows of M before the SVD (a B.13 remedy; paper:
	// uncentred [proposed]).
	Center bool
	// Spectral selects the method for the leading singular pairs
	// (SpectralAuto: exact when small, else Lanczos to a 1e-6 residual).
	Spectral SpectralMethod
	// QueryAspect makes the query direction the first aspect, with σ the
	// norm of M q̂, and takes the rest from the SVD of M with q̂ projected
	// out (a B.13 remedy; off in the paper).
	QueryAspect bool

	// B is the termination share b in κ = b/(1-b) · spread ratio (0.634).
	B float64
	// KappaMode selects the spread κ is calibrated against (KappaCost).
	KappaMode KappaMode
	// KappaPool selects the arcs whose spreads set κ (paper: PoolAll).
	// Under PoolLive the terminal arcs of dead nodes, which carry no flow,
	// are priced as if their alignment were 0 (cost κ) and their alignment
	// is never computed.
	KappaPool KappaPool
	// Kappa, when non-nil, fixes κ (a B.13 remedy: 0 drops the terminal
	// alignment cost entirely).
	Kappa *float64

	// SignedAlignment uses c_a(v) = <ê_v, φ_a> instead of its positive part
	// [proposed: rectified].
	SignedAlignment bool
	// TerminalsFromC joins only the relevant set C to the aspect terminals
	// instead of every node (B.7 [proposed: complete bipartite]).
	TerminalsFromC bool

	// Uncapacitated removes the unit capacities on entry, content and
	// terminal arcs (d_a kept): the "shortest path" ablation.
	Uncapacitated bool
	// Feasibility is the fallback factor: when f_max < F0 the router sends
	// F = min(F0, Feasibility · f_max) (0.99).
	Feasibility float64
	// MaxChains caps the decomposition (0 = no cap).
	MaxChains int
	// MergeChains merges chains with identical node sequences that end in
	// different aspects (flows summed, cost flow-weighted, the aspect of the
	// larger flow) [proposed: B.8 keeps them separate].
	MergeChains bool

	// cache holds the last graph's content pairs (see pairCache); set by
	// the constructors and shared by clones.
	cache *pairCache
	// noPrune solves the whole network, not only its live part: the
	// reference the pruning is tested against.
	noPrune bool
	// terms holds the last graph's term postings for TermFacets.
	terms *termCache
}

// PaperAspects returns METHOD B exactly: links, kNN and reading order ±1;
// orientation by (h, index); β = 0.3, γ = 0.2, binary bridge with cutoff
// ceil(sqrt N); Δ, ω and node credit on; τ = 0.5, F0 ∈ [1, 16]; C = {h ≥ τ};
// η = 0.9; uncentred SVD; b = 0.634 with κ against sd(w), both spreads
// pooled over every arc (PoolAll); unit capacities.
func PaperAspects() *Aspects {
	return &Aspects{
		Label:       "aspects-paper",
		EdgeKinds:   graph.KNN | graph.Link,
		OrderWindow: 1,
		Orientation: ByRelevance,
		Beta:        0.30,
		Gamma:       0.20,
		Bridge:      BridgeBinary,
		Climb:       true,
		Agreement:   true,
		NodeCredit:  true,
		Tau:         0.50,
		FMin:        1,
		FMax:        16,
		Eta:         0.90,
		B:           0.634,
		KappaMode:   KappaCost,
		Feasibility: 0.99,
		cache:       &pairCache{},
		terms:       &termCache{},
	}
}

// DefaultAspects returns the default preset: PaperAspects with these
// changes measured on the dev slices (issue 11; METHOD B.13), meant for the
// hybrid dense + BM25 relevance of score.AspectsConfig:
//
//   - DemandRule DemandBudget: F0 = FMax, the read budget, instead of the
//     participation ratio. Under hybrid relevance a few nodes near h = 1
//     dominate Σ z², so the ratio asks for 7–11 nodes of a 16-node budget
//     and recall falls 14–22 points short of top-k (FeTaQA, QASPER).
//   - DemandFloor 0.25: nodes below a quarter of the best node's relevance
//     are neither counted nor routed, so a small corpus is not padded with
//     off-topic nodes (costs ≤ 0.4 points of recall on the dev sets).
//   - NodeCredit off: with hybrid r the mean relevance h̄ is low, so the
//     credit (ω h_v − h̄) pays for chains of weak predecessors that push
//     ranked evidence out (−1.6 to −3.4 points at F0 = 16 with credit on).
//   - B = 0.2 instead of 0.634: a smaller termination share, so the
//     spectral alignment cost (whose leading direction is the corpus mean,
//     not a facet of the question) no longer outweighs relevance.
//   - KappaPool PoolLive: κ's spreads sd(w) and sd(c_a(v)) pool only
//     the arcs of the live sub-network (nodes the source reaches), not
//     those of nodes below the floor that can never be routed, so only
//     live nodes' alignments are computed (at 10k nodes × 768 dims the
//     warm Score+Route+Select falls from 8.1× to 3.4× one cosine pass;
//     evidence recall at 16 nodes within 0.2 points of PoolAll on the
//     dev sets).
//   - MergeChains: identical node sequences that reach different aspects
//     are one chain, so a selector that picks budget chains does not spend
//     reads on repeats (with the annealed selector, −1.0 to −1.7 points and
//     15.1–15.7 distinct nodes of 16 without it).
//
// With these the flow is at parity with top-k by the same relevance on
// every dev set (evidence recall at 16 nodes with the preset's annealed
// selector: FeTaQA +0.1, QASPER +0.5, PaperTab +0.2 points; no interval
// excludes zero). OrderCredit and
// TermFacets win on FeTaQA but not elsewhere and stay off. The paper's
// settings stay in PaperAspects.
func DefaultAspects() *Aspects {
	a := PaperAspects()
	a.Label = "aspects"
	a.DemandRule = DemandBudget
	a.DemandFloor = 0.25
	a.MergeChains = true
	a.NodeCredit = false
	a.B = 0.2
	a.KappaPool = PoolLive
	return a
}

// Name returns the router's label.
func (a *Aspects) Name() string {
	if a.Label == "" {
		return "aspects"
	}
	return a.Label
}

func (a *Aspects) validate() error {
	switch {
	case !(a.FMax > 0) || !(a.FMin > 0) || a.FMin > a.FMax:
		return fmt.Errorf("%w: need 0 < FMin ≤ FMax (got %g, %g); start from PaperAspects()", ErrConfig, a.FMin, a.FMax)
	case !(a.Eta > 0 && a.Eta <= 1):
		return fmt.Errorf("%w: Eta %g not in (0,1]", ErrConfig, a.Eta)
	case !(a.B >= 0 && a.B < 1):
		return fmt.Errorf("%w: B %g not in [0,1)", ErrConfig, a.B)
	case !(a.Feasibility > 0 && a.Feasibility <= 1):
		return fmt.Errorf("%w: Feasibility %g not in (0,1]", ErrConfig, a.Feasibility)
	case a.Kappa != nil && !(*a.Kappa >= 0 && !math.IsInf(*a.Kappa, 0)):
		return fmt.Errorf("%w: Kappa must be finite and ≥ 0", ErrConfig)
	case !(a.DemandFloor >= 0 && a.DemandFloor <= 1):
		return fmt.Errorf("%w: DemandFloor %g not in [0,1]", ErrConfig, a.DemandFloor)
	case math.IsNaN(a.FacetShare) || a.FacetShare < 0 || a.FacetShare > 1:
		return fmt.Errorf("%w: FacetShare %g not in [0,1]", ErrConfig, a.FacetShare)
	case a.TopM < 0 || a.MaxAspects < 0 || a.MaxChains < 0 || a.OrderWindow < 0 || a.BridgeCutoff < 0:
		return fmt.Errorf("%w: negative count", ErrConfig)
	case math.IsNaN(a.Beta) || math.IsNaN(a.Gamma) || math.IsNaN(a.Tau) || math.IsNaN(a.OrderCredit) || math.IsInf(a.OrderCredit, 0):
		return fmt.Errorf("%w: NaN weight", ErrConfig)
	}
	return nil
}

// Route builds G+ for the query and solves it.
func (a *Aspects) Route(ctx context.Context, g *graph.Graph, s *score.Scores) (*Routing, error) {
	return a.route(ctx, g, s, Edits{})
}

// Prepare computes and keeps g's content pairs, their bridge terms and
// their per-node index, which every Route on g reads, so that the first
// query does not pay for them (at 10k nodes they cost about 40 times what
// routing one query does). It is a no-op for an Aspects made by hand
// (without PaperAspects or DefaultAspects), which keeps no cache. Only the
// last graph prepared or routed is kept.
func (a *Aspects) Prepare(ctx context.Context, g *graph.Graph) error {
	if err := a.validate(); err != nil {
		return err
	}
	if g == nil {
		return fmt.Errorf("%w: nil graph", ErrScores)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if a.cache != nil {
		a.pairSet(g, Edits{})
	}
	return nil
}

// Reroute applies System-2 edits (cumulative with prev's) and solves again.
// Affinity edits replace max(cos, 0) in the gain of p_uv; added pairs become
// content edges oriented like the others. Extra sources are ignored: every
// node already has an entry arc.
func (a *Aspects) Reroute(ctx context.Context, g *graph.Graph, s *score.Scores, prev *Routing, e Edits) (*Routing, error) {
	var base Edits
	if prev != nil {
		base = prev.Edits
	}
	return a.route(ctx, g, s, merge(base, e))
}
