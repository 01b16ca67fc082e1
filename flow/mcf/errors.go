package mcf

import "errors"

// Sentinel errors. Functions wrap them with %w and context (arc or node id,
// line number), so callers test them with errors.Is.
var (
	// ErrNaN reports a NaN or infinite capacity, cost, supply or flow.
	ErrNaN = errors.New("mcf: NaN or infinite value")
	// ErrNegativeCapacity reports an arc with capacity < 0.
	ErrNegativeCapacity = errors.New("mcf: negative capacity")
	// ErrUnbalanced reports supplies that do not sum to zero.
	ErrUnbalanced = errors.New("mcf: supplies do not sum to zero")
	// ErrNodeRange reports a node id outside [0, NumNodes).
	ErrNodeRange = errors.New("mcf: node out of range")
	// ErrArcRange reports an arc id outside [0, NumArcs).
	ErrArcRange = errors.New("mcf: arc out of range")
	// ErrNegativeCycle reports a cycle of negative total cost whose arcs all
	// have positive capacity: the minimum-cost flow then circulates around it,
	// which the successive-shortest-path method cannot start from.
	ErrNegativeCycle = errors.New("mcf: negative-cost cycle with positive capacity")
	// ErrFlowLength reports a flow vector whose length is not NumArcs.
	ErrFlowLength = errors.New("mcf: flow length differs from the number of arcs")
	// ErrNotConserved reports a flow that is not an s–t flow (conservation
	// or bounds violated beyond tolerance), found while decomposing it.
	ErrNotConserved = errors.New("mcf: flow is not conserved")
	// ErrSameNode reports a source equal to the sink.
	ErrSameNode = errors.New("mcf: source equals sink")
	// ErrLP reports a failure of the LP oracle (numerical trouble in the
	// simplex method, or a network too large for a dense tableau).
	ErrLP = errors.New("mcf: LP oracle failed")
	// ErrSyntax reports malformed DIMACS input; the wrapping error names the line.
	ErrSyntax = errors.New("mcf: DIMACS syntax error")
)
