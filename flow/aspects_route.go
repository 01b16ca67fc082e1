package flow

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

// arc is an oriented content arc with its traversal cost w_uv.
type arc struct {
	from, to int
	w        float64
}

func (a *Aspects) route(ctx context.Context, g *graph.Graph, s *score.Scores, edits Edits) (*Routing, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	if err := checkScores(g, s); err != nil {
		return nil, err
	}
	if err := checkEdits(g, edits); err != nil {
		return nil, err
	}
	r := &Routing{Router: a.Name(), Scores: s, Edits: edits, cut: &lazyCut{}}
	n := g.Len()
	if n == 0 {
		return r, nil
	}
	t0 := time.Now()
	h := s.H
	f0 := a.demand(h)
	c := relevantSet(h, a.Tau, a.TopM)
	k := int(math.Floor(f0 + 0.5))
	k = min(k, len(c))
	if a.MaxAspects > 0 {
		k = min(k, a.MaxAspects)
	}
	k = max(k, 1)
	q := unitQuery(s.Query)
	tNet := time.Since(t0)

	t1 := time.Now()
	var fc *facetSet
	if a.Aspects == TermFacets {
		fc = a.facets(g, s, f0)
	}
	var sp spectrum
	var err error
	if fc != nil {
		sp.sigma = make([]float64, len(fc.caps))
		sp.dirs = make([][]float64, len(fc.caps))
	} else if sp, err = spectral(g, h, c, q, k, a.Eta, a.Center, a.QueryAspect, a.Spectral); err != nil {
		return nil, err
	}
	tSVD := time.Since(t1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	t2 := time.Now()
	na := len(sp.sigma)
	caps := aspectCapacities(sp.sigma, f0)
	if fc != nil {
		caps = fc.caps
	}
	// Terminal nodes: every node (B.7) or only C. Alignments are computed
	// for them only, position-major (p*A + a), and κ pools exactly the
	// terminal arcs (under PoolLive, those of live nodes).
	ps := a.pairSet(g, edits)
	n2 := len(ps.pairs)
	terms := c
	if !a.TerminalsFromC || len(c) == 0 {
		terms = ps.nodes
	}
	// h̄ is the query's mean h over the whole graph: the scores' HMean when
	// set (it stays right when routing a candidate subgraph), else computed.
	hbar := s.HMean
	if hbar == 0 {
		hbar = mean(h)
	}
	src, snk, base := n, n+1, n+2
	unit := 1.0
	if a.Uncapacitated {
		unit = f0
	}
	// Nodes below the floor get an entry arc of capacity 0 (arc ids stay
	// aligned with node ids): since arcs climb in h, no chain reaches them.
	// in marks the others (when unit can carry flow at all).
	entries := 0
	in := make([]bool, n)
	for v := range in {
		if h[v] < a.DemandFloor && a.DemandRule == DemandBudget {
			continue
		}
		in[v] = unit > mcf.Eps
		entries++
	}
	entered := entries
	if unit <= mcf.Eps {
		entered = 0
	}
	entry := func(v int) float64 {
		if h[v] < a.DemandFloor && a.DemandRule == DemandBudget {
			return 0
		}
		return unit
	}
	orient := func(i int) (from, to int) {
		p := ps.pairs[i]
		if a.before(g, h, p.u, p.v) {
			return p.u, p.v
		}
		return p.v, p.u
	}
	var live []bool
	nLive := n
	if !a.noPrune || a.KappaPool == PoolLive {
		// Entry depends on h alone and, by relevance, arcs climb in h: the
		// entered nodes are closed under the arcs.
		live, nLive = liveFromPairs(in, entered, ps, orient, unit, a.Orientation == ByRelevance)
	}
	// Under PoolLive with a dead part, κ pools the live arcs (those with a
	// live tail) and the live terminal nodes' alignments only; the others
	// are never priced unless the full network is asked for.
	poolLive := a.KappaPool == PoolLive && live != nil
	needMaxFlow := !a.Uncapacitated && float64(min(len(terms), entries)) < f0
	lazy := poolLive && !a.noPrune && !needMaxFlow

	// arcs are the priced content arcs: all of them, or under poolLive only
	// those with a live tail (liveIdx their pair indexes, increasing).
	var arcs []arc
	var liveIdx []int
	var allArcs func() []arc
	if poolLive {
		liveIdx = livePairs(live, ps, orient, unit > mcf.Eps)
		arcs = make([]arc, len(liveIdx))
		for k, i := range liveIdx {
			arcs[k] = a.price(g, h, hbar, ps, i, orient)
		}
		var once sync.Once
		var all []arc
		allArcs = func() []arc {
			once.Do(func() { all = a.contentArcs(g, h, hbar, ps, orient) })
			return all
		}
	} else {
		arcs = a.contentArcs(g, h, hbar, ps, orient)
		allArcs = func() []arc { return arcs }
	}
	// Under PoolLive only live terminal nodes get an alignment; the
	// others keep 0 and stay out of κ's pool.
	alignTerms := terms
	if poolLive {
		alignTerms = make([]int, 0, min(nLive, len(terms)))
		for _, v := range terms {
			if live[v] {
				alignTerms = append(alignTerms, v)
			}
		}
	}
	var align []float64
	if fc != nil {
		align = fc.alignment(alignTerms)
	} else {
		align = alignment(g, alignTerms, sp.dirs, a.SignedAlignment)
	}
	kappa := a.kappa(arcs, align, h)
	// fullAlign is the alignment at every terminal position (dead ones 0).
	fullAlign := func() []float64 {
		if len(alignTerms) == len(terms) {
			return align
		}
		full := make([]float64, len(terms)*na)
		i := 0
		for p, v := range terms {
			if i < len(alignTerms) && alignTerms[i] == v {
				copy(full[p*na:(p+1)*na], align[i*na:(i+1)*na])
				i++
			}
		}
		return full
	}
	if a.noPrune {
		live = nil
	}
	nodes := n + 2 + na
	nArcs := n + n2 + len(terms)*na + na
	first := n + n2 // first terminal arc id
	// build adds the arcs of G+ in id order to nb.
	build := func(nb *netBuilder) {
		arcs, align := allArcs(), fullAlign()
		for v := 0; v < n; v++ {
			nb.add(src, v, entry(v), 1-h[v])
		}
		for _, e := range arcs {
			if !nb.skip(e.from, 1) {
				nb.add(e.from, e.to, unit, e.w)
			}
		}
		for p, v := range terms {
			if nb.skip(v, na) {
				continue
			}
			for j := 0; j < na; j++ {
				nb.add(v, base+j, unit, kappa*(1-align[p*na+j]))
			}
		}
		for j := 0; j < na; j++ {
			nb.add(base+j, snk, caps[j], 0)
		}
	}
	// Under PoolLive the full network is only built when a consumer asks
	// for it (Routing.FullNetwork): nothing in the routing reads its dead
	// part. A max-flow run on it (below) needs it now.
	var net *mcf.Network
	var ln *liveNet
	if lazy {
		// The live sub-network straight from the live arcs, with the ids
		// and order netBuilder would give it.
		ln = newLiveNet(live, nodes-n)
		m := len(ln.back) + len(arcs) + len(alignTerms)*na + na
		ln.net.Grow(m)
		ln.arcs = make([]int, 0, m)
		for _, v := range ln.back {
			ln.add(v, src, v, entry(v), 1-h[v])
		}
		for k, e := range arcs {
			ln.add(n+liveIdx[k], e.from, e.to, unit, e.w)
		}
		i := 0
		for p, v := range terms {
			if !live[v] {
				continue
			}
			for j := 0; j < na; j++ {
				ln.add(first+p*na+j, v, base+j, unit, kappa*(1-align[i*na+j]))
			}
			i++
		}
		for j := 0; j < na; j++ {
			ln.add(nArcs-na+j, base+j, snk, caps[j], 0)
		}
	} else {
		nb := newNetBuilder(nodes, nArcs, live, false)
		build(nb)
		net, ln = nb.full, nb.live
	}
	sumD := 0.0
	for j := 0; j < na; j++ {
		sumD += caps[j]
	}
	// With unit arcs from each terminal node to every aspect, at least F0
	// such nodes fill the terminals on their own (a fractional
	// transportation problem), so f_max = Σ d_a without a max-flow run;
	// otherwise compute it.
	fmax := sumD
	if needMaxFlow {
		fmax, _, err = mcf.MaxFlow(net, src, snk)
		if err != nil {
			return nil, fmt.Errorf("flow: aspects max flow: %w", err)
		}
	}
	f := min(f0, sumD)
	if fmax < f-mcf.Eps {
		f = min(f0, a.Feasibility*fmax)
	}
	tNet += time.Since(t2)

	r.Network, r.Source, r.Sink, r.AspectBase = net, src, snk, base
	if lazy {
		r.full = &lazyNet{nodes: nodes, arcs: nArcs, build: func() *mcf.Network {
			fb := newNetBuilder(nodes, nArcs, nil, false)
			build(fb)
			return fb.full
		}}
	}
	r.Demand, r.MaxFlow = f0, fmax
	r.Saturation = math.Min(fmax/f0, 1)
	r.Kappa = kappa
	r.Relevant = len(c)
	r.ContentArcs = n2
	r.Aspects = make([]Aspect, na)
	for j := range r.Aspects {
		r.Aspects[j] = Aspect{Sigma: sp.sigma[j], Capacity: caps[j], Direction: sp.dirs[j]}
		if fc != nil {
			r.Aspects[j].Facet = fc.terms[j]
		}
	}
	r.Timings = Timings{Network: tNet, SVD: tSVD}
	if f <= mcf.Eps {
		if !lazy {
			r.Flow = make([]float64, net.NumArcs())
		}
		return r, nil
	}
	if err := solveAndDecompose(ctx, a.Solver, r, f, a.MaxChains, ln); err != nil {
		return nil, err
	}
	// Aspect flows and Fed read the terminal arcs (full ids from first on);
	// arcs off the live part carry no flow.
	r.eachArcFlow(func(id int, fl float64) {
		switch {
		case id >= nArcs-na:
			r.Aspects[id-(nArcs-na)].Flow = fl
		case id >= first && fl > mcf.Eps:
			r.Aspects[(id-first)%na].Fed++
		}
	})
	if a.MergeChains {
		r.Chains = mergeChains(r.Chains)
	}
	return r, nil
}

// solveAndDecompose sets supply f at r.Source, solves r.Network and fills
// the flow, cost, routed amount, chains and their timings. Given live, the
// part of r.Network that can carry flow (see liveNodes), it solves and
// decomposes that instead and maps flows and chain nodes back to
// r.Network's ids: the result is the same. With a lazy full network
// (r.full set, r.Network nil) it keeps the live flow in r.full instead.
func solveAndDecompose(ctx context.Context, solver mcf.Solver, r *Routing, f float64, maxChains int, live *liveNet) error {
	if solver == nil {
		solver = &mcf.SSP{}
	}
	net := r.Network // nil when built lazily (then live is set)
	if net != nil {
		net.SetSupply(r.Source, f)
		net.SetSupply(r.Sink, -f)
	}
	solveNet, src, snk, base := net, r.Source, r.Sink, r.AspectBase
	if live != nil {
		solveNet = live.net
		src, snk, base = live.id(src), live.id(snk), live.id(base)
		solveNet.SetSupply(src, f)
		solveNet.SetSupply(snk, -f)
	}
	t := time.Now()
	sol, err := solver.Solve(ctx, solveNet)
	if err != nil {
		return fmt.Errorf("flow: %s: solve: %w", r.Router, err)
	}
	r.Timings.Solve = time.Since(t)
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
	t = time.Now()
	paths, err := mcf.Decompose(solveNet, sol.Flow, src, snk, maxChains)
	if err != nil {
		return fmt.Errorf("flow: %s: decompose: %w", r.Router, err)
	}
	r.Chains = chainsFrom(solveNet, paths, base, src, snk)
	if live != nil {
		for _, c := range r.Chains {
			for i, v := range c.Nodes {
				c.Nodes[i] = live.back[v]
			}
		}
	}
	r.Distinct = distinct(r.Chains)
	r.Timings.Decompose = time.Since(t)
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

// Demand is F0 = clip((Σ z)² / Σ z², fmin, fmax) with z_v = max(0, h_v − τ),
// the participation ratio of the excess relevance (METHOD B.4). With no
// node above τ it is fmin.
func Demand(h []float64, tau, fmin, fmax float64) float64 {
	var s1, s2 float64
	for _, x := range h {
		if z := x - tau; z > 0 {
			s1 += z
			s2 += z * z
		}
	}
	if s2 == 0 {
		return fmin
	}
	return math.Min(math.Max(s1*s1/s2, fmin), fmax)
}

// demand is F0 under the router's DemandRule.
func (a *Aspects) demand(h []float64) float64 {
	count := func(floor float64) float64 {
		n := 0
		for _, x := range h {
			if x >= floor {
				n++
			}
		}
		return math.Min(math.Max(float64(n), a.FMin), a.FMax)
	}
	switch a.DemandRule {
	case DemandBudget:
		return count(a.DemandFloor)
	case DemandRelevant:
		return count(a.Tau)
	}
	return Demand(h, a.Tau, a.FMin, a.FMax)
}

// relevantSet is C = {v : h_v ≥ τ} in index order, or the topM nodes by h
// (ties by index) when topM > 0.
func relevantSet(h []float64, tau float64, topM int) []int {
	if topM > 0 {
		idx := byScore(h)
		idx = idx[:min(topM, len(idx))]
		sort.Ints(idx)
		return idx
	}
	var c []int
	for v, x := range h {
		if x >= tau {
			c = append(c, v)
		}
	}
	return c
}

// byScore returns node indexes sorted by x descending, ties by index.
func byScore(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
	return idx
}

func unitQuery(q []float32) []float64 {
	if len(q) == 0 {
		return nil
	}
	out := make([]float64, len(q))
	var s float64
	for i, x := range q {
		out[i] = float64(x)
		s += out[i] * out[i]
	}
	if s == 0 {
		return nil
	}
	s = math.Sqrt(s)
	for i := range out {
		out[i] /= s
	}
	return out
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// popSD is the population standard deviation.
func popSD(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	m := mean(x)
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)))
}

