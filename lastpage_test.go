package flowreader_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
)

// A node that runs over two pages carries its last page in the evidence and
// in the JSON contract ("last_page"); a node on one page carries none.
func TestEvidenceLastPage(t *testing.T) {
	d := docs()
	d[0].Items[1].Page, d[0].Items[1].LastPage = 1, 2 // the table continues on the next page
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := p.Build(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := ix.Retrieve(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]flowreader.EvidenceNode{}
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			seen[n.ID] = n
		}
	}
	tab, ok := seen["survey#1"]
	if !ok {
		t.Fatalf("the table is not in the evidence: %v", seen)
	}
	if tab.Page != 1 || tab.LastPage != 2 {
		t.Errorf("table: page %d last page %d, want 1 and 2", tab.Page, tab.LastPage)
	}
	for id, n := range seen {
		if id != "survey#1" && n.LastPage != 0 {
			t.Errorf("%s: last page %d on a one-page node", id, n.LastPage)
		}
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	// The table may sit in more than one chain: one last_page per time it does.
	if got, want := strings.Count(string(b), `"last_page":`), strings.Count(string(b), `"id":"survey#1","doc":"survey","page":1,"last_page":2,`); got != want || want == 0 {
		t.Errorf("JSON has %d last_page fields and the table %d times:\n%s", got, want, b)
	}
	var back flowreader.Evidence
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Chains {
		for _, n := range c.Nodes {
			if n.ID == "survey#1" && n.LastPage != 2 {
				t.Errorf("after a round trip: last page %d", n.LastPage)
			}
		}
	}
}
