package flow

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// arc is an oriented content arc with its traversal cost w_uv.
type arc struct {
	from, to int
	w        float64
}

// aspectsQuery is the state of one question's routing, filled by the
// steps of route in order.
type aspectsQuery struct {
	a  *Aspects
	g  *graph.Graph
	ps *pairSet
	s  *score.Scores
	h  []float64
	n  int

	f0   float64 // demand
	c    []int   // relevant set
	sp   spectrum
	na   int       // aspect count
	caps []float64 // d_a
	hbar float64

	src, snk, base int
	unit           float64 // capacity of unit arcs (f0 under ShortestPath)
	floor          bool    // nodes below DemandFloor get no entry
	entries        int     // nodes with an entry arc of positive capacity
	live           []bool  // nil: every node is live
	nLive          int
	poolLive       bool // κ pools the live arcs only
	needMaxFlow    bool
	lazy           bool // the full network is built on demand

	arcs    []arc // priced content arcs (under poolLive, those with a live tail)
	liveIdx []int // under poolLive, the pair index of each of arcs
	all     []arc // every priced content arc, priced on first use
	terms   []int // terminal nodes (every node)
	aligned []int // terminal nodes with an alignment (under poolLive, live ones)
	align   []float64
	kappa   float64

	nodes, nArcs, first int // network size; first is the first terminal arc id
}

// route routes one question: demand, aspects, network, κ, solve and
// decomposition, result. Each content class routes as its lowest node and
// is reported by the member the question scores highest (classCitations).
func (ag *aspectsGraph) route(ctx context.Context, s *score.Scores, budget int, edits Edits) (*Routing, error) {
	r, err := ag.routeClasses(ctx, s, budget, edits)
	if err != nil || ag.classes == nil {
		return r, err
	}
	r.cite(classCitations(s, ag.classes))
	return r, nil
}