// aspectCapacities is d_a = F0 σ_a² / Σ σ_j² (equal shares when all σ = 0).
func aspectCapacities(sigma []float64, f0 float64) []float64 {
	var e float64
	for _, s := range sigma {
		e += s * s
	}
	d := make([]float64, len(sigma))
	for j, s := range sigma {
		if e > 0 {
			d[j] = f0 * s * s / e
		} else {
			d[j] = f0 / float64(len(sigma))
		}
	}
	return d
}

// alignment is c_a(v) = max(0, <ê_v, φ_a>) (or the signed cosine) for the
// nodes vs, position-major (p*A + a).
func alignment(g *graph.Graph, vs []int, dirs [][]float64, signed bool) []float64 {
	na := len(dirs)
	d32 := make([][]float32, na)
	for j, d := range dirs {
		d32[j] = make([]float32, len(d))
		for i, x := range d {
			d32[j][i] = float32(x)
		}
	}
	out := make([]float64, len(vs)*na)
	for p, v := range vs {
		e := g.Embedding(v)
		for j := range d32 {
			if len(d32[j]) == len(e) {
				c := vec.Dot(e, d32[j])
				if !signed {
					c = math.Max(0, c)
				}
				out[p*na+j] = c
			}
		}
	}
	return out
}

// pairSet returns the content pairs with their bridge terms and incidence:
// from the router's cache when it has one and there are no edits.
func (a *Aspects) pairSet(g *graph.Graph, edits Edits) *pairSet {
	compute := func() *pairSet {
		pairs := contentPairs(g, a.EdgeKinds, a.OrderWindow, nil, newEditTable(edits.Edges))
		return newPairSet(g.Len(), pairs, bridgeScores(g, pairs, a.Bridge, a.BridgeCutoff))
	}
	if a.cache != nil && len(edits.Edges) == 0 {
		return a.cache.get(g, pairKey{a.EdgeKinds, a.OrderWindow, a.Bridge, a.BridgeCutoff}, compute)
	}
	return compute()
}

