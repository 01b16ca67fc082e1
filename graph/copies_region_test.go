package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// classList lists a copy index's classes in graph indexes.
func classList(x *copyIndex) [][]int32 {
	var out [][]int32
	for c := 0; c+1 < len(x.start); c++ {
		out = append(out, slices.Clone(x.members[x.start[c]:x.start[c+1]]))
	}
	return out
}

// TestCopiesAmong checks the detection over a region against the whole
// graph's: over every node it finds Copies' classes, and over a subset
// the classes Copies finds in the induced subgraph found afresh.
func TestCopiesAmong(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	joined := 0
	for trial := range 200 {
		g := plantedCopies(rng, trial%2 == 0)
		all := make([]int32, len(g.Nodes))
		for i := range all {
			all[i] = int32(i)
		}
		want := classList(findCopies(g))
		if got := copiesAmong(g, all); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d: every node: %v, want %v", trial, got, want)
		}
		joined += len(want)
		var sub []int32
		for i := range g.Nodes {
			if rng.IntN(3) > 0 {
				sub = append(sub, int32(i))
			}
		}
		s := g.Subgraph(sub)
		var wantSub [][]int32
		for _, c := range classList(findCopies(s)) {
			for k, v := range c {
				c[k] = sub[v]
			}
			wantSub = append(wantSub, c)
		}
		if got := copiesAmong(g, sub); !slices.EqualFunc(got, wantSub, slices.Equal) {
			t.Fatalf("trial %d: subset: %v, want %v", trial, got, wantSub)
		}
	}
	if joined < 200 {
		t.Fatalf("only %d classes over all trials: too few to test anything", joined)
	}
}

func TestSetCopies(t *testing.T) {
	g := copyGraph(t, [][]string{{"alpha beta", "gamma delta"}, {"alpha beta", "other text"}, {"more", "words"}})
	if err := setCopies(g, [][]int32{{3, 5}, {0, 2}}); err != nil {
		t.Fatal(err)
	}
	if got := g.Copies(0); !slices.Equal(got, []int32{0, 2}) {
		t.Fatalf("Copies(0) = %v", got)
	}
	if got := g.Copies(5); !slices.Equal(got, []int32{3, 5}) {
		t.Fatalf("Copies(5) = %v", got)
	}
	if got := g.Copies(1); got != nil {
		t.Fatalf("Copies(1) = %v, want nil", got)
	}
	if err := setCopies(g, nil); err != nil || g.Copies(0) != nil {
		t.Fatalf("no classes: %v, Copies(0) = %v", err, g.Copies(0))
	}
	for _, bad := range [][][]int32{{{1}}, {{2, 1}}, {{1, 1}}, {{0, 9}}, {{-1, 2}}, {{0, 1}, {1, 2}}} {
		if err := setCopies(g, bad); err == nil {
			t.Errorf("classes %v: no error", bad)
		}
	}
}

func TestCopyKey(t *testing.T) {
	a := Node{Content: "Same text.", Caption: "cap"}
	b := a
	b.ID, b.Doc, b.Section = "x", "y", "z"
	if copyKey(&a) != copyKey(&b) || copyKey(&a) == 0 {
		t.Fatalf("exact copies: keys %x %x", copyKey(&a), copyKey(&b))
	}
	for _, c := range []Node{{Content: "Same text!", Caption: "cap"}, {Content: "Same text.", Caption: "cap", Modality: ModalityTable},
		{Content: "Same text.", Caption: "cap", Image: &ImageRef{Path: "a.png"}}, {Content: "Same text.cap"}} {
		if copyKey(&c) == copyKey(&a) {
			t.Errorf("%+v: the key of %+v", c, a)
		}
		if sameKey(&c, &a) {
			t.Errorf("%+v: sameKey", c)
		}
	}
	if k := copyKey(&Node{Content: "  "}); k != 0 {
		t.Fatalf("no content: key %x", k)
	}
	// Exact copies by sameKey always share the key.
	rng := rand.New(rand.NewPCG(3, 5))
	for range 50 {
		g := plantedCopies(rng, false)
		for u := range g.Nodes {
			for v := range u {
				if hasContent(&g.Nodes[u]) && sameKey(&g.Nodes[u], &g.Nodes[v]) && copyKey(&g.Nodes[u]) != copyKey(&g.Nodes[v]) {
					t.Fatalf("%q and %q: exact copies, keys differ", g.Nodes[u].ID, g.Nodes[v].ID)
				}
			}
		}
	}
}

// TestClassVector: each node's class as its lowest copy, as Copies says.
func TestClassVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 100 {
		g := plantedCopies(rng, trial%2 == 0)
		var want []int32
		for i := range g.Nodes {
			if cs := g.Copies(i); cs != nil {
				if want == nil {
					want = make([]int32, len(g.Nodes))
					for k := range want {
						want[k] = int32(k)
					}
				}
				want[i] = cs[0]
			}
		}
		if got := classVector(g); !slices.Equal(got, want) {
			t.Fatalf("trial %d: %v, want %v", trial, got, want)
		}
	}
}
