package eval

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm/fake"
)

func augmentFixture(t *testing.T) *Dataset {
	t.Helper()
	ds, err := Load(FeTaQA, "testdata", LoadOptions{Distractors: 2})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestAugmentCopiesAndGold(t *testing.T) {
	ds := augmentFixture(t)
	a := Augment{Seed: 3, Copies: 2}
	aug := a.Apply(ds)
	if aug.Name != "fetaqa+dup" || len(aug.Questions) != len(ds.Questions) {
		t.Fatalf("name %q, %d questions of %d", aug.Name, len(aug.Questions), len(ds.Questions))
	}
	for qi, q := range aug.Questions {
		o := ds.Questions[qi]
		if q.ID != o.ID || q.Text != o.Text || q.DocSet == o.DocSet {
			t.Fatalf("question %d: %q %q doc set %q", qi, q.ID, q.Text, q.DocSet)
		}
		if len(q.Docs) != 3*len(o.Docs) {
			t.Fatalf("question %s: %d docs, want %d", q.ID, len(q.Docs), 3*len(o.Docs))
		}
		byID := map[string]graph.Document{}
		var originals []string
		for _, d := range q.Docs {
			byID[d.ID] = d
			if _, ok := q.CopyOf[d.ID]; !ok {
				originals = append(originals, d.ID)
			}
		}
		// The originals keep their order; each copy is next to its group.
		var want []string
		for _, d := range o.Docs {
			want = append(want, d.ID)
		}
		if !slices.Equal(originals, want) {
			t.Errorf("originals %v, want %v", originals, want)
		}
		for i, d := range q.Docs {
			root := d.ID
			if r, ok := q.CopyOf[d.ID]; ok {
				root = r
			}
			lo, hi := max(i-2, 0), min(i+3, len(q.Docs))
			near := false
			for _, e := range q.Docs[lo:hi] {
				near = near || e.ID == root
			}
			if !near {
				t.Errorf("copy %s is not next to %s", d.ID, root)
			}
			if r, ok := q.CopyOf[d.ID]; ok {
				od := byID[r]
				if len(d.Items) != len(od.Items) || d.Title != od.Title {
					t.Errorf("copy %s: %d items, title %q", d.ID, len(d.Items), d.Title)
				}
				for k := range d.Items {
					if d.Items[k].Section != od.Items[k].Section || d.Items[k].Modality != od.Items[k].Modality {
						t.Errorf("copy %s item %d changed its section or modality", d.ID, k)
					}
				}
			}
		}
		// Every gold item's copies are in its unit.
		for j, units := range q.Gold {
			for k, u := range units {
				ou := o.Gold[j][k]
				if len(u.Items) != 3*len(ou.Items) {
					t.Errorf("unit %s: %d items, want %d", u.Label, len(u.Items), 3*len(ou.Items))
				}
				for _, it := range u.Items {
					d, ok := byID[it.Doc]
					if !ok || it.Item >= len(d.Items) {
						t.Errorf("unit item %v not in the documents", it)
					}
				}
			}
		}
	}
	// The original is untouched.
	if strings.Contains(ds.Questions[0].Docs[0].ID, "~") || ds.Questions[0].CopyOf != nil {
		t.Error("Apply modified its input")
	}
	// Determinism: the same seed gives the same documents; another seed
	// does not.
	if !reflect.DeepEqual(a.Apply(ds).Questions, aug.Questions) {
		t.Error("same seed, different augmentation")
	}
	if reflect.DeepEqual(Augment{Seed: 4, Copies: 2}.Apply(ds).Questions[0].Docs, aug.Questions[0].Docs) {
		t.Error("seeds 3 and 4 gave the same copies")
	}
}

// A document shared by several document sets (distractors) has the same
// copies in each.
func TestAugmentSharedDocuments(t *testing.T) {
	ds := augmentFixture(t)
	aug := Augment{Seed: 1}.Apply(ds)
	seen := map[string]graph.Document{}
	for _, q := range aug.Questions {
		for _, d := range q.Docs {
			if prev, ok := seen[d.ID]; ok && !reflect.DeepEqual(prev, d) {
				t.Fatalf("document %s differs between document sets", d.ID)
			}
			seen[d.ID] = d
		}
	}
}

func TestAugmentRate(t *testing.T) {
	ds := augmentFixture(t)
	aug := Augment{Seed: 1, Rate: 0.5}.Apply(ds)
	docs, copies := map[string]bool{}, map[string]bool{}
	for _, q := range aug.Questions {
		for _, d := range q.Docs {
			if _, ok := q.CopyOf[d.ID]; ok {
				copies[d.ID] = true
			} else {
				docs[d.ID] = true
			}
		}
	}
	if len(copies) == 0 || len(copies) == len(docs) {
		t.Errorf("rate 0.5: %d copies of %d documents", len(copies), len(docs))
	}
}

func TestPerturbKinds(t *testing.T) {
	a := Augment{}
	text := "Title line\nThe first sentence is here. The second one follows! Is there a third? Yes, there is."
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 0))
		if got := a.perturb(rng, KindExact, text); got != text {
			t.Fatalf("exact changed the text: %q", got)
		}
		got := a.perturb(rng, KindEdit, text)
		if got == text || !strings.HasPrefix(got, "Title line\n") {
			t.Errorf("edit: %q", got)
		}
		got = a.perturb(rng, KindReorder, text)
		if got == text || !strings.HasPrefix(got, "Title line\n") {
			t.Errorf("reorder: %q", got)
		}
		// Re-ordering keeps the sentences.
		want := sentences(text[len("Title line\n"):])
		have := sentences(got[len("Title line\n"):])
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(want, have) {
			t.Errorf("reorder lost sentences: %q", got)
		}
		got = a.perturb(rng, KindBoilerplate, text)
		if !strings.HasPrefix(got, text+"\n") && !strings.HasSuffix(got, "\n"+text) {
			t.Errorf("boilerplate changed the text: %q", got)
		}
	}
	// One-line texts: edits still edit; a single sentence cannot be
	// re-ordered.
	rng := rand.New(rand.NewPCG(1, 0))
	if got := a.perturb(rng, KindEdit, "one"); got == "one" {
		t.Errorf("edit of one word: %q", got)
	}
	if got := a.perturb(rng, KindReorder, "just one sentence"); got != "just one sentence" {
		t.Errorf("reorder of one sentence: %q", got)
	}
}

