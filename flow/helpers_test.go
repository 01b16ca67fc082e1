package flow

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/scorehook"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

// synthGraph is the small topic graph of package synth.
func synthGraph(t testing.TB, n, dim int, seed uint64) *graph.Graph {
	return synth.Graph(t, n, dim, seed)
}

// handScores builds scores by hand: q is a random mix of the first two nodes
// plus noise; r = clip(cos, 0, 1), h = r / max r (v3), and the classic
// signals the router reads (φ = h, a = r·ρ, MMR sources, top-8 sinks).
func handScores(t testing.TB, g *graph.Graph, seed uint64) *score.Scores {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	dim := g.Dim
	q := make([]float32, dim)
	for j := range q {
		q[j] = g.Embedding(0)[j] + g.Embedding(1)[j] + float32(0.3*rng.NormFloat64())
	}
	var s float64
	for _, x := range q {
		s += float64(x) * float64(x)
	}
	for j := range q {
		q[j] = float32(float64(q[j]) / math.Sqrt(s))
	}
	return scoresFor(g, q)
}

func scoresFor(g *graph.Graph, q []float32) *score.Scores {
	n := len(g.Nodes)
	sc := &score.Scores{Query: q, Cos: make([]float64, n), R: make([]float64, n), H: make([]float64, n)}
	mx := 0.0
	for v := 0; v < n; v++ {
		sc.Cos[v] = vec.Dot(g.Embedding(v), q)
		sc.R[v] = math.Min(math.Max(sc.Cos[v], 0), 1)
		mx = math.Max(mx, sc.R[v])
	}
	for v := range sc.H {
		if mx > 0 {
			sc.H[v] = sc.R[v] / mx
		}
	}
	sc.HMean, sc.RMean = mean(sc.H), mean(sc.R)
	sc.Phi = append([]float64(nil), sc.H...)
	sc.A = answerability(g, sc.R, 0.05)
	sc.Sources = scorehook.MMR(g, sc.H, 8, 0.7)
	sc.Sinks = byScore(sc.A)[:min(8, n)]
	return sc
}

// checkFlow asserts capacities and conservation of a routing's flow.
func checkFlow(t *testing.T, r *Routing) {
	t.Helper()
	net, fl := r.fullNetwork()
	bal := make([]float64, net.NumNodes())
	for id := 0; id < net.NumArcs(); id++ {
		u, v, c, _ := net.Arc(id)
		f := fl[id]
		if f < -1e-9 || f > c+1e-9 {
			t.Fatalf("arc %d (%d→%d): flow %g outside [0,%g]", id, u, v, f, c)
		}
		bal[u] -= f
		bal[v] += f
	}
	for v, b := range bal {
		want := 0.0
		switch v {
		case r.Source:
			want = -r.Routed
		case r.Sink:
			want = r.Routed
		}
		if math.Abs(b-want) > 1e-7 {
			t.Fatalf("node %d: net inflow %g, want %g", v, b, want)
		}
	}
}

// benchRows makes a graph of n random unit rows in d dimensions, no edges.
func benchRows(t testing.TB, n, d int) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	nodes := make([]graph.Node, n)
	emb := make([]float32, n*d)
	for i := range emb {
		emb[i] = float32(rng.NormFloat64() + 0.3)
	}
	g, err := graph.New(nodes, d, emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// fullNet is r's full network, built if the routing was solved lazily.
func fullNet(r *Routing) *mcf.Network {
	net, _ := r.fullNetwork()
	return net
}

// routeOn opens r on g and routes s at budget 16 (the paper's read cap).
func routeOn(ctx context.Context, r Router, g *graph.Graph, s *score.Scores) (*Routing, error) {
	return routeAt(ctx, r, g, s, 16)
}

// routeAt opens r on g and routes s at the budget.
func routeAt(ctx context.Context, r Router, g *graph.Graph, s *score.Scores, budget int) (*Routing, error) {
	gr, err := r.Open(ctx, g)
	if err != nil {
		return nil, err
	}
	return gr.Route(ctx, s, budget)
}

// rerouteOn opens r on g and reroutes prev with the edits at budget 16.
func rerouteOn(ctx context.Context, r Router, g *graph.Graph, s *score.Scores, prev *Routing, e Edits) (*Routing, error) {
	gr, err := r.Open(ctx, g)
	if err != nil {
		return nil, err
	}
	return gr.(Rerouter).Reroute(ctx, s, 16, prev, e)
}

// ablated is PaperAspects with a Table 3 ablation.
func ablated(ab ablation) *Aspects {
	a := paperAspects()
	switch ab {
	case ablShortestPath:
		a.ShortestPath = true
	case ablDocumentOrder:
		a.DocumentOrder = true
	case ablSingleSink:
		a.SingleSink = true
	case ablNoAgreement:
		a.NoAgreement = true
	}
	return a
}

// ablation names one of the Table 3 variants (the fields of Aspects).
type ablation int

const (
	ablShortestPath ablation = iota + 1
	ablDocumentOrder
	ablSingleSink
	ablNoAgreement
)

// noCredit is PaperAspects without the node credit.
func noCredit() *Aspects {
	a := paperAspects()
	a.NodeCredit = false
	return a
}

// answerability is a_i = r_i ρ_i with ρ_i = min(1, len(s_i)/max len + β_v
// 1[visual]) (paper v1's answerability), as score computes it, for
// hand-made scores.
func answerability(g *graph.Graph, r []float64, bonus float64) []float64 {
	maxLen := 0
	for i := range g.Nodes {
		maxLen = max(maxLen, len(summaryOf(&g.Nodes[i])))
	}
	a := make([]float64, len(g.Nodes))
	for i := range g.Nodes {
		rho := 0.0
		if maxLen > 0 {
			rho = float64(len(summaryOf(&g.Nodes[i]))) / float64(maxLen)
		}
		if g.Nodes[i].Modality != graph.ModalityText {
			rho += bonus
		}
		a[i] = r[i] * math.Min(1, rho)
	}
	return a
}

func summaryOf(n *graph.Node) string {
	if n.Summary != "" {
		return n.Summary
	}
	return n.Content
}
