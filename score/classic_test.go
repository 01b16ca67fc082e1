package score

import (
	"math"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"
)

// pathGraph is 0 — 1 — 2 with unit embeddings at 0°, 60° and 120°, so both
// edges have weight cos 60° = 0.5 and p = 0.5·sqrt(0.75).
func pathGraph(t *testing.T) *graph.Graph {
	s := float32(math.Sqrt(3) / 2)
	emb := []float32{1, 0, 0.5, s, -0.5, s}
	return mustGraph(t, make([]graph.Node, 3), 2, emb,
		[]graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
}

// φ on the path with r = (1,0,0), α_φ = 0.5: each node averages its
// neighbours (equal p), so the fixed point solves
// φ0 = .5 + .5 φ1, φ1 = .25(φ0 + φ2), φ2 = .5 φ1: φ = (7/12, 1/6, 1/12).
func TestPropagateHandComputed(t *testing.T) {
	g := pathGraph(t)
	a := newAdjacency(g, 0.22)
	if !near(a.up[0].p, 0.5*math.Sqrt(0.75), 1e-6) {
		t.Fatalf("p = %v", a.up[0].p)
	}
	phi, it := propagate(a, []float64{1, 0, 0}, 0.5, 1e-12, phiMaxIter)
	want := []float64{7.0 / 12, 1.0 / 6, 1.0 / 12}
	for i := range want {
		if !near(phi[i], want[i], 1e-7) {
			t.Errorf("φ = %v (after %d sweeps), want %v", phi, it, want)
			break
		}
	}
	if it >= phiMaxIter {
		t.Errorf("did not converge in %d sweeps", it)
	}
	// Pruning every edge leaves φ = (1-α_φ) r.
	a = newAdjacency(g, 0.6)
	phi, _ = propagate(a, []float64{1, 0.4, 0}, 0.5, phiTol, phiMaxIter)
	if !reflect.DeepEqual(phi, []float64{0.5, 0.2, 0}) {
		t.Errorf("isolated φ = %v", phi)
	}
}

func TestPropagateProperties(t *testing.T) {
	c := classicConfig()
	for seed := uint64(1); seed <= 30; seed++ {
		g := randomGraph(t, seed, 60, 6, 120)
		sc, err := scoreVec(g, c, "flow graph", randomQuery(seed, 6))
		if err != nil {
			t.Fatal(err)
		}
		a := newAdjacency(g, c.MinEdgeWeight)
		phi, it := propagate(a, sc.R, neighbourShare, phiTol, phiMaxIter)
		if it >= phiMaxIter {
			t.Fatalf("seed %d: no convergence in %d sweeps", seed, it)
		}
		// φ is a fixed point of Eq. 4 within the tolerance's reach.
		num := make([]float64, len(phi))
		den := make([]float64, len(phi))
		for v := range phi {
			for _, e := range a.up[a.uoff[v]:a.uoff[v+1]] {
				num[v] += e.p * phi[e.u]
				num[e.u] += e.p * phi[v]
				den[v] += e.p
				den[e.u] += e.p
			}
		}
		for v := range phi {
			fp := (1-neighbourShare)*sc.R[v] + neighbourShare*num[v]/(den[v]+phiEps) // Eq. 4 as written
			if !near(fp, phi[v], 2*phiTol) || phi[v] < 0 || phi[v] > 1 {
				t.Fatalf("seed %d node %d: φ = %v, Eq. 4 gives %v", seed, v, phi[v], fp)
			}
		}
		if !reflect.DeepEqual(phi, sc.Phi) {
			t.Fatalf("seed %d: Scores.Phi differs from propagate", seed)
		}
	}
}

// Two nodes, one edge, personalisation on node 0:
// x0 = .15 + .85 x1, x1 = .85 x0, so x0 = .15/(1-.85²), x1 = .85 x0 and ψ = (1, .85).
func TestPageRankHandComputed(t *testing.T) {
	g := mustGraph(t, make([]graph.Node, 2), 2, []float32{1, 0, 1, 1}, []graph.Edge{{U: 0, V: 1}})
	a := newAdjacency(g, 0)
	x, _ := pagerank(a, []float64{1, 0}, 0.85, 1e-12, 1000)
	x0 := 0.15 / (1 - 0.85*0.85)
	if !near(x[0], x0, 1e-9) || !near(x[1], 0.85*x0, 1e-9) {
		t.Errorf("x = %v, want (%v, %v)", x, x0, 0.85*x0)
	}
}

// densePPR is an independent dense power iteration of networkx's
// personalised PageRank, from the graph's edge list.
func densePPR(g *graph.Graph, keep func(float32) bool, p []float64, d float64, iters int) []float64 {
	n := len(g.Nodes)
	W := make([][]float64, n)
	for i := range W {
		W[i] = make([]float64, n)
	}
	for _, e := range g.Edges {
		if keep(e.Weight) {
			W[e.U][e.V] += float64(e.Weight)
			W[e.V][e.U] += float64(e.Weight)
		}
	}
	ps := 0.0
	for _, v := range p {
		ps += v
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	for it := 0; it < iters; it++ {
		nx := make([]float64, n)
		dang := 0.0
		for u := 0; u < n; u++ {
			row := 0.0
			for v := 0; v < n; v++ {
				row += W[u][v]
			}
			if row == 0 {
				dang += x[u]
				continue
			}
			for v := 0; v < n; v++ {
				nx[v] += d * x[u] * W[u][v] / row
			}
		}
		for v := range nx {
			nx[v] += (d*dang + 1 - d) * p[v] / ps
		}
		x = nx
	}
	return x
}

// sumOne returns p divided by its sum.
func sumOne(p []float64) []float64 {
	s := 0.0
	for _, v := range p {
		s += v
	}
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = v / s
	}
	return out
}

func TestPageRankOracles(t *testing.T) {
	c := classicConfig()
	for seed := uint64(1); seed <= 20; seed++ {
		g := randomGraph(t, seed, 40, 5, 50)
		a := newAdjacency(g, c.MinEdgeWeight)
		keep := func(w float32) bool { return keepEdge(w, c.MinEdgeWeight) }

		// Personalised on the top-8 by r, against the dense power iteration.
		sc, err := scoreVec(g, c, "graph", randomQuery(seed, 5))
		if err != nil {
			t.Fatal(err)
		}
		p := make([]float64, len(g.Nodes))
		for _, v := range topK(sc.R, 8, nil) {
			p[v] = sc.R[v]
		}
		x, _ := pagerank(a, sumOne(p), 0.85, 1e-13, 1000)
		want := densePPR(g, keep, p, 0.85, 400)
		for i := range x {
			if !near(x[i], want[i], 1e-9) {
				t.Fatalf("seed %d node %d: PPR %v, dense %v", seed, i, x[i], want[i])
			}
		}
		m := slices.Max(want)
		for i := range want {
			// Scores stop at networkx's criterion, Σ|Δx| < N·1e-6.
			if !near(sc.Psi[i], want[i]/m, 2e-3) {
				t.Fatalf("seed %d node %d: ψ %v, want %v", seed, i, sc.Psi[i], want[i]/m)
			}
		}

		// Uniform personalisation, against gonum's weighted PageRank.
		ug := simple.NewWeightedDirectedGraph(0, 0)
		for i := 0; i < len(g.Nodes); i++ {
			ug.AddNode(simple.Node(i))
		}
		for _, e := range g.Edges {
			if keep(e.Weight) {
				ug.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(e.U), T: simple.Node(e.V), W: float64(e.Weight)})
				ug.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(e.V), T: simple.Node(e.U), W: float64(e.Weight)})
			}
		}
		ref := network.PageRank(ug, 0.85, 1e-12)
		uni := make([]float64, len(g.Nodes))
		for i := range uni {
			uni[i] = 1
		}
		x, _ = pagerank(a, sumOne(uni), 0.85, 1e-13, 1000)
		for i := range x {
			if !near(x[i], ref[int64(i)], 1e-8) {
				t.Fatalf("seed %d node %d: PPR %v, gonum %v", seed, i, x[i], ref[int64(i)])
			}
		}
	}
}

