package mcftest

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/flowreader/flowreader/flow/mcf"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// LP solves the minimum-cost flow problem as a linear program with gonum's
// dense simplex method (optimize/convex/lp). It is the exact, independent
// oracle the tests check [mcf.SSP] against, and an [mcf.Solver] for tiny
// networks only: the tableau is dense, so the work grows roughly with the
// cube of the arc count. Networks whose tableau would exceed lpMaxEntries
// are refused with [ErrLP].
//
// Like SSP it adds a super-source S joined to the supply nodes and a
// super-sink T joined from the demand nodes. When the supplies cannot all be
// routed it first finds the maximum S–T flow by a second LP (maximise the
// flow on a return arc T→S) and then routes that much at minimum cost,
// setting Partial. Negative-cost cycles need no special care: capacities
// bound the program.
type LP struct{}

// ErrLP reports a failure of the LP oracle (numerical trouble in the
// simplex method, or a network too large for a dense tableau).
var ErrLP = errors.New("mcftest: LP oracle failed")

// lpMaxEntries bounds the dense tableau (rows × columns) that LP accepts.
const lpMaxEntries = 4 << 20

// lpProblem is the network extended with S and T, in arc-list form.
type lpProblem struct {
	nodes    int // including S and T
	s, t     int
	from, to []int
	capacity []float64
	cost     []float64
	arcs     int // original arcs come first
	demand   float64
}

func newLPProblem(n *mcf.Network) *lpProblem {
	nn, m := n.NumNodes(), n.NumArcs()
	p := &lpProblem{nodes: nn + 2, s: nn, t: nn + 1, arcs: m}
	for a := 0; a < m; a++ {
		u, v, capacity, cost := n.Arc(a)
		p.from = append(p.from, u)
		p.to = append(p.to, v)
		p.capacity = append(p.capacity, capacity)
		p.cost = append(p.cost, cost)
	}
	for v := 0; v < nn; v++ {
		b := n.Supply(v)
		switch {
		case b > 0:
			p.from, p.to = append(p.from, p.s), append(p.to, v)
			p.capacity, p.cost = append(p.capacity, b), append(p.cost, 0)
			p.demand += b
		case b < 0:
			p.from, p.to = append(p.from, v), append(p.to, p.t)
			p.capacity, p.cost = append(p.capacity, -b), append(p.cost, 0)
		}
	}
	return p
}

// components labels each node with the smallest node id of its weakly
// connected component (over all arcs, whatever their capacity, since every
// arc's column touches both rows).
func (p *lpProblem) components() []int {
	parent := make([]int, p.nodes)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for a := range p.from {
		x, y := find(p.from[a]), find(p.to[a])
		if x < y {
			parent[y] = x
		} else if y < x {
			parent[x] = y
		}
	}
	for i := range parent {
		parent[i] = find(i)
	}
	return parent
}

// solve minimises Σ cost·x subject to conservation with S supplying F and T
// demanding F, 0 ≤ x ≤ capacity; with returnArc it instead adds an
// uncapacitated arc T→S of cost -1, zero supplies and zero arc costs, so the
// optimum is minus the maximum S–T flow. It returns the arc flows (without
// the return arc) and the objective.
func (p *lpProblem) solve(F float64, returnArc bool) ([]float64, float64, error) {
	comp := p.components()
	if !returnArc && F > 0 && comp[p.s] != comp[p.t] {
		return nil, 0, lp.ErrInfeasible
	}
	// Drop one conservation row per component (the rows of a component sum
	// to zero), keeping the rest, which then have full row rank.
	row := make([]int, p.nodes)
	rows := 0
	for v := 0; v < p.nodes; v++ {
		if comp[v] == v {
			row[v] = -1
			continue
		}
		row[v] = rows
		rows++
	}
	if returnArc && comp[p.s] != comp[p.t] {
		return make([]float64, len(p.from)), 0, nil // no S–T path at all
	}
	if len(p.from) == 0 {
		return nil, 0, nil // only isolated nodes; F is 0 or S, T split above
	}
	k := len(p.from)
	extra := 0
	if returnArc {
		extra = 1
	}
	cols := 2*k + extra
	nrows := rows + k
	if nrows*cols > lpMaxEntries {
		return nil, 0, fmt.Errorf("mcftest: LP tableau %d×%d too large: %w", nrows, cols, ErrLP)
	}
	if cols < nrows {
		return nil, 0, fmt.Errorf("mcftest: LP with %d rows and %d columns: %w", nrows, cols, ErrLP)
	}
	A := mat.NewDense(nrows, cols, nil)
	b := make([]float64, nrows)
	c := make([]float64, cols)
	for a := 0; a < k; a++ {
		if r := row[p.from[a]]; r >= 0 {
			A.Set(r, a, A.At(r, a)+1)
		}
		if r := row[p.to[a]]; r >= 0 {
			A.Set(r, a, A.At(r, a)-1)
		}
		A.Set(rows+a, a, 1)
		A.Set(rows+a, k+a, 1)
		b[rows+a] = p.capacity[a]
		if !returnArc {
			c[a] = p.cost[a]
		}
	}
	if returnArc {
		if r := row[p.t]; r >= 0 {
			A.Set(r, 2*k, 1)
		}
		if r := row[p.s]; r >= 0 {
			A.Set(r, 2*k, -1)
		}
		c[2*k] = -1
	} else {
		if r := row[p.s]; r >= 0 {
			b[r] = F
		}
		if r := row[p.t]; r >= 0 {
			b[r] = -F
		}
	}
	obj, x, err := lp.Simplex(c, A, b, 1e-10, nil)
	if err != nil {
		return nil, 0, err
	}
	return x[:k], obj, nil
}

