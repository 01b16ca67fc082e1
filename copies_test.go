package flowreader_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/memstore"
)

// A collection that holds a document twice (an export as .md and .mdx) is
// read once: no two nodes read hold one content, and each node read says
// where else its content is (also_in), in Go and in JSON.
func TestRetrieveReadsCopiesOnce(t *testing.T) {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	d := docs()
	twin := d[0]
	twin.ID = "survey.mdx"
	d = append(d, twin)
	g, err := p.Build(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := ix.Retrieve(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{Budget: 4})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	also := 0
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			for _, id := range n.AlsoIn {
				if seen[id] {
					t.Errorf("%s and its copy %s both read", n.ID, id)
				}
			}
			seen[n.ID] = true
			if strings.HasPrefix(n.ID, "survey#") {
				if want := "survey.mdx#" + strings.TrimPrefix(n.ID, "survey#"); !slices.Equal(n.AlsoIn, []string{want}) {
					t.Errorf("%s: also in %v, want [%s]", n.ID, n.AlsoIn, want)
				}
				also++
			}
			if strings.HasPrefix(n.ID, "survey.mdx#") {
				t.Errorf("%s read: the copy with the higher index", n.ID)
			}
		}
	}
	if also == 0 {
		t.Fatal("no node of the copied document read")
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"also_in":["survey.mdx#`) {
		t.Errorf("JSON without also_in: %s", b)
	}
	var back flowreader.Evidence
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Chains[0].Nodes[0].AlsoIn; !slices.Equal(got, ev.Chains[0].Nodes[0].AlsoIn) {
		t.Errorf("decoded also_in %v, want %v", got, ev.Chains[0].Nodes[0].AlsoIn)
	}
	res, err := ix.Answer(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	cited := 0
	for _, c := range res.Answer.Citations {
		if strings.HasPrefix(c.NodeID, "survey#") {
			cited++
			if len(c.AlsoIn) != 1 {
				t.Errorf("citation %s: also in %v", c.NodeID, c.AlsoIn)
			}
		}
	}
	// The result's JSON (citations built once for the result and the
	// stream's citations event) carries also_in beside the reader's span.
	rb, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var rj struct {
		Citations []struct {
			NodeID string   `json:"node_id"`
			AlsoIn []string `json:"also_in"`
		} `json:"citations"`
	}
	if err := json.Unmarshal(rb, &rj); err != nil {
		t.Fatal(err)
	}
	if len(rj.Citations) != len(res.Answer.Citations) {
		t.Fatalf("JSON citations %d, want %d", len(rj.Citations), len(res.Answer.Citations))
	}
	for i, c := range rj.Citations {
		if !slices.Equal(c.AlsoIn, res.Answer.Citations[i].AlsoIn) {
			t.Errorf("JSON citation %s: also_in %v, want %v", c.NodeID, c.AlsoIn, res.Answer.Citations[i].AlsoIn)
		}
	}
	if cited == 0 {
		t.Log("no citation of the copied document (the extractive reader cited elsewhere)")
	}
}

// Of two revisions of one passage, read once, the evidence names the one
// that matches the question (the class's member of highest score) and says
// the other holds the same content: a question about the "Arctic tern
// colony" reads the revision that names the Arctic tern, the lower node
// (the revision without it) only in also_in, and the answer cites it so.
func TestRetrieveCitesBestCopy(t *testing.T) {
	// Over the whole graph, and over a candidate subgraph (the routing's
	// node ids are the subgraph's, mapped back for the evidence).
	for _, cfg := range []flowreader.Config{{}, {Candidates: 1}} {
		t.Run(fmt.Sprintf("candidates=%d", cfg.Candidates), func(t *testing.T) { testRetrieveCitesBestCopy(t, cfg) })
	}
}

func testRetrieveCitesBestCopy(t *testing.T, cfg flowreader.Config) {
	ctx := context.Background()
	p, err := flowreader.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := "The East Arm lost its tern colony after the May storm flooded its lower sections and the wardens moved the survey posts inland."
	d := docs()
	// Other pages, so that a candidate subgraph is a part of the graph.
	topics := strings.Fields("ferry timber salt market customs lighthouse cape strait granary tannery ropewalk foundry chapel brewery quarry")
	for i, w := range topics {
		d = append(d, graph.Document{ID: "page-" + w, Title: "The " + w, Items: []graph.Item{{Modality: graph.ModalityText,
			Text: fmt.Sprintf("The %s by the %s was rebuilt in %d after a fire.", w, topics[(i+3)%len(topics)], 1800+7*i)}}})
	}
	for _, r := range []struct{ id, text string }{
		{"colony-v1", text},
		{"colony-v2", strings.Replace(text, "its tern", "its Arctic tern", 1)},
	} {
		d = append(d, graph.Document{ID: r.id, Title: "East Arm colony", Items: []graph.Item{{Modality: graph.ModalityText, Text: r.text}}})
	}
	g, err := p.Build(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var v1, v2 int = -1, -1
	for i, n := range g.Nodes {
		switch n.Doc {
		case "colony-v1":
			v1 = i
		case "colony-v2":
			v2 = i
		}
	}
	if cs := g.Copies(v1); !slices.Equal(cs, []int32{int32(v1), int32(v2)}) {
		t.Fatalf("the revisions are not one content: copies of %d: %v", v1, cs)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	q := "Which Arctic tern colony did the East Arm lose after the storm?"
	if cfg.Candidates > 0 {
		s, err := ix.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if s.Candidates == nil || len(s.Candidates) == len(g.Nodes) {
			t.Fatalf("not scored over a candidate subgraph: candidates %v of %d nodes", s.Candidates, len(g.Nodes))
		}
	}
	var first string
	for range 2 {
		ev, err := ix.Retrieve(ctx, q, flowreader.Options{Budget: 3})
		if err != nil {
			t.Fatal(err)
		}
		read := ""
		found := false
		for _, c := range ev.Chains {
			for _, n := range c.Nodes {
				read += n.ID + " "
				switch n.ID {
				case g.Nodes[v1].ID:
					t.Errorf("%s read: the revision without the question's words", n.ID)
				case g.Nodes[v2].ID:
					found = true
					if !slices.Equal(n.AlsoIn, []string{g.Nodes[v1].ID}) {
						t.Errorf("%s: also in %v, want [%s]", n.ID, n.AlsoIn, g.Nodes[v1].ID)
					}
				}
			}
		}
		if !found {
			t.Fatalf("%s not read: %s", g.Nodes[v2].ID, read)
		}
		if first == "" {
			first = read
		} else if read != first {
			t.Fatalf("asked twice: %s, then %s", first, read)
		}
		res, err := ix.Answer(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Answer.Citations {
			if c.NodeID == g.Nodes[v2].ID && !slices.Equal(c.AlsoIn, []string{g.Nodes[v1].ID}) {
				t.Errorf("citation %s: also in %v", c.NodeID, c.AlsoIn)
			}
		}
	}
}

// A paragraph repeated in 40 documents of 100 (a site's footer) is one content:
// read once, and each node reading it names at most 32 of its copies
// (also_in), in-process and over a store alike.
func TestAlsoInBounded(t *testing.T) {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	const footer = "Harbour survey notes are published by the coastal station under an open licence; corrections go to the station keeper."
	var d []graph.Document
	topics := []string{"rainfall", "ferry", "lighthouse", "seabirds", "dredging", "tides", "fishing", "moorings",
		"salt marsh", "storm drains", "beacon", "pilot boats", "customs", "quay wall", "buoys", "sand bar"}
	for i := range 100 {
		a, b := topics[i%len(topics)], topics[(i*7+3)%len(topics)]
		items := []graph.Item{{Text: fmt.Sprintf("Notes on %s and %s, volume %d.", a, b, i), Page: -1}}
		if i%5 < 2 { // in 40 of the 100 pages
			items = append(items, graph.Item{Text: footer, Page: -1})
		}
		d = append(d, graph.Document{ID: fmt.Sprintf("page%02d", i), Items: items})
	}
	g, err := p.Build(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Copies(1)); n != 40 {
		t.Fatalf("the footer has %d copies, want 40", n)
	}
	mem := &memstore.Store{}
	mem.Put("site", g)
	six, err := p.OpenStore(ctx, mem, "site")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*flowreader.Index{"graph": ix, "store": six} {
		ev, err := x.Retrieve(ctx, "Who publishes the harbour survey notes under an open licence?", flowreader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		footers := 0
		for _, c := range ev.Chains {
			for _, n := range c.Nodes {
				if n.Text != footer {
					continue
				}
				footers++
				if len(n.AlsoIn) != 32 {
					t.Errorf("%s: the footer %s names %d copies, want 32 (the first of 39)", name, n.ID, len(n.AlsoIn))
				}
			}
		}
		if footers == 0 {
			for _, c := range ev.Chains {
				for _, n := range c.Nodes {
					t.Logf("%s %q also in %d", n.ID, n.Text, len(n.AlsoIn))
				}
			}
			t.Fatalf("%s: the footer was not read", name)
		}
	}
}