func TestParseAugment(t *testing.T) {
	for _, s := range []string{"", "dup"} {
		a, err := ParseAugment(s)
		if err != nil || !reflect.DeepEqual(a, Augment{}) {
			t.Errorf("%q: %+v %v", s, a, err)
		}
	}
	a, err := ParseAugment("name=heavy, seed=7,copies=2,rate=0.5,editrate=0.1,edit=3,boiler=1")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "heavy" || a.Seed != 7 || a.Copies != 2 || a.Rate != 0.5 || a.EditRate != 0.1 || a.Mix[KindEdit] != 3 || a.Mix[KindBoilerplate] != 1 {
		t.Errorf("%+v", a)
	}
	if m := a.mix(); m[KindEdit] != 0.75 || m[KindExact] != 0 {
		t.Errorf("mix %v", m)
	}
	b, err := ParseAugment(a.String())
	if err != nil || b.String() != a.String() {
		t.Errorf("round trip %q → %q (%v)", a.String(), b.String(), err)
	}
	for _, bad := range []string{"x", "copies=0", "copies=9", "rate=0", "rate=2", "seed=-1", "edit=-1", "edit=0", "editrate=0.9", "name=a/b", "colour=red", "exact=NaN"} {
		if _, err := ParseAugment(bad); !errors.Is(err, ErrAugment) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseAugment(f *testing.F) {
	f.Add("name=x,seed=1,copies=2,rate=0.3,editrate=0.2,exact=1,edit=1,reorder=1,boiler=1")
	f.Add("dup")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAugment(s)
		if err != nil {
			if !errors.Is(err, ErrAugment) {
				t.Fatalf("error not wrapping ErrAugment: %v", err)
			}
			return
		}
		b, err := ParseAugment(a.String())
		if err != nil || b.String() != a.String() {
			t.Fatalf("round trip %q → %q (%v)", a.String(), b.String(), err)
		}
		var sum float64
		for _, w := range a.mix() {
			sum += w
		}
		if sum < 0.999 || sum > 1.001 {
			t.Fatalf("mix sums to %v", sum)
		}
	})
}

