// Package flow routes evidence: one minimum-cost flow per question sends a
// budget of flow through the content graph, and the flow's decomposition
// into source–sink paths gives the evidence chains a reader reads
// (FlowReader, Mehrish & Vascon, arXiv 2606.07235).
//
// A [Router] holds settings only. [Router.Open] does the question-independent
// work for one graph and returns a [GraphRouter], whose Route routes one
// question's scores at a budget of distinct nodes. Routers that can apply
// System-2 edits and solve again return a GraphRouter that is also a
// [Rerouter] (an optional capability: assert it); both routers of this
// package are.
//
// # Aspects (paper v3, the default)
//
// Content edges are the union of LLM links, kNN edges and reading-order
// pairs ±1 apart (§3.1, App. A.1; a constant); each becomes one arc u→v with (h_u, u) < (h_v, v),
// so the network G+ is a DAG. An arc costs (§3.2, App. A.2)
//
//	w_uv = (1 − p_uv) − Δ_uv − (ω_uv h_v − h̄),
//	p_uv = clip((1−β)·2c√(1−c²) + β·bridge(u,v) + γ·1[mod u ≠ mod v], 0, 1),
//
// with c the affinity max(cos, 0), Δ_uv = h_v − h_u, ω_uv = max(cos, 0) and
// bridge = 1 when u and v share a keyword of document frequency in
// [2, ⌈√N⌉]. The demand is the participation ratio F0 = clip((Σz)²/Σz²,
// F_min, F_max) of z_v = max(0, h_v − τ) (Eq. 3), F_max the budget and
// F_min = 1 (a constant). The
// aspects are the leading right singular vectors φ_a of M = [h_v ê_v]_{v∈C},
// C = {h ≥ τ}, signed toward the query, as many as hold η of ‖M‖²_F, at
// most round(F0) and |C|, with terminal capacities d_a = F0 σ_a²/Σσ². Every
// node v has an entry arc s→v (cost 1 − h_v) and an arc to every aspect
// (cost κ(1 − c_a(v)), c_a(v) = max(0, ⟨ê_v, φ_a⟩)), all of capacity 1
// (§3.3, Eq. 7); κ = b/(1−b)·sd(w)/sd(c) (App. A.3, Eq. 10). Along a chain
// the costs telescope to (1 − h_last) + Σ(1 − p) − Σ(ω h_next − h̄) +
// κ(1 − c_a(last)), so supporting context can precede the most relevant
// node at no extra cost, and without node credit a predecessor never
// lowers it. The leading singular pairs come from a thin SVD of M (or the
// eigen-decomposition of the d×d Gram matrix MᵀM when |C| > d) when
// min(|C|, d) is small, else from Lanczos on MᵀM as an operator.
//
// flowreader.PaperAspects().Router is exactly that. The zero [Aspects], the default for
// hybrid dense + BM25 relevance, sets the demand to the budget (capped by
// the nodes above a relevance floor), drops the node credit, lowers b to
// 0.2, pools κ's spreads over the arcs that can carry flow and merges
// chains with equal node sequences. The Table 3 variants (§4.3) are
// fields of Aspects.
//
// # Classic (paper v1)
//
// MMR sources and the most answerable sinks join s* and t* with capacities
// h_u and a_v; each kept edge (weight ≥ r_min = 0.22) gives arcs both ways
// with cost 1 − w_uv(h_u+h_v)/2 (Eq. 5) and capacity min(h_u, h_v); the
// demand F = 6 is routed up to the max flow f_max, with saturation
// σ = min(f_max/F, 1), and decomposed into at most 60 paths. The sources,
// sinks and answerabilities are the scores' (flowreader.Classic().Scoring: |S| = |T|
// = 8, λ_MMR = 0.7, β_v = 0.05), so that scoring and routing cannot
// disagree on them.
//
// # System 2
//
// Paper v1's System 2 (§3.5) asks a routing, for the gate's fired
// triggers, which pairs and seeds to score (the min-cut bridges, the
// top-flow edges, the expanded sources) and their current affinities
// (computed here, used by the root's System 2); a [Rerouter] applies the
// resulting [Edits] and solves again.
//
// # Capabilities
//
// A GraphRouter may implement these optional interfaces, which callers
// assert: [Rerouter] (apply System-2 edits and solve again; both routers of
// this package) and [SubgraphOpener] (open routers on candidate subgraphs
// priced with the whole graph's statistics; the aspects router).
//
// Every router is deterministic: fixed node order, ties broken by index,
// no map iteration where order matters.
package flow
