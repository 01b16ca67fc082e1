package flow

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/flowreader/flowreader/flow/mcf"
)

// solveAndDecompose solves r.Network for supply f at r.Source and
// decomposes the optimal flow into chains. Given live, the part of
// r.Network that can carry flow (see liveFromPairs), it solves and
// decomposes that instead and maps flows and chain nodes back to
// r.Network's ids: the result is the same. With a lazy full network (r.full
// set, r.Network nil) it keeps the live flow in r.full instead.
func solveAndDecompose(ctx context.Context, solver mcf.Solver, r *Routing, f float64, maxChains int, live *liveNet) error {
	net, sol, err := solve(ctx, solver, r, f, live)
	if err != nil {
		return err
	}
	return decompose(r, net, sol.Flow, maxChains, live)
}

// solve sets supply f at r.Source and solves the network (live's when
// given), filling r's flow, cost and routed amount; it returns the network
// solved and its solution.
func solve(ctx context.Context, solver mcf.Solver, r *Routing, f float64, live *liveNet) (*mcf.Network, *mcf.Solution, error) {
	if solver == nil {
		solver = &mcf.SSP{}
	}
	net := r.Network // nil when built lazily (then live is set)
	if net != nil {
		net.SetSupply(r.Source, f)
		net.SetSupply(r.Sink, -f)
	}
	solveNet := net
	if live != nil {
		solveNet = live.net
		solveNet.SetSupply(live.id(r.Source), f)
		solveNet.SetSupply(live.id(r.Sink), -f)
	}
	t := time.Now()
	sol, err := solver.Solve(ctx, solveNet)
	if err != nil {
		return nil, nil, fmt.Errorf("flow: %s: solve: %w", r.Router, err)
	}
	r.stage("solve", time.Since(t))
	r.Flow, r.Cost, r.Routed = sol.Flow, sol.Cost, sol.Routed
	if live != nil {
		// Dropped arcs carry no flow; adding their zero terms to Cost
		// would not change it.
		if r.full != nil {
			r.full.flow, r.full.ids, r.full.supply = sol.Flow, live.arcs, f
			r.Flow = nil
		} else {
			r.Flow = make([]float64, net.NumArcs())
			for i, id := range live.arcs {
				r.Flow[id] = sol.Flow[i]
			}
		}
	}
	return solveNet, sol, nil
}

// decompose splits the flow on the solved network into r's chains, in
// r.Network's node ids, with at most maxChains paths (0: no cap).
func decompose(r *Routing, net *mcf.Network, flow []float64, maxChains int, live *liveNet) error {
	src, snk, base := r.Source, r.Sink, r.AspectBase
	if live != nil {
		src, snk, base = live.id(src), live.id(snk), live.id(base)
	}
	t := time.Now()
	paths, err := mcf.Decompose(net, flow, src, snk, maxChains)
	if err != nil {
		return fmt.Errorf("flow: %s: decompose: %w", r.Router, err)
	}
	r.Chains = chainsFrom(net, paths, base, src, snk)
	if live != nil {
		for _, c := range r.Chains {
			for i, v := range c.Nodes {
				c.Nodes[i] = live.back[v]
			}
		}
	}
	r.Distinct = distinct(r.Chains)
	r.stage("decompose", time.Since(t))
	return nil
}

// chainsFrom turns s–t paths into chains: content nodes (ids below s) in
// path order, the aspect terminal if any, and the per-unit cost. Cycle
// records carry no chain.
func chainsFrom(net *mcf.Network, paths []mcf.Path, aspectBase, src, snk int) []Chain {
	out := make([]Chain, 0, len(paths))
	for _, p := range paths {
		if p.Cycle {
			continue
		}
		ch := Chain{Flow: p.Amount, Aspect: -1}
		for _, v := range p.Nodes {
			switch {
			case v < src:
				ch.Nodes = append(ch.Nodes, v)
			case v >= aspectBase && aspectBase > snk:
				ch.Aspect = v - aspectBase
			}
		}
		for _, id := range p.Arcs {
			_, _, _, cost := net.Arc(id)
			ch.Cost += cost
		}
		out = append(out, ch)
	}
	return out
}

// mergeChains merges chains with equal node sequences, keeping first-seen
// order: flows add, the cost is flow-weighted (so Σ flow·cost is kept) and
// the aspect is the one that carried the most flow.
func mergeChains(cs []Chain) []Chain {
	var out []Chain
	var best []float64
	pos := make(map[string]int, len(cs))
	var key []byte
	for _, c := range cs {
		key = key[:0]
		for _, v := range c.Nodes {
			key = strconv.AppendInt(key, int64(v), 10)
			key = append(key, ' ')
		}
		i, ok := pos[string(key)]
		if !ok {
			pos[string(key)] = len(out)
			best = append(best, c.Flow)
			out = append(out, c)
			continue
		}
		m := &out[i]
		tot := m.Flow + c.Flow
		if tot > 0 {
			m.Cost = (m.Cost*m.Flow + c.Cost*c.Flow) / tot
		}
		m.Flow = tot
		if c.Flow > best[i] {
			best[i] = c.Flow
			m.Aspect = c.Aspect
		}
	}
	return out
}
