// Package flow routes evidence: one minimum-cost flow per query sends a
// budget of flow through the content graph, and the flow's decomposition
// into source–sink paths gives the evidence chains a reader reads
// (FlowReader, Mehrish & Vascon; METHOD.md A.2–A.7 and B.2–B.12).
//
// # Aspects (v3, the default)
//
// Content edges are the union of LLM links, kNN edges and reading-order
// pairs; each becomes one arc u→v with (h_u, u) < (h_v, v), so the network
// G+ is a DAG. An arc costs
//
//	w_uv = (1 − p_uv) − Δ_uv − (ω_uv h_v − h̄),
//	p_uv = clip((1−β)·2c√(1−c²) + β·bridge(u,v) + γ·1[mod u ≠ mod v], 0, 1),
//
// with c the affinity max(cos, 0), Δ_uv = h_v − h_u, ω_uv = max(cos, 0) and
// bridge = 1 when u and v share a keyword of document frequency in
// [2, ⌈√N⌉]. The demand is the participation ratio F0 = clip((Σz)²/Σz², 1,
// 16) of z_v = max(0, h_v − τ). The aspects are the leading right singular
// vectors φ_a of M = [h_v ê_v]_{v∈C}, C = {h ≥ τ}, signed toward the query,
// as many as hold η of ‖M‖²_F, at most round(F0) and |C|, with terminal
// capacities d_a = F0 σ_a²/Σσ². Every node v has an entry arc s→v (cost
// 1 − h_v) and an arc to every aspect (cost κ(1 − c_a(v)), c_a(v) = max(0,
// ⟨ê_v, φ_a⟩)), all of capacity 1; κ = b/(1−b)·sd(w)/sd(c), the spreads
// over every content and terminal arc (PoolAll, the paper) or, under
// PoolLive (DefaultAspects), over the arcs whose tail the source reaches:
// the only ones that can carry flow. Along a chain
// the costs telescope to (1 − h_last) + Σ(1 − p) − Σ(ω h_next − h̄) + κ(1 −
// c_a(last)), so supporting context can precede the most relevant node at
// no extra cost, and without node credit a predecessor never lowers it.
// Only the top round(F0) ≤ 16 singular pairs are needed (the energy rule uses
// ‖M‖²_F for the total). SpectralExact takes them from a thin SVD of M, or,
// when |C| exceeds the embedding dimension d, from the eigen-decomposition
// of the d×d Gram matrix MᵀM (same vectors, σ² as eigenvalues);
// SpectralLanczos finds them by Lanczos on MᵀM as an operator, which at
// d = 768 is several times faster; SpectralAuto (the default) picks exact
// when min(|C|, d) ≤ 128.
//
// PaperAspects is exactly that. DefaultAspects (issue 11, for hybrid
// relevance) changes four things: the demand is the read budget,
// F0 = min(F_max, |{v : h_v ≥ floor}|) with floor 0.25 (DemandBudget,
// DemandFloor; nodes below the floor get no entry capacity, and since arcs
// climb in h no chain reaches them); node credit is off; b = 0.2; and
// identical node sequences ending in different aspects merge into one
// chain. Two further options are off by default: OrderCredit δ lowers w_uv
// by δ on arcs between nodes of one document at most OrderWindow positions
// apart (chains along table rows and paragraphs), and TermFacets replaces
// the spectral aspects by the query's keywords: facet t has alignment
// c_t(v) = 1[t ∈ v] and capacity FacetShare·F0·idf_t/Σidf with
// idf_t = ln(1 + N/df_t), and a general facet of alignment 1 takes the rest.
//
// # Classic (v1)
//
// MMR sources and the most answerable sinks join s* and t* with capacities
// h_u and a_v; each kept edge (weight ≥ 0.22) gives arcs both ways with cost
// 1 − w_uv(h_u+h_v)/2 and capacity min(h_u, h_v); the demand F = 6 is routed
// up to the max flow f_max, with saturation σ = min(f_max/F, 1), and
// decomposed into at most 60 paths.
//
// # Baselines and System 2
//
// TopK, MMRTopK and PPRTopK rank nodes without flow; ShortestPath,
// DocOrder, SingleSink, NoAgreement and NoCredit are the paper's Table 3
// variants of the aspects network. CutPairs, CutEdges, TopFlowEdges,
// ExpandSources, SourceEdges and Damped compute the v1 System-2 edits as
// pure functions of a Routing; a Rerouter applies them and solves again.
//
// Every router is deterministic: fixed node order, ties broken by index,
// no map iteration where order matters.
package flow
