// Package baselines holds the routers the paper compares the flow with and
// that no pipeline runs: ranked lists without flow (top-k by relevance,
// maximal marginal relevance, personalised PageRank; paper v3 Table 3(a))
// and routing on a candidate subgraph. Each implements flow.Router; the
// ranked ones list budget nodes, each as a one-node chain whose Flow is the
// rank weight (K − i)/K, so that ordering chains by flow keeps rank order.
//
// PPR is ψ = (1−d)·p + d·Wᵀψ over the edges of weight ≥ r_min (both
// directions, weight w_ij, rows normalised), seeded at the top nodes by r
// with personalisation p ∝ r (paper v1 §3.1); MMR picks argmax
// λ h_v − (1−λ) max_{u picked} cos(ê_v, ê_u) (scorehook.MMR).
package baselines
