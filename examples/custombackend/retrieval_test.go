package custombackend_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/examples/custombackend"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
)

// corpus is a small collection whose answer is split: the Harlow paragraph
// names the turbine model, the table gives its output.
func corpus() []graph.Document {
	text := func(s string) graph.Item { return graph.Item{Modality: graph.ModalityText, Text: s, Page: -1} }
	return []graph.Document{
		{ID: "windfarms.md", Title: "Wind farms of the county", Items: []graph.Item{
			text("Wind farms of the county. The county has three wind farms, built between 2012 and 2021."),
			text("The Harlow wind farm, opened in 2021, runs twelve Zephyr Z9 turbines on the ridge above the village."),
			text("The Carden wind farm is older and runs eight Breeze B3 turbines next to the reservoir."),
			{Modality: graph.ModalityTable, Caption: "Table 1: Turbine models and their rated output.", Page: -1,
				Text: "Model | Rated output | Rotor diameter\nZephyr Z9 | 4.2 MW | 120 m\nBreeze B3 | 2.5 MW | 90 m"},
			text("Maintenance crews inspect every turbine blade twice a year, in April and in October."),
		}},
		{ID: "village.md", Title: "Village news", Items: []graph.Item{
			text("The village bakery won the regional bread prize for its rye loaf."),
			text("Rainfall in March was twice the long-term average and the reservoir is full."),
			text("The parish council meets on the first Monday of every month in the old school."),
			text("A new footpath links the station to the reservoir and the picnic area."),
		}},
	}
}

const (
	question   = "What is the rated output of the turbines at the Harlow wind farm?"
	goldTable  = "windfarms.md#3" // Zephyr Z9 | 4.2 MW
	goldHarlow = "windfarms.md#1" // Harlow runs Zephyr Z9 turbines
)

// buildGraph builds the corpus with the EchoCorp embedder and the offline
// analysis (no model at build time).
func buildGraph(t testing.TB, emb llm.Embedder) *graph.Graph {
	p, err := flowreader.New(flowreader.Config{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), corpus())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func nodeIndex(g *graph.Graph, id string) int {
	return slices.IndexFunc(g.Nodes, func(n graph.Node) bool { return n.ID == id })
}

func onChains(chains [][]int, v int) bool {
	for _, c := range chains {
		if slices.Contains(c, v) {
			return true
		}
	}
	return false
}

// The retrieval test a user of a custom backend writes: the real embedder
// adapter, a scripted reader model from llm/fake, and assertions on what
// was routed and read, for both presets.
func TestRetrievalRoutesGoldEvidence(t *testing.T) {
	emb := &custombackend.Embedder{Client: &custombackend.Client{}}
	g := buildGraph(t, emb)
	table, harlow := nodeIndex(g, goldTable), nodeIndex(g, goldHarlow)
	for name, preset := range map[string]flowreader.Config{"aspects": flowreader.Config{}, "classic": flowreader.Classic()} {
		t.Run(name, func(t *testing.T) {
			// Workers whose chain holds the table report its value; the
			// reasoner answers from the drafts.
			m := &fake.Model{Default: `{"status":"not_reported","answer":"","evidence":""}`}
			m.Rules = append(m.Rules, fake.Rule{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`})
			m.Rules = append(m.Rules, fake.Rule{Contains: "Do these answers CONTRADICT", Reply: "NO"})
			m.Rules = append(m.Rules, fake.Rule{
				Match: func(req *llm.Request) bool {
					p := fake.Prompt(req)
					return strings.Contains(p, "Read the evidence passages") && strings.Contains(p, "4.2 MW")
				},
				Reply: `{"status":"supported","answer":"4.2 MW per Zephyr Z9 turbine","evidence":"Zephyr Z9 | 4.2 MW"}`,
			})
			m.Rules = append(m.Rules, fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<output>4.2 MW (each Zephyr Z9 turbine)</output>"})
			cfg := preset
			cfg.Embedder, cfg.Model = emb, m
			p, err := flowreader.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := p.Open(context.Background(), g)
			if err != nil {
				t.Fatal(err)
			}
			res, err := ix.Ask(context.Background(), question, flowreader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var routed, read [][]int
			for _, c := range res.Routing.Chains {
				routed = append(routed, c.Nodes)
			}
			for _, c := range res.Evidence.Chains {
				var nodes []int
				for _, n := range c.Nodes {
					nodes = append(nodes, n.Node)
				}
				read = append(read, nodes)
			}
			t.Logf("%s: routed %v read %v", name, routed, read)
			if name == "aspects" {
				// The aspects formulation routes only relevant nodes: none
				// of the village news.
				for _, c := range res.Routing.Chains {
					for _, v := range c.Nodes {
						if g.Nodes[v].Doc != "windfarms.md" {
							t.Errorf("aspects routed off-topic node %s", g.Nodes[v].ID)
						}
					}
				}
			}
			if !onChains(read, table) || !onChains(routed, harlow) {
				t.Errorf("gold nodes %d (table), %d (Harlow) not routed and read: routed %v, read %v", table, harlow, routed, read)
			}
			if res.Text != "4.2 MW (each Zephyr Z9 turbine)" {
				t.Errorf("answer %q", res.Text)
			}
			if res.Trace.Reader != "vlm" || res.Trace.Supported == 0 || len(res.Notes) != 0 {
				t.Errorf("trace reader %q, %d supported drafts, notes %q", res.Trace.Reader, res.Trace.Supported, res.Notes)
			}
			// The table reached a worker: a scripted rule saw "4.2 MW".
			saw := false
			for _, c := range m.Calls() {
				saw = saw || (strings.Contains(fake.Prompt(c), "Read the evidence passages") && strings.Contains(fake.Prompt(c), "4.2 MW"))
			}
			if !saw {
				t.Error("no worker was shown the table")
			}
			if !slices.ContainsFunc(res.Citations, func(c reader.Citation) bool { return c.NodeID == goldTable }) {
				t.Errorf("the table is not cited: %+v", res.Citations)
			}
		})
	}
}

// The same graph built twice is the same bytes: the adapter is
// deterministic, as graph caching and tests need.
func TestBuildDeterministic(t *testing.T) {
	var a, b strings.Builder
	for _, w := range []*strings.Builder{&a, &b} {
		g := buildGraph(t, &custombackend.Embedder{Client: &custombackend.Client{}})
		if err := graph.Write(w, g); err != nil {
			t.Fatal(err)
		}
	}
	if a.String() != b.String() {
		t.Error("two builds differ")
	}
}
