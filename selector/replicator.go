package selector

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/flowreader/flowreader/flow"
)

// Replicator returns v1's entropy-regularised replicator dynamics (paper v1
// §3.4): quality q_k = b̃_k^0.2 (max h)^0.5 (mean h)^0.3, payoff A_kk = q_k²,
// A_kl = sqrt(q_k q_l)(1 − Jaccard), x⁰ ∝ q, then x ← (1−ε) x⊙(Ax)/(xᵀAx) +
// ε/K with ε = 0.2 until ‖Δx‖₂ < 1e-4 or 20 steps; it keeps the chains with
// x_k > 5e-4, at most 11. It has no settings: the constants are the paper's
// (see the package comment). The result holds at most 11 chains, and at
// most maxChains when 0 < maxChains < 11, ordered by x (ties by flow, then
// index).
func Replicator() Selector { return replicator{} }

// replicator is the selector Replicator returns.
type replicator struct{}

// The replicator's constants (paper v1 §3.4).
const (
	repExpFlow  = 0.2  // exponent of the normalised flow b̃_k in q_k
	repExpMax   = 0.5  // exponent of max h in q_k
	repExpMean  = 0.3  // exponent of mean h in q_k
	repEpsilon  = 0.2  // ε_rd, the mixing toward uniform
	repTol      = 1e-4 // the dynamics stop at ‖Δx‖₂ < repTol
	repMaxIter  = 20   // or after this many steps
	repTheta    = 5e-4 // θ: chains with x_k ≤ θ are dropped
	repMaxPaths = 11   // at most this many chains are kept
)

// Select implements Selector.
func (rp replicator) Select(ctx context.Context, r *flow.Routing, maxChains int) ([]flow.Chain, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r == nil || len(r.Chains) == 0 {
		return nil, nil
	}
	x, err := rp.weights(ctx, r)
	if err != nil {
		return nil, err
	}
	limit := repMaxPaths
	if maxChains > 0 && maxChains < limit {
		limit = maxChains
	}
	idx := order(x, r.Chains, nil)
	keep := idx[:0:0]
	for _, k := range idx {
		if x[k] > repTheta {
			keep = append(keep, k)
		}
	}
	return pick(r.Chains, keep, limit), nil
}

func (rp replicator) weights(ctx context.Context, r *flow.Routing) ([]float64, error) {
	q := v1Quality(r, repExpFlow, repExpMax, repExpMean)
	return play(ctx, r.Chains, q, func(a [][]float64, x []float64) ([]float64, error) {
		next, ax := make([]float64, len(x)), make([]float64, len(x))
		for t := 0; t < repMaxIter; t++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			stepInto(next, ax, a, x, repEpsilon)
			done := dist(next, x) < repTol
			x, next = next, x
			if done {
				break
			}
		}
		return x, nil
	})
}

// v1Quality is q_k = b̃_k^a (max h)^b (mean h)^c with b̃ = b / max b.
func v1Quality(r *flow.Routing, ea, eb, ec float64) []float64 {
	h := hOf(r)
	mb := 0.0
	for _, c := range r.Chains {
		mb = math.Max(mb, c.Flow)
	}
	q := make([]float64, len(r.Chains))
	for k := range r.Chains {
		c := &r.Chains[k]
		bt := 0.0
		if mb > 0 {
			bt = c.Flow / mb
		}
		q[k] = math.Pow(bt, ea) * math.Pow(maxH(c, h), eb) * math.Pow(meanH(c, h), ec)
	}
	return q
}

// payoff is A_kk = q_k², A_kl = sqrt(q_k q_l)(1 − Jaccard(V_k, V_l)) over
// the chains game lists (all of them when it is nil), in one backing array.
// It checks ctx every row: building it is the quadratic part of selection.
func payoff(ctx context.Context, chains []flow.Chain, q []float64, game []int) ([][]float64, error) {
	if game == nil {
		game = make([]int, len(chains))
		for i := range game {
			game[i] = i
		}
	}
	k := len(game)
	sets := make([][]int, k)
	for i, c := range game {
		sets[i] = nodeSet(chains[c].Nodes)
	}
	back := make([]float64, k*k)
	a := make([][]float64, k)
	for i := range a {
		a[i] = back[i*k : (i+1)*k : (i+1)*k]
	}
	for i := 0; i < k; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		qi := q[game[i]]
		a[i][i] = qi * qi
		for j := i + 1; j < k; j++ {
			v := math.Sqrt(qi*q[game[j]]) * (1 - jaccardSorted(sets[i], sets[j]))
			a[i][j], a[j][i] = v, v
		}
	}
	return a, nil
}

