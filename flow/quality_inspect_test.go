//go:build flowexp

package flow_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/eval"
	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local"
	"github.com/flowreader/flowreader/selector"
)

// TestQualityInspect prints, for QINSPECT=dataset:id,id,..., the question,
// the top-16 nodes by h (top-k's read) and the chains of the router named by
// QINSPECT_ROUTER (default fac-s1-k0.5), with gold marks (*) and facets.
func TestQualityInspect(t *testing.T) {
	spec := os.Getenv("QINSPECT")
	if spec == "" {
		t.Skip()
	}
	name, ids, _ := strings.Cut(spec, ":")
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		want[id] = true
	}
	emb := local.Embedder()
	if err := emb.Load(); err != nil {
		t.Fatal(err)
	}
	reg := eval.DefaultRegistry()
	registerFacets(reg)
	rname := os.Getenv("QINSPECT_ROUTER")
	if rname == "" {
		rname = "fac-s1-k0.5"
	}
	var def eval.RouterDef
	for _, d := range reg.Routers() {
		if d.Name == rname {
			def = d
		}
	}
	if oc, ok := strings.CutPrefix(rname, "v-oc"); ok {
		window := 1
		if x, ok := strings.CutSuffix(oc, "-w2"); ok {
			oc, window = x, 2
		}
		credit, err := strconv.ParseFloat(oc, 64)
		if err != nil {
			t.Fatal(err)
		}
		def.New = func(b int) flow.Router {
			a := flow.DefaultAspects()
			a.FMax, a.OrderCredit, a.OrderWindow = float64(b), credit, window
			return a
		}
	}
	var sc eval.Scoring
	for _, s := range reg.Scorings() {
		if s.Name == eval.ScoreAspects {
			sc = s
		}
	}
	ds, err := eval.Load(name, "../../shared/data", eval.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for qi := range ds.Questions {
		q := &ds.Questions[qi]
		if !want[q.ID] {
			continue
		}
		g, err := eval.BuildGraph(ctx, emb, q.Docs, eval.GraphOptions{}, eval.NewEmbedCache())
		if err != nil {
			t.Fatal(err)
		}
		vs, err := emb.Embed(ctx, []string{q.Text}, llm.Query)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sc.NewScorer(g)(ctx, q.Text, vs[0])
		if err != nil {
			t.Fatal(err)
		}
		gold := map[eval.ItemRef]bool{}
		for _, us := range q.Gold {
			for _, u := range us {
				for _, it := range u.Items {
					gold[it] = true
				}
			}
		}
		mark := func(v int) string {
			n := &g.Nodes[v]
			m := " "
			if gold[eval.ItemRef{Doc: n.Doc, Item: n.Order}] {
				m = "*"
			}
			txt := strings.Join(strings.Fields(n.Content+" "+n.Caption), " ")
			if len(txt) > 110 {
				txt = txt[:110]
			}
			return fmt.Sprintf("%s h=%.2f %s#%d %q", m, s.H[v], n.Doc, n.Order, txt)
		}
		fmt.Printf("\n=== %s %s: %q keywords %v; %d nodes, %d gold items\n", name, q.ID, q.Text, s.Keywords, g.Len(), len(gold))
		top, _ := (&flow.TopK{K: 16}).Route(ctx, g, s)
		fmt.Println("top-16 by h:")
		for _, c := range top.Chains {
			fmt.Println("  ", mark(c.Nodes[0]))
		}
		r, err := def.New(16).Route(ctx, g, s)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s aspects:", rname)
		for _, a := range r.Aspects {
			fmt.Printf(" %q=%.1f(fed %d)", a.Facet, a.Capacity, a.Fed)
		}
		fmt.Println()
		for _, c := range selector.CapDistinct(selector.Greedy{}.Select(r, 16), 16) {
			f := ""
			if c.Aspect >= 0 {
				f = r.Aspects[c.Aspect].Facet
			}
			fmt.Printf("  chain → %q:\n", f)
			for _, v := range c.Nodes {
				fmt.Println("     ", mark(v))
			}
		}
	}
}
