package flow

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// qasperPaper is the part of the QASPER v0.3 schema these tests read.
type qasperPaper struct {
	Title    string `json:"title"`
	FullText []struct {
		Section    string   `json:"section_name"`
		Paragraphs []string `json:"paragraphs"`
	} `json:"full_text"`
	QAs []struct {
		Question string `json:"question"`
	} `json:"qas"`
	Figures []struct {
		Caption string `json:"caption"`
	} `json:"figures_and_tables"`
}

// qasperGraphs builds one content graph per paper from the first papers of
// the QASPER dev slice in ../shared/data: paragraphs as text nodes, captions
// as table/figure nodes, a 64-d hashing embedder, keywords = the node's
// longest words, kNN edges with k = clip(ceil(log2 N), 3, 32) and reading
// order within 3. It skips when the data are absent.
func qasperGraphs(t *testing.T, papers int) ([]*graph.Graph, [][]string) {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "data", "qasper", "qasper-test-v0.3.dev-slice.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("QASPER dev slice not available: %v", err)
	}
	var all map[string]qasperPaper
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	const dim = 64
	var gs []*graph.Graph
	var qs [][]string
	for _, id := range ids[:min(papers, len(ids))] {
		p := all[id]
		var nodes []graph.Node
		add := func(text string, mod graph.Modality) {
			if strings.TrimSpace(text) == "" {
				return
			}
			nodes = append(nodes, graph.Node{ID: id, Doc: id, Order: len(nodes), Modality: mod, Content: text,
				Summary: text, Keywords: keywords(text)})
		}
		for _, s := range p.FullText {
			for _, para := range s.Paragraphs {
				add(para, graph.ModalityText)
			}
		}
		for _, f := range p.Figures {
			mod := graph.ModalityFigure
			if strings.HasPrefix(f.Caption, "Table") {
				mod = graph.ModalityTable
			}
			add(f.Caption, mod)
		}
		emb := make([]float32, 0, len(nodes)*dim)
		for _, n := range nodes {
			emb = append(emb, hashVector(n.Content, dim)...)
		}
		g0, err := graph.New(nodes, dim, emb, nil)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, withKNN(t, g0))
		var q []string
		for _, qa := range p.QAs {
			q = append(q, qa.Question)
		}
		qs = append(qs, q)
	}
	return gs, qs
}

func keywords(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	sort.SliceStable(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	var out []string
	for _, w := range words {
		if len(out) == 5 {
			break
		}
		dup := false
		for _, o := range out {
			dup = dup || o == w
		}
		if !dup {
			out = append(out, w)
		}
	}
	return out
}

// withKNN adds symmetric kNN and reading-order (window 3) edges.
func withKNN(t *testing.T, g0 *graph.Graph) *graph.Graph {
	n := len(g0.Nodes)
	k := min(max(int(math.Ceil(math.Log2(float64(n)))), 3), 32)
	var edges []graph.Edge
	for i := 0; i < n; i++ {
		idx := make([]int, 0, n)
		for j := 0; j < n; j++ {
			if j != i {
				idx = append(idx, j)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return g0.Cos(i, idx[a]) > g0.Cos(i, idx[b]) })
		for _, j := range idx[:min(k, len(idx))] {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(j), Kind: graph.EdgeKNN})
		}
		for d := 1; d <= 3 && i+d < n; d++ {
			edges = append(edges, graph.Edge{U: int32(i), V: int32(i + d), Kind: graph.EdgeOrder})
		}
	}
	g, err := graph.New(g0.Nodes, g0.Dim, g0.Emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestInvariantsOnQASPER checks paper v3 §3.3's invariants and the classic properties on
// graphs made from real QASPER papers and questions.
func TestInvariantsOnQASPER(t *testing.T) {
	ctx := context.Background()
	papers := 4
	if testing.Short() {
		papers = 2
	}
	gs, qs := qasperGraphs(t, papers)
	routed := 0
	for i, g := range gs {
		for _, question := range qs[i][:min(3, len(qs[i]))] {
			s := scoresFor(g, hashVector(question, g.Dim))
			for _, a := range []*Aspects{paperAspects(), &Aspects{}, noCredit(), ablated(ablNoAgreement), ablated(ablDocumentOrder), ablated(ablSingleSink)} {
				r, err := routeOn(ctx, a, g, s)
				if err != nil {
					t.Fatalf("%s: %v", a.name(), err)
				}
				checkAspectInvariants(t, g, s, a, r, 16)
				r2, _ := routeOn(ctx, a, g, s)
				if !equalChains(r.Chains, r2.Chains) {
					t.Fatalf("%s: not deterministic", a.name())
				}
				routed++
			}
			c, err := routeOn(ctx, &Classic{}, g, s)
			if err != nil {
				t.Fatal(err)
			}
			checkFlow(t, c)
			if c.Saturation < 0 || c.Saturation > 1 || math.Abs(c.Routed-math.Min(6, c.MaxFlow)) > 1e-7 {
				t.Fatalf("classic: σ %g routed %g f_max %g", c.Saturation, c.Routed, c.MaxFlow)
			}
		}
	}
	t.Logf("%d graphs (%d–%d nodes), %d aspect routings checked", len(gs), len(gs[0].Nodes), len(gs[len(gs)-1].Nodes), routed)
}

func equalChains(a, b []Chain) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Flow != b[i].Flow || a[i].Cost != b[i].Cost || a[i].Aspect != b[i].Aspect || len(a[i].Nodes) != len(b[i].Nodes) {
			return false
		}
		for j := range a[i].Nodes {
			if a[i].Nodes[j] != b[i].Nodes[j] {
				return false
			}
		}
	}
	return true
}

// hashVector is fake.Embedder's vector of text with dim components.
func hashVector(text string, dim int) []float32 {
	v, _ := (&fake.Embedder{Dim: dim}).Embed(context.Background(), []string{text}, llm.KindDocument)
	return v[0]
}
