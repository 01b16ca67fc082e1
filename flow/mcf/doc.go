// Package mcf solves minimum-cost flow problems on networks with float64
// capacities, costs of any sign and supplies, in pure Go. It is the solver
// behind FlowReader's evidence routing (paper v3 §3.3, Eq. 7). The CLI's
// "flowreader mcf" solves DIMACS files with it.
//
// # Problem
//
// Given a directed network G = (V, A) with supplies b_v (Σ b_v = 0; b_v > 0
// a supply, b_v < 0 a demand) and, per arc, a capacity u_a ≥ 0 and a cost
// c_a, find a flow f minimising
//
//	Σ_a c_a f_a  subject to  Σ_{a out of v} f_a − Σ_{a into v} f_a = b_v,  0 ≤ f_a ≤ u_a.
//
// Add a super-source S with an arc S→v of capacity b_v per supply node and
// a super-sink T with an arc v→T of capacity −b_v per demand node: the
// problem is then a minimum-cost S–T flow of value D = Σ_{b_v>0} b_v. When
// the maximum S–T flow is below D, the supplies cannot all be routed; the
// solvers then route a maximum flow at minimum cost among maximum flows and
// set [Solution].Partial, which is how infeasibility is reported (not as an
// error).
//
// # Successive shortest paths with potentials
//
// [SSP] keeps node potentials π under which every residual arc has a
// non-negative reduced cost c_π(u,v) = c(u,v) + π_u − π_v, so that Dijkstra
// finds shortest S–T paths in the residual network. The initial potentials
// are π_v = −dist(v, T), the negated cost of a cheapest path to the sink:
// one pass in reverse topological order when the arcs of positive capacity
// form a DAG (negative costs allowed), Bellman–Ford otherwise, which is
// where a cycle of negative cost and positive capacity is found and
// reported. Each phase runs Dijkstra from S until T is settled, with
// distances d and D = d_T, and sets π_v ← π_v + d_v − D for the settled
// nodes only: the classical update π ← π + min(d, D) shifted by a constant.
// It keeps every reduced cost non-negative and makes the arcs of shortest
// paths tight (reduced cost 0). Flow is pushed along the shortest path and
// along any other path of tight arcs among the settled nodes. Augmenting
// only along shortest paths keeps the flow of least cost for the amount
// routed, so the method ends with a minimum-cost flow of maximum value.
//
// With several demand nodes a phase may go on past the nearest one and feed
// up to maxTargets settled sinks along their shortest-path tree paths. Those
// arcs are tight, so every residual arc of the original network keeps a
// non-negative reduced cost; only the arcs into T may not, which cannot
// matter once all supply is routed; otherwise Solve re-solves with one sink
// per phase. [SSP].SinglePath turns these refinements off.
//
// # Optimality certificate
//
// A feasible flow f of value F is a minimum-cost flow of value F if and only
// if its residual network (arcs a with f_a < u_a at cost c_a, their
// reversals where f_a > 0 at cost −c_a, and the arcs of S and T likewise)
// has no cycle of negative cost; equivalently, if potentials π exist under
// which every residual arc has c_π ≥ 0 (complementary slackness of the
// linear program). A partial solution is a maximum flow besides if no
// residual S–T path is left (max-flow min-cut). The SSP potentials are such
// a π at every phase; the package's tests check both conditions directly,
// by Bellman–Ford on the residual network, and against an independent LP
// solver.
//
// # Flow decomposition
//
// Every S–T flow is a sum of path flows from S to T and of cycle flows, at
// most |A| pieces in all (flow decomposition theorem; paper v3 §3.3 and
// Proposition 1(ii), where the network is acyclic and no cycles occur).
// [Decompose] builds the decomposition FlowReader reads as evidence chains
// (paper v3 §3.3): walk from s along the arc with the largest remaining
// flow, subtract the walk's bottleneck, and repeat; a walk that revisits a
// node cancels the cycle it closed.
//
// [MaxFlow] is Dinic's algorithm and returns the source side of a minimum
// cut, whose capacity equals the maximum flow value.
//
// # Tolerances
//
// Flows and residual capacities at or below [Eps] (1e-9) count as zero,
// and conservation and capacity bounds hold within it; supplies balance if
// |Σ b_v| ≤ Eps·max(1, Σ|b_v|/2). Decompose discards flow stranded at a
// dead end up to decomposeSlack (1e-7), the rounding left by a solver, and
// refuses more as an unconserved flow.
//
// # Errors
//
// Invalid input (an arc joining a node that does not exist, a NaN or
// infinite value, a negative capacity, supplies that do not sum to zero, a
// source equal to the sink, a flow vector that does not fit the network)
// is reported with an error wrapping [ErrInvalid]. A negative-cost cycle of
// positive capacity is reported as a [*NegativeCycleError] (use errors.As),
// which lists the cycle's arcs. A cancelled context ends Solve with the
// context's error.
//
// # Implementation
//
// None of the following changes the result. The residual network is one
// CSR array of arc structs with forward arcs first in each node's block
// and, behind them, only the reversals that currently carry flow, so a
// search never scans the empty reversals at a hub node. The Dijkstra queue
// parks labels above a threshold (the previous phase's distance to T,
// doubled when needed) in an unsorted list, so the many labels of a
// high-degree source are never sorted. The search for further tight paths
// runs only when the phase met a tie and backs off after fruitless tries.
// Each solve allocates its workspace once; augmentations allocate nothing.
// Everything is deterministic: fixed scan orders and a heap whose
// tie-breaks depend only on the input.
package mcf
