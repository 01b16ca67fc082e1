package flow

import (
	"time"

	"github.com/flowreader/flowreader/score"
)

// Chain is one evidence chain from the flow decomposition: content nodes in
// routed order (supporting context first, most relevant last for aspects),
// with the flow it carries.
type Chain struct {
	Nodes []int
	// Flow is the amount of flow on the chain (the decomposition bottleneck).
	Flow float64
	// Cost is the chain's cost per unit of flow, terminal arcs included.
	Cost float64
	// Aspect is the aspect terminal the chain ends in (aspects), or -1.
	Aspect int
}

// Aspect is one spectral aspect of the aspects formulation.
type Aspect struct {
	// Sigma is the singular value σ_a.
	Sigma float64
	// Capacity is d_a = F0 σ_a² / Σ σ_j².
	Capacity float64
	// Flow is the flow that reached the aspect's terminal.
	Flow float64
}

// Timings splits a routing's wall time by stage.
type Timings struct {
	Network, SVD, Solve, Decompose time.Duration
}

// Routing is the result of routing one query: chains and the quantities that
// explain them.
type Routing struct {
	// Router names the formulation or baseline that produced the routing.
	Router string
	// Chains in decomposition order.
	Chains []Chain
	// Demand is the requested flow (F0 or F); Routed the flow actually sent.
	Demand, Routed float64
	// MaxFlow is f_max, and Saturation σ = min(f_max/F, 1).
	MaxFlow, Saturation float64
	// Aspects are the aspect terminals (aspects formulation only).
	Aspects []Aspect
	// Kappa is the termination scale κ (aspects formulation only).
	Kappa float64
	// Cost is the total cost of the routed flow.
	Cost float64
	// Distinct is the number of distinct content nodes on the chains.
	Distinct int
	// Scores are the scores the routing used; selectors read h from here.
	Scores *score.Scores
	// Timings is the split of wall time by stage.
	Timings Timings
}
