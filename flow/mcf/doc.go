// Package mcf solves minimum-cost flow problems on networks with float64
// capacities, costs of any sign and supplies, exactly and fast, in pure Go.
//
// # Problem
//
// Given a directed network G = (V, A) with supplies b_v (Σ b_v = 0; b_v > 0
// a supply, b_v < 0 a demand) and, per arc, a capacity u_a ≥ 0 and a cost
// c_a, find a flow f minimising
//
//	Σ_a c_a f_a  subject to  Σ_{a out of v} f_a − Σ_{a into v} f_a = b_v,  0 ≤ f_a ≤ u_a.
//
// When the supplies cannot all be routed, the solvers route a maximum flow
// from the supply nodes to the demand nodes at minimum cost among maximum
// flows and set Solution.Partial (FlowReader's feasibility fallback).
//
// # Successive shortest paths (SSP)
//
// Add a super-source S with an arc S→v of capacity b_v per supply node and a
// super-sink T with v→T of capacity −b_v per demand node. With node
// potentials π every residual arc has reduced cost c_π(u,v) = c(u,v) + π_u −
// π_v ≥ 0, so Dijkstra finds shortest S–T paths. The initial potentials are
// π_v = −dist(v, T): one pass in reverse topological order when the usable
// arcs form a DAG (negative costs allowed), Bellman–Ford otherwise (a
// negative cycle of positive capacity is an error, ErrNegativeCycle). These
// "distance to the sink" potentials make the first search goal-directed.
// Each phase runs Dijkstra from S until T is settled, with distances d and
// D = d_T, and sets π_v ← π_v + d_v − D for the settled nodes only; this is
// the classical update π ← π + min(d, D) shifted by a constant, which keeps
// every reduced cost non-negative and makes the shortest-path arcs tight
// (reduced cost 0). Flow is then pushed along the shortest path and along
// any other path of tight arcs among the settled nodes. Augmenting only
// along shortest paths keeps the flow optimal for the amount routed, so the
// method ends with a minimum-cost flow of maximum value.
//
// Flows and residual capacities at or below Eps (1e-9) count as zero.
//
// Implementation notes (none changes the result): the residual network is
// one CSR array of arc structs with forward arcs first in each node's block
// and, behind them, only the reversals that currently carry flow, so a
// search never scans the thousands of empty reversals at a hub node; the
// Dijkstra queue parks labels above a threshold (the previous phase's
// distance to T, doubled when needed) in an unsorted list, so the many
// labels of a high-degree source are never sorted; the search for further
// tight paths runs only when the phase met a tie and backs off after
// fruitless tries. With several demand nodes a phase goes on past the
// nearest one and feeds up to 8 settled sinks along their tree paths: those
// arcs are tight, so every residual arc of the original network keeps a
// non-negative reduced cost; only the arcs into T do not, which cannot
// matter once all supply is routed (else Solve re-solves one sink at a
// time). Each solve allocates its workspace once; augmentations
// allocate nothing. Everything is deterministic: fixed scan orders and a
// heap whose tie-breaks depend only on the input.
//
// # Other tools
//
// MaxFlow is Dinic's algorithm and returns the source side of a minimum
// cut. Decompose splits an s–t flow into paths and cycles by the greedy
// largest-flow walk of FlowReader's METHOD A.4/B.8. LP solves the same
// problem with gonum's simplex method as a test oracle. ReadDIMACS and
// WriteDIMACS handle the DIMACS min-cost-flow format, lower bounds included
// (f = l + f', u' = u − l, b_from −= l, b_to += l, cost offset Σ c·l).
package mcf
