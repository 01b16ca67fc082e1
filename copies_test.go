package flowreader_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
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