// maxGame bounds the chains that play the game: the payoff is K×K, so a
// routing of thousands of chains (a budget of thousands) would cost
// hundreds of megabytes and seconds. Past it, the maxGame chains of
// largest flow play (ties by q, then index), and the others keep x = 0, so
// that they follow the players in Greedy's order. A budget of 16 routes
// about 20 chains; the bound never binds below a budget of about 1000.
const maxGame = 1024

// game lists the chains that play, in index order: nil (all of them) when
// there are at most maxGame.
func game(chains []flow.Chain, q []float64) []int {
	if len(chains) <= maxGame {
		return nil
	}
	idx := make([]int, len(chains))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if chains[i].Flow != chains[j].Flow {
			return chains[i].Flow > chains[j].Flow
		}
		return q[i] > q[j]
	})
	idx = idx[:maxGame]
	sort.Ints(idx)
	return idx
}

// play runs dynamics over the chains game lists (all when nil), from x⁰ ∝
// q, and returns x over every chain (0 for those that did not play).
func play(ctx context.Context, chains []flow.Chain, q []float64, dynamics func(a [][]float64, x []float64) ([]float64, error)) ([]float64, error) {
	g := game(chains, q)
	a, err := payoff(ctx, chains, q, g)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return dynamics(a, initial(q))
	}
	sub := make([]float64, len(g))
	for i, c := range g {
		sub[i] = q[c]
	}
	xs, err := dynamics(a, initial(sub))
	if err != nil {
		return nil, err
	}
	x := make([]float64, len(chains))
	for i, c := range g {
		x[c] = xs[i]
	}
	return x, nil
}

// nodeSet is the chain's distinct nodes, sorted.
func nodeSet(nodes []int) []int {
	s := append([]int(nil), nodes...)
	sort.Ints(s)
	return slices.Compact(s)
}

// jaccardSorted is jaccard over two sorted sets: the same counts, so the
// same value, by one merge instead of two maps.
func jaccardSorted(a, b []int) float64 {
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// initial is x⁰ ∝ q (uniform when Σq = 0).
func initial(q []float64) []float64 {
	x := make([]float64, len(q))
	var s float64
	for _, v := range q {
		s += v
	}
	for i, v := range q {
		if s > 0 {
			x[i] = v / s
		} else {
			x[i] = 1 / float64(len(q))
		}
	}
	return x
}

// step is one replicator step followed by mixing toward uniform with eps.
// When xᵀAx = 0 the replicator part leaves x unchanged.
func step(a [][]float64, x []float64, eps float64) []float64 {
	k := len(x)
	next := make([]float64, k)
	stepInto(next, make([]float64, k), a, x, eps)
	return next
}

// stepInto is step writing x's successor into next, with ax as scratch
// (both of x's length, neither aliasing x), so that an iteration allocates
// nothing.
func stepInto(next, ax []float64, a [][]float64, x []float64, eps float64) {
	k := len(x)
	var xax float64
	for i := 0; i < k; i++ {
		var s float64
		for j, aij := range a[i][:k] {
			s += aij * x[j]
		}
		ax[i] = s
		xax += x[i] * s
	}
	var sum float64
	for i := range next[:k] {
		v := x[i]
		if xax > 0 {
			v = x[i] * ax[i] / xax
		}
		next[i] = (1-eps)*v + eps/float64(k)
		sum += next[i]
	}
	// Renormalise away rounding so x stays on the simplex.
	for i := range next[:k] {
		next[i] /= sum
	}
}

func quad(a [][]float64, x []float64) float64 {
	var s float64
	for i := range x {
		for j := range x {
			s += x[i] * a[i][j] * x[j]
		}
	}
	return s
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// order sorts chain indexes by x descending, ties by flow, then by the
// second key (if given), then by index.
func order(x []float64, chains []flow.Chain, second []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if x[i] != x[j] {
			return x[i] > x[j]
		}
		if chains[i].Flow != chains[j].Flow {
			return chains[i].Flow > chains[j].Flow
		}
		if second != nil && second[i] != second[j] {
			return second[i] > second[j]
		}
		return false
	})
	return idx
}