// Reads of a copy and its original count once for document recall and
// once as a duplicate; equal normalised texts are duplicates too.
func TestMeasureDups(t *testing.T) {
	nodes := []graph.Node{
		{Doc: "a", Order: 0, Content: "Alpha beta."},
		{Doc: "a~copy", Order: 0, Content: "Alpha  beta gamma."},
		{Doc: "b", Order: 0, Content: "alpha, BETA"},
		{Doc: "b", Order: 1, Content: "Delta."},
	}
	g, err := graph.New(nodes, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := &Question{
		CopyOf:   map[string]string{"a~copy": "a"},
		Gold:     [][]Unit{{{Items: []ItemRef{{"a", 0}, {"a~copy", 0}}}, {Items: []ItemRef{{"b", 1}}}}},
		MainDocs: []string{"a", "b"},
	}
	m := Measure(q, g, []flow.Chain{{Nodes: []int{1, 0}}, {Nodes: []int{2, 1}}})
	if m.Distinct != 3 || m.Dups != 2 {
		t.Errorf("distinct %d dups %d, want 3 and 2", m.Distinct, m.Dups)
	}
	if m.EvidenceRecall != 0.5 || m.DocRecall != 1 {
		t.Errorf("recall %v doc %v", m.EvidenceRecall, m.DocRecall)
	}
	// Only the copy read: its original's document counts.
	m = Measure(q, g, []flow.Chain{{Nodes: []int{1, 3}}})
	if m.Dups != 0 || m.EvidenceRecall != 1 || m.DocRecall != 1 {
		t.Errorf("%+v", m)
	}
	s := Summarize([]Metrics{{Distinct: 4, Dups: 1}, {Distinct: 4}})
	if s.DupShare != 0.125 {
		t.Errorf("dup share %v", s.DupShare)
	}
}

// An augmented dataset runs beside its original: its rows are named
// "<dataset>+dup", the macro rows are per variant, and CompareVariants
// pairs each router with itself on the original.
func TestRunAugmented(t *testing.T) {
	ds := augmentFixture(t)
	aug := Augment{Seed: 2}.Apply(ds)
	qa, err := Load(QASPER, "testdata", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := DefaultRegistry()
	specs, err := reg.Specs([]string{"aspects", "topk"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := &Runner{Embedder: &fake.Embedder{Dim: 64}, Scorings: reg.Scorings(), Routers: specs, Budgets: []int{4}}
	res, err := run.Run(context.Background(), ds, qa, aug, Augment{Seed: 2}.Apply(qa))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res.Rows() {
		if r.Router == "aspects" {
			names = append(names, r.Dataset)
		}
	}
	if want := []string{"fetaqa", "qasper", "fetaqa+dup", "qasper+dup", "macro", "macro+dup"}; !slices.Equal(names, want) {
		t.Errorf("rows %v, want %v", names, want)
	}
	cs := res.CompareVariants(100, 1)
	if len(cs) != 2*2 {
		t.Fatalf("%d variant comparisons", len(cs))
	}
	for _, c := range cs {
		if c.Baseline != OriginalBaseline || !strings.HasSuffix(c.Dataset, "+dup") || c.Recall.N == 0 {
			t.Errorf("%+v", c)
		}
	}
	// topk reads duplicates on the augmented sets (every document has a
	// copy); aspects merges the ones found (the fixture's tables are tiny:
	// a typo in a row of four words leaves it no near copy).
	share := map[string]float64{}
	for _, r := range res.Rows() {
		if r.Dataset == "fetaqa+dup" {
			share[r.Router] = r.DupShare
		}
	}
	if share["topk"] == 0 || share["aspects"] > share["topk"]/2 {
		t.Errorf("duplicates read: %v", share)
	}
}
