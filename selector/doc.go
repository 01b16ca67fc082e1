// Package selector chooses which evidence chains a reader reads.
//
// Each of Greedy, Replicator and Annealed returns a [Selector]. Greedy takes
// the top-B chains by flow f_k (ties: max h on the chain, then
// decomposition index). Replicator and Annealed play a symmetric game on
// the chains: with quality q_k, payoff A_kk = q_k² and A_kl = sqrt(q_k q_l)·(1 −
// J(V_k, V_l)) for the Jaccard overlap J of the chains' node sets, they run
// discrete replicator dynamics
//
//	x̃_k = x_k (Ax)_k / xᵀAx,   x ← (1 − ε) x̃ + ε/K,
//
// from x⁰ ∝ q. With ε = 0 the step is the Baum–Eagon growth transform, so
// xᵀAx never decreases and fixed points are KKT points of max_Δ xᵀAx; ε > 0
// mixes toward the uniform population (v1's entropy term).
//
// Neither has settings; their constants are unexported. Replicator is paper
// v1 §3.4: q_k = b̃_k^0.2 (max h)^0.5 (mean h)^0.3 with b̃ = b / max b,
// ε = 0.2, at most 20 steps or until ‖Δx‖₂ < 1e-4, then the chains with
// x_k > θ = 5e-4, at most 11. Annealed, proposed for v3's chains (the paper
// does not state a selector's dynamics), uses q_k = max h and
// ε_t = 0.2·max(0, 1 − t/20) for 20 steps, then pure dynamics until
// ‖Δx‖₂ < 1e-4 (at most 200 steps in all), and reads the top-B (16) by x.
//
// The payoff is K×K over the K routed chains, so its memory and time grow
// with the square of the budget: at most 1024 chains play (those of
// largest flow), the others keep x = 0 and follow the players by flow. A
// budget of 16 routes about 20 chains, so the bound binds only past
// budgets of about a thousand. Building the payoff and every step of the
// dynamics check the context.
package selector