func TestTopK(t *testing.T) {
	x := []float64{0.5, 0.9, 0.5, 0.1, 0.9, 0.7, 0.5}
	for k := 0; k <= len(x)+1; k++ {
		idx := make([]int, len(x))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
		want := idx[:min(k, len(x))]
		if got := topK(x, k, nil); !slices.Equal(got, want) {
			t.Errorf("topK(%d) = %v, want %v", k, got, want)
		}
	}
}

// naiveMMR is MMR by definition, every similarity computed.
func naiveMMR(g *graph.Graph, h []float64, k int, lambda float64) []int {
	var S []int
	in := make([]bool, len(h))
	for len(S) < min(k, len(h)) {
		best, bestV := math.Inf(-1), -1
		for v := range h {
			if in[v] {
				continue
			}
			sc := h[v]
			if len(S) > 0 {
				m := math.Inf(-1)
				for _, u := range S {
					m = math.Max(m, g.Cos(v, u))
				}
				sc = lambda*h[v] - (1-lambda)*m
			}
			if sc > best {
				best, bestV = sc, v
			}
		}
		in[bestV] = true
		S = append(S, bestV)
	}
	return S
}

func TestMMRMatchesDefinition(t *testing.T) {
	c := classicConfig()
	for seed := uint64(1); seed <= 40; seed++ {
		g := randomGraph(t, seed, 80, 6, 60)
		sc, err := scoreVec(g, c, "flow", randomQuery(seed, 6))
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveMMR(g, sc.H, 8, 0.7); !slices.Equal(sc.Sources, want) {
			t.Fatalf("seed %d: MMR %v, by definition %v", seed, sc.Sources, want)
		}
	}
}