// contentArcs orients every content pair and prices it (see price), in
// pair order.
func (a *Aspects) contentArcs(g *graph.Graph, h []float64, hbar float64, ps *pairSet, orient func(int) (int, int)) []arc {
	out := make([]arc, len(ps.pairs))
	for i := range ps.pairs {
		out[i] = a.price(g, h, hbar, ps, i, orient)
	}
	return out
}

// price orients pair i and prices it with
// w_uv = (1 − p_uv) − Δ_uv − (ω_uv h_v − h̄) (METHOD B.3), terms switched by
// the options.
func (a *Aspects) price(g *graph.Graph, h []float64, hbar float64, ps *pairSet, i int, orient func(int) (int, int)) arc {
	p := &ps.pairs[i]
	u, v := orient(i)
	x, y := &g.Nodes[u], &g.Nodes[v]
	cross := 0.0
	if x.Modality.Visual() != y.Modality.Visual() {
		cross = 1
	}
	pv := (1-a.Beta)*Gain(p.aff) + a.Beta*ps.bridge[i] + a.Gamma*cross
	pv = clip01(pv)
	w := 1 - pv
	if a.Climb {
		w -= h[v] - h[u]
	}
	if a.NodeCredit {
		omega := 1.0
		if a.Agreement {
			omega = p.cos
		}
		w -= omega*h[v] - hbar
	}
	if a.OrderCredit != 0 && a.OrderWindow > 0 {
		if d := x.Order - y.Order; x.Doc == y.Doc && d <= a.OrderWindow && -d <= a.OrderWindow {
			w -= a.OrderCredit
		}
	}
	return arc{from: u, to: v, w: w}
}