// routeClasses is route with every content class on its lowest node.
func (ag *aspectsGraph) routeClasses(ctx context.Context, s *score.Scores, budget int, edits Edits) (*Routing, error) {
	a, g := &ag.cfg, ag.g
	if budget <= 0 {
		return nil, fmt.Errorf("%w: budget %d, want > 0", ErrConfig, budget)
	}
	if err := checkScores(g, s); err != nil {
		return nil, err
	}
	if err := checkEdits(g, edits); err != nil {
		return nil, err
	}
	s = classScores(s, ag.classes)
	r := &Routing{Router: a.name(), Scores: s, Edits: edits, cut: &lazyCut{}}
	if len(g.Nodes) == 0 {
		return r, nil
	}
	q := &aspectsQuery{a: a, g: g, s: s, h: s.H, n: len(g.Nodes)}
	t0 := time.Now()
	q.f0 = a.demand(q.h, float64(budget))
	q.c = relevantSet(q.h, a.RelevanceThreshold)
	tNet := time.Since(t0)

	t1 := time.Now()
	if err := q.aspects(); err != nil {
		return nil, err
	}
	tSVD := time.Since(t1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	t2 := time.Now()
	q.ps = ag.pairSet(edits)
	q.prune()
	q.price()
	q.kappa = a.kappa(q.arcs, q.align)
	net, ln := q.network()
	fmax, f, err := q.flowAmount(net)
	if err != nil {
		return nil, err
	}
	tNet += time.Since(t2)

	q.result(r, net, fmax)
	r.stage("network", tNet)
	r.stage("svd", tSVD)
	if f <= mcf.Eps {
		if !q.lazy {
			r.Flow = make([]float64, net.NumArcs())
		}
		return r, nil
	}
	if err := solveAndDecompose(ctx, a.Solver, r, f, 0, ln); err != nil {
		return nil, err
	}
	q.aspectFlows(r)
	if !a.SplitChains {
		r.Chains = mergeChains(r.Chains)
	}
	return r, nil
}

// aspects finds the aspect terminals: at most round(F0), |C| (and one
// under SingleSink) leading singular pairs of M, with capacities
// d_a = F0 σ_a²/Σσ² (paper v3 §3.2).
func (q *aspectsQuery) aspects() error {
	k := int(math.Floor(q.f0 + 0.5))
	k = min(k, len(q.c))
	if q.a.SingleSink {
		k = min(k, 1)
	}
	k = max(k, 1)
	sp, err := spectral(q.g, q.h, q.c, unitQuery(q.s.Query), k, q.a.EnergyFraction)
	if err != nil {
		return err
	}
	q.sp, q.na = sp, len(sp.sigma)
	q.caps = aspectCapacities(sp.sigma, q.f0)
	return nil
}

// prune finds the live nodes, those the source can reach (see
// liveFromPairs), and decides what the network is built over.
func (q *aspectsQuery) prune() {
	a, n, h := q.a, q.n, q.h
	// Every node is a terminal node (§3.3: every content node can end a path).
	q.terms = q.ps.nodes
	// h̄ is the question's mean h over the whole graph: the scores' HMean
	// when set (it stays right when routing a candidate subgraph), else
	// computed.
	q.hbar = q.s.HMean
	if q.hbar == 0 {
		q.hbar = mean(h)
	}
	q.src, q.snk, q.base = n, n+1, n+2
	q.unit = 1.0
	if a.ShortestPath {
		q.unit = q.f0
	}
	q.floor = !a.DemandRatio
	// Nodes below the floor get an entry arc of capacity 0 (arc ids stay
	// aligned with node ids): since arcs climb in h, no chain reaches them.
	// in marks the others (when unit can carry flow at all).
	in := make([]bool, n)
	for v := range in {
		if q.floor && h[v] < a.DemandFloor {
			continue
		}
		in[v] = q.unit > mcf.Eps
		q.entries++
	}
	entered := q.entries
	if q.unit <= mcf.Eps {
		entered = 0
	}
	q.nLive = n
	if !a.noPrune || !a.PoolEveryArc {
		// Entry depends on h alone and, by relevance, arcs climb in h: the
		// entered nodes are closed under the arcs.
		q.live, q.nLive = liveFromPairs(in, entered, q.ps, q.orient, q.unit, !a.DocumentOrder)
	}
	// Unless PoolEveryArc, with a dead part, κ pools the live arcs (those
	// with a live tail) and the live terminal nodes' alignments only; the
	// others are never priced unless the full network is asked for.
	q.poolLive = !a.PoolEveryArc && q.live != nil
	q.needMaxFlow = !a.ShortestPath && float64(min(len(q.terms), q.entries)) < q.f0
	q.lazy = q.poolLive && !a.noPrune && !q.needMaxFlow
}

// price prices the content arcs and the alignments that κ pools.
func (q *aspectsQuery) price() {
	if q.poolLive {
		q.liveIdx = livePairs(q.live, q.ps, q.orient, q.unit > mcf.Eps)
		q.arcs = make([]arc, len(q.liveIdx))
		for k, i := range q.liveIdx {
			q.arcs[k] = q.a.price(q.g, q.h, q.hbar, q.ps, i, q.orient)
		}
	} else {
		q.all = q.a.contentArcs(q.g, q.h, q.hbar, q.ps, q.orient)
		q.arcs = q.all
	}
	// Unless PoolEveryArc, only live terminal nodes get an alignment; the
	// others keep 0 and stay out of κ's pool.
	q.aligned = q.terms
	if q.poolLive {
		q.aligned = make([]int, 0, min(q.nLive, len(q.terms)))
		for _, v := range q.terms {
			if q.live[v] {
				q.aligned = append(q.aligned, v)
			}
		}
	}
	q.align = alignment(q.g, q.aligned, q.sp.dirs)
	if q.a.noPrune {
		q.live = nil
	}
	q.nodes = q.n + 2 + q.na
	q.nArcs = q.n + len(q.ps.pairs) + len(q.terms)*q.na + q.na
	q.first = q.n + len(q.ps.pairs)
}

// entry is the capacity of node v's entry arc s→v.
func (q *aspectsQuery) entry(v int) float64 {
	if q.floor && q.h[v] < q.a.DemandFloor {
		return 0
	}
	return q.unit
}

// orient orients pair i.
func (q *aspectsQuery) orient(i int) (from, to int) {
	p := q.ps.pairs[i]
	if q.a.before(q.g, q.h, p.u, p.v) {
		return p.u, p.v
	}
	return p.v, p.u
}

// allArcs is every priced content arc, pricing the dead ones on first use.
func (q *aspectsQuery) allArcs() []arc {
	if q.all == nil {
		q.all = q.a.contentArcs(q.g, q.h, q.hbar, q.ps, q.orient)
	}
	return q.all
}

// fullAlign is the alignment at every terminal position (dead ones 0).
func (q *aspectsQuery) fullAlign() []float64 {
	na := q.na
	if len(q.aligned) == len(q.terms) {
		return q.align
	}
	full := make([]float64, len(q.terms)*na)
	i := 0
	for p, v := range q.terms {
		if i < len(q.aligned) && q.aligned[i] == v {
			copy(full[p*na:(p+1)*na], q.align[i*na:(i+1)*na])
			i++
		}
	}
	return full
}

// build adds the arcs of G+ in id order to nb: entry arcs, content arcs,
// terminal arcs κ(1 − c_a(v)) and aspect arcs of capacity d_a (§3.3).
func (q *aspectsQuery) build(nb *netBuilder) {
	na := q.na
	arcs, align := q.allArcs(), q.fullAlign()
	for v := 0; v < q.n; v++ {
		nb.add(q.src, v, q.entry(v), 1-q.h[v])
	}
	for _, e := range arcs {
		if !nb.skip(e.from, 1) {
			nb.add(e.from, e.to, q.unit, e.w)
		}
	}
	for p, v := range q.terms {
		if nb.skip(v, na) {
			continue
		}
		for j := 0; j < na; j++ {
			nb.add(v, q.base+j, q.unit, q.kappa*(1-align[p*na+j]))
		}
	}
	for j := 0; j < na; j++ {
		nb.add(q.base+j, q.snk, q.caps[j], 0)
	}
}

// network builds the network to solve: the full network (with its live
// part when pruning), or, when lazy, the live part alone, straight from the
// live arcs with the ids and order netBuilder would give it.
func (q *aspectsQuery) network() (*mcf.Network, *liveNet) {
	if !q.lazy {
		nb := newNetBuilder(q.nodes, q.nArcs, q.live, false)
		q.build(nb)
		return nb.full, nb.live
	}
	na := q.na
	ln := newLiveNet(q.live, q.nodes-q.n)
	m := len(ln.back) + len(q.arcs) + len(q.aligned)*na + na
	ln.net.Grow(m)
	ln.arcs = make([]int, 0, m)
	for _, v := range ln.back {
		ln.add(v, q.src, v, q.entry(v), 1-q.h[v])
	}
	for k, e := range q.arcs {
		ln.add(q.n+q.liveIdx[k], e.from, e.to, q.unit, e.w)
	}
	i := 0
	for p, v := range q.terms {
		if !q.live[v] {
			continue
		}
		for j := 0; j < na; j++ {
			ln.add(q.first+p*na+j, v, q.base+j, q.unit, q.kappa*(1-q.align[i*na+j]))
		}
		i++
	}
	for j := 0; j < na; j++ {
		ln.add(q.nArcs-na+j, q.base+j, q.snk, q.caps[j], 0)
	}
	return nil, ln
}

// flowAmount is f_max and the flow to send, F = min(F0, Σ d_a), or
// min(F0, feasibility·f_max) when less than F fits.
func (q *aspectsQuery) flowAmount(net *mcf.Network) (fmax, f float64, err error) {
	sumD := 0.0
	for j := 0; j < q.na; j++ {
		sumD += q.caps[j]
	}
	// With unit arcs from each terminal node to every aspect, at least F0
	// such nodes fill the terminals on their own (a fractional
	// transportation problem), so f_max = Σ d_a without a max-flow run;
	// otherwise compute it.
	fmax = sumD
	if q.needMaxFlow {
		fmax, _, err = mcf.MaxFlow(net, q.src, q.snk)
		if err != nil {
			return 0, 0, fmt.Errorf("flow: aspects max flow: %w", err)
		}
	}
	f = min(q.f0, sumD)
	if fmax < f-mcf.Eps {
		f = min(q.f0, feasibility*fmax)
	}
	return fmax, f, nil
}

// result fills the routing's network and the quantities that explain it.
func (q *aspectsQuery) result(r *Routing, net *mcf.Network, fmax float64) {
	r.Network, r.Source, r.Sink, r.AspectBase = net, q.src, q.snk, q.base
	if q.lazy {
		r.full = &lazyNet{nodes: q.nodes, arcs: q.nArcs, build: func() *mcf.Network {
			fb := newNetBuilder(q.nodes, q.nArcs, nil, false)
			q.build(fb)
			return fb.full
		}}
	}
	r.Demand, r.MaxFlow = q.f0, fmax
	r.Saturation = math.Min(fmax/q.f0, 1)
	r.Kappa = q.kappa
	r.Relevant = len(q.c)
	r.ContentArcs = len(q.ps.pairs)
	r.Aspects = make([]Aspect, q.na)
	for j := range r.Aspects {
		r.Aspects[j] = Aspect{Sigma: q.sp.sigma[j], Capacity: q.caps[j], Direction: q.sp.dirs[j]}
	}
}

// aspectFlows reads the terminal arcs (full ids from first on) into the
// aspects' Flow and Fed; arcs off the live part carry no flow.
func (q *aspectsQuery) aspectFlows(r *Routing) {
	na := q.na
	r.eachArcFlow(func(id int, fl float64) {
		switch {
		case id >= q.nArcs-na:
			r.Aspects[id-(q.nArcs-na)].Flow = fl
		case id >= q.first && fl > mcf.Eps:
			r.Aspects[(id-q.first)%na].Fed++
		}
	})
}

// participation is F0 = clip((Σ z)² / Σ z², fmin, fmax) with z_v = max(0,
// h_v − τ), the participation ratio of the excess relevance (paper v3
// §3.2, Eq. 3). With no node above τ it is fmin.
func participation(h []float64, tau, fmin, fmax float64) float64 {
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

// demand is F0 under the router's demand rule, clipped to [minDemand,
// budget] (minDemand lowered to the budget when above it).
func (a *Aspects) demand(h []float64, budget float64) float64 {
	fmin := math.Min(a.minDemand(), budget)
	if !a.DemandRatio {
		n := 0
		for _, x := range h {
			if x >= a.DemandFloor {
				n++
			}
		}
		return math.Min(math.Max(float64(n), fmin), budget)
	}
	return participation(h, a.RelevanceThreshold, fmin, budget)
}

// relevantSet is C = {v : h_v ≥ τ} in index order.
func relevantSet(h []float64, tau float64) []int {
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

// alignment is c_a(v) = max(0, <ê_v, φ_a>) (paper v3 §3.3) for the nodes
// vs, position-major (p*A + a).
func alignment(g *graph.Graph, vs []int, dirs [][]float64) []float64 {
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
		for j := range d32 {
			if len(d32[j]) == g.Dim {
				out[p*na+j] = math.Max(0, g.Dot(v, d32[j]))
			}
		}
	}
	return out
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
// w_uv = (1 − p_uv) − Δ_uv − (ω_uv h_v − h̄) (paper v3 §3.2, App. A.2), the
// credit only under NodeCredit and ω ≡ 1 under NoAgreement.
func (a *Aspects) price(g *graph.Graph, h []float64, hbar float64, ps *pairSet, i int, orient func(int) (int, int)) arc {
	p := &ps.pairs[i]
	u, v := orient(i)
	x, y := &g.Nodes[u], &g.Nodes[v]
	cross := 0.0
	if (x.Modality == graph.ModalityText) != (y.Modality == graph.ModalityText) {
		cross = 1
	}
	pv := (1-a.BridgeWeight)*gain(p.aff) + a.BridgeWeight*ps.bridge[i] + a.CrossModalBonus*cross
	pv = clip01(pv)
	w := 1 - pv
	w -= h[v] - h[u]
	if a.NodeCredit {
		omega := 1.0
		if !a.NoAgreement {
			omega = p.cos
		}
		w -= omega*h[v] - hbar
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
	if a.DocumentOrder {
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

// gain is 2c·sqrt(1 − c²) for c = clip(affinity, 0, 1): paper v1's
// "informative jump" weight c·sqrt(1 − c²), scaled to [0, 1] (paper v3 App. A.2).
func gain(affinity float64) float64 {
	c := clip01(affinity)
	return 2 * c * math.Sqrt(1-c*c)
}

// kappa is the termination scale κ = b/(1−b) · sd(w_uv)/sd(c_a(v)) over
// the given arcs and alignments (paper v3 App. A.3, Eq. 10); 1 when a
// spread is 0.
func (a *Aspects) kappa(arcs []arc, align []float64) float64 {
	var num float64
	if len(arcs) > 0 {
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
	return a.TerminationShare / (1 - a.TerminationShare) * num / den
}