// Three near-duplicates lead by h; plain top-3 takes all three, MMR takes one
// and then the distinct nodes.
func TestMMRSkipsNearDuplicates(t *testing.T) {
	emb := []float32{
		1, 0, 0,
		1, 0.01, 0,
		1, 0, 0.01,
		0.6, 0.8, 0,
		0.6, 0, 0.8,
	}
	g := mustGraph(t, make([]graph.Node, 5), 3, emb, nil)
	h := []float64{1, 0.99, 0.98, 0.85, 0.84}
	if got := topK(h, 3, nil); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("top-3 = %v", got)
	}
	got, _ := mmr(g, h, [][]float64{make([]float64, 5)}, 3, 0.7, nil)
	if !slices.Equal(got, []int{0, 3, 4}) {
		t.Errorf("MMR = %v, want [0 3 4]", got)
	}
	if want := naiveMMR(g, h, 3, 0.7); !slices.Equal(got, want) {
		t.Errorf("MMR = %v, definition %v", got, want)
	}
}

// Answerability by hand: summaries of 10, 5 and 0 characters (the last falls
// back to its 4-character content); node 1 is visual.
// ρ = (1, min(1, .5+.05), .4) and a = r·ρ.
func TestAnswerabilityHandComputed(t *testing.T) {
	nodes := []graph.Node{
		{Summary: "0123456789"},
		{Summary: "01234", Modality: graph.ModalityTable},
		{Content: "abcd"},
	}
	g := mustGraph(t, nodes, 0, nil, nil)
	a := NewIndex(g).answerability([]float64{0.5, 1, 1}, 0.05)
	want := []float64{0.5, 0.55, 0.4}
	for i := range want {
		if !near(a[i], want[i], 1e-12) {
			t.Errorf("a = %v, want %v", a, want)
		}
	}
}

func TestClassicFusion(t *testing.T) {
	c := classicConfig()
	for seed := uint64(1); seed <= 10; seed++ {
		g := randomGraph(t, seed, 50, 6, 80)
		sc, err := scoreVec(g, c, "model accuracy figure", randomQuery(seed, 6))
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, sc)
		for i := range sc.H {
			d := math.Max(sc.Cos[i], 0)
			if r := 0.5*d + 0.5*sc.BM25[i]; !near(sc.R[i], r, 1e-12) {
				t.Fatalf("r[%d] = %v, want %v", i, sc.R[i], r)
			}
			if h := 0.5*sc.R[i] + 0.3*sc.Phi[i] + 0.2*sc.Psi[i]; !near(sc.H[i], h, 1e-12) {
				t.Fatalf("h[%d] = %v, want %v", i, sc.H[i], h)
			}
		}
		if sc.Ref != nil {
			t.Error("classic computed ℓ")
		}
		if sc.PhiSweeps < 1 || sc.PhiSweeps >= phiMaxIter || sc.PsiSweeps < 1 || sc.PsiSweeps >= pprMaxIter {
			t.Errorf("sweeps φ %d ψ %d: not converged", sc.PhiSweeps, sc.PsiSweeps)
		}
		if slices.Max(sc.Psi) != 1 {
			t.Errorf("max ψ = %v", slices.Max(sc.Psi))
		}
		if want := topK(sc.A, 8, nil); !slices.Equal(sc.Sinks, want) || len(sc.Sources) != 8 {
			t.Errorf("sinks %v (want %v), sources %v", sc.Sinks, want, sc.Sources)
		}
		// Ablations: φ = 0 and relevance only.
		noPhi := c
		noPhi.PropagationWeight = 0
		relOnly := c
		relOnly.RelevanceWeight, relOnly.PropagationWeight, relOnly.DiffusionWeight = 1, 0, 0
		s2, _ := scoreVec(g, noPhi, "model accuracy figure", randomQuery(seed, 6))
		ro, _ := scoreVec(g, relOnly, "model accuracy figure", randomQuery(seed, 6))
		if s2.Phi != nil || s2.Psi == nil || ro.Phi != nil || ro.Psi != nil || !slices.Equal(ro.H, ro.R) {
			t.Fatal("ablation switches")
		}
		for i := range s2.H {
			if !near(s2.H[i], 0.5*s2.R[i]+0.2*s2.Psi[i], 1e-12) {
				t.Fatalf("φ=0: h[%d] = %v", i, s2.H[i])
			}
		}
	}
}

func TestAspectsProperties(t *testing.T) {
	for _, c := range []Config{Config{}, paperAspects()} {
		for seed := uint64(1); seed <= 30; seed++ {
			g := randomGraph(t, seed, 40, 6, 30)
			sc, err := scoreVec(g, c, "Figure 2 flow", randomQuery(seed, 6))
			if err != nil {
				t.Fatal(err)
			}
			checkRanges(t, sc)
			if slices.Max(sc.R) > 0 && slices.Max(sc.H) != 1 {
				t.Fatalf("max h = %v with max r = %v", slices.Max(sc.H), slices.Max(sc.R))
			}
		}
	}
}
