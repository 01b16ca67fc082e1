package mcf

import (
	"errors"
	"fmt"
)

// ErrInvalid reports an input the functions of this package refuse: an arc
// joining a node that does not exist, a NaN or infinite capacity, cost,
// supply or flow, a negative capacity, supplies that do not sum to zero, a
// source equal to the sink, or a flow vector that does not fit the network.
// Errors wrap it with %w and name the arc or node at fault.
var ErrInvalid = errors.New("mcf: invalid input")

// NegativeCycleError reports a cycle of arcs with positive capacity and
// negative total cost. The minimum-cost flow then circulates around it,
// which the successive-shortest-path method cannot start from; callers
// find it with errors.As.
type NegativeCycleError struct {
	// Arcs are the cycle's arc ids in order, starting from the lowest id.
	Arcs []int
	// Cost is the cycle's total cost (negative).
	Cost float64
}

func (e *NegativeCycleError) Error() string {
	return fmt.Sprintf("mcf: negative-cost cycle of %d arcs (cost %g) through arc %d", len(e.Arcs), e.Cost, e.Arcs[0])
}