// clip01 is math.Min(math.Max(x, 0), 1) bit for bit (NaN stays NaN, −0
// becomes +0) without the calls, which cost more than the rest of an arc's
// price.
func clip01(x float64) float64 {
	switch {
	case x > 1:
		return 1
	case x > 0:
		return x
	case x != x:
		return x
	}
	return 0
}

// before reports whether the arc between u and v goes u→v.
func (a *Aspects) before(g *graph.Graph, h []float64, u, v int) bool {
	if a.Orientation == ByDocument {
		x, y := &g.Nodes[u], &g.Nodes[v]
		if x.Doc != y.Doc {
			return x.Doc < y.Doc
		}
		if x.Order != y.Order {
			return x.Order < y.Order
		}
		return u < v
	}
	if h[u] != h[v] {
		return h[u] < h[v]
	}
	return u < v
}

// Gain is 2c·sqrt(1 − c²) for c = clip(affinity, 0, 1): v1's "informative
// jump" weight c·sqrt(1 − c²), scaled to [0, 1] (METHOD B.3 [proposed]).
func Gain(affinity float64) float64 {
	c := clip01(affinity)
	return 2 * c * math.Sqrt(1-c*c)
}

// kappa is the termination scale: the override, or b/(1−b) times the ratio
// of the chosen spread to sd(c_a(v)); 1 when a spread is 0.
func (a *Aspects) kappa(arcs []arc, align, h []float64) float64 {
	if a.Kappa != nil {
		return *a.Kappa
	}
	var num float64
	if a.KappaMode == KappaRelevance {
		num = popSD(h)
	} else if len(arcs) > 0 {
		// popSD of the arc prices, in the same order of operations, without
		// copying them out.
		var s float64
		for _, e := range arcs {
			s += e.w
		}
		m := s / float64(len(arcs))
		s = 0
		for _, e := range arcs {
			s += (e.w - m) * (e.w - m)
		}
		num = math.Sqrt(s / float64(len(arcs)))
	}
	den := popSD(align)
	if num < 1e-12 || den < 1e-12 {
		return 1
	}
	return a.B / (1 - a.B) * num / den
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