// Solve implements [mcf.Solver].
func (LP) Solve(ctx context.Context, n *mcf.Network) (*mcf.Solution, error) {
	if err := validate(n); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := newLPProblem(n)
	sol := &mcf.Solution{Demand: p.demand, Augmentations: 1}
	F := p.demand
	x, _, err := p.solve(F, false)
	if errors.Is(err, lp.ErrInfeasible) {
		_, obj, err2 := p.solve(0, true)
		if err2 != nil {
			return nil, fmt.Errorf("mcftest: LP max flow: %v: %w", err2, ErrLP)
		}
		F = -obj
		if F > p.demand {
			F = p.demand
		}
		sol.Augmentations++
		x, _, err = p.solve(F, false)
		if errors.Is(err, lp.ErrInfeasible) {
			// The maximum flow value carries rounding; back off by a hair.
			F *= 1 - 1e-12
			sol.Augmentations++
			x, _, err = p.solve(F, false)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("mcftest: LP: %v: %w", err, ErrLP)
	}
	sol.Flow = make([]float64, p.arcs)
	for a := range sol.Flow {
		f := x[a]
		if f <= mcf.Eps {
			f = 0
		}
		sol.Flow[a] = f
		sol.Cost += f * p.cost[a]
	}
	for a := p.arcs; a < len(x); a++ {
		if p.from[a] == p.s {
			sol.Routed += x[a]
		}
	}
	sol.Partial = p.demand-sol.Routed > mcf.Eps
	return sol, nil
}

// MaxFlowLP is the maximum s–t flow of n found by the simplex method,
// ignoring supplies and costs: the test oracle for [mcf.MaxFlow].
func MaxFlowLP(n *mcf.Network, s, t int) (float64, error) {
	m := n.NumArcs()
	p := &lpProblem{nodes: n.NumNodes(), s: s, t: t, arcs: m}
	for a := 0; a < m; a++ {
		u, v, capacity, _ := n.Arc(a)
		p.from = append(p.from, u)
		p.to = append(p.to, v)
		p.capacity = append(p.capacity, capacity)
		p.cost = append(p.cost, 0)
	}
	_, obj, err := p.solve(0, true)
	if err != nil {
		return 0, err
	}
	return -obj, nil
}

// validate applies the input checks of mcf's solvers (which it does not
// export), with errors wrapping mcf.ErrInvalid.
func validate(n *mcf.Network) error {
	nn := n.NumNodes()
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for a := 0; a < n.NumArcs(); a++ {
		u, v, capacity, cost := n.Arc(a)
		switch {
		case u < 0 || u >= nn || v < 0 || v >= nn:
			return fmt.Errorf("mcftest: arc %d (%d→%d) joins a node outside 0..%d: %w", a, u, v, nn-1, mcf.ErrInvalid)
		case !finite(capacity) || !finite(cost):
			return fmt.Errorf("mcftest: arc %d capacity %v cost %v: %w", a, capacity, cost, mcf.ErrInvalid)
		case capacity < 0:
			return fmt.Errorf("mcftest: arc %d capacity %v is negative: %w", a, capacity, mcf.ErrInvalid)
		}
	}
	var sum, abs float64
	for v := 0; v < nn; v++ {
		b := n.Supply(v)
		if !finite(b) {
			return fmt.Errorf("mcftest: node %d supply %v is not finite: %w", v, b, mcf.ErrInvalid)
		}
		sum += b
		abs += math.Abs(b)
	}
	if math.Abs(sum) > mcf.Eps*math.Max(1, abs/2) {
		return fmt.Errorf("mcftest: supplies sum to %g, not zero: %w", sum, mcf.ErrInvalid)
	}
	return nil
}
