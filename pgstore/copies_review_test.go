package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

// chainWords are the words of chainDocs' passages.
var chainWords = strings.Fields(`harbour lighthouse keeper ferry timetable winter station rainfall seabirds nests shoreline gauge records
channel dredging survey orchard cider apples pruning frost blossom beehive honey meadow hayfield tractor
barley granary millstone bakery loaves chapel bell tower clock pendulum brass foundry anvil blacksmith
horseshoe stable saddle bridle carriage lantern candle wick tallow market stall violin orchestra conductor
symphony piano sonata choir anthem ballet dancer costume stage curtain theatre audience applause glacier
avalanche summit climber rope crampons blizzard tent expedition altitude oxygen sherpa ridge crevasse volcano
lava magma eruption crater ash basalt geyser earthquake fault tremor seismograph tsunami rocket satellite
orbit astronaut telescope galaxy nebula comet asteroid planet moon eclipse meteor banker loan mortgage
interest inflation currency exchange stock bond dividend auditor ledger invoice surgeon hospital nurse vaccine
antibiotic fever clinic patient diagnosis bandage stethoscope pharmacy football referee goalkeeper stadium
penalty league tournament trophy captain striker midfielder recipe oven flour butter sugar pastry dough
cinnamon vanilla chocolate custard pudding computer keyboard software algorithm database network server router
cable printer monitor laptop election parliament senator ballot campaign minister treaty embassy diplomat
constitution court judge river delta estuary flood levee canal reservoir dam irrigation aquifer wetland marsh
forest timber sawmill logger pine oak maple birch cedar lumber bark acorn squirrel desert camel oasis dune
caravan nomad sandstorm cactus mirage scorpion railway locomotive signal platform ticket tunnel viaduct
sleeper freight museum painting sculpture gallery portrait canvas easel curator exhibition fresco mosaic ocean
whale dolphin coral reef shark octopus jellyfish tide current lagoon factory assembly robot welding conveyor
warehouse forklift pallet shipment cargo garden tulip rose daisy lily fern hedge lawn mower compost shovel
trowel castle knight armour sword shield dragon moat drawbridge fortress siege catapult language grammar
vocabulary dictionary poem novel author chapter publisher library weather thunder lightning drizzle hail fog
humidity barometer forecast cyclone monsoon chemistry molecule atom electron proton neutron acid enzyme
protein crystal solvent farm cattle sheep goat pig chicken barn fence pasture shepherd wool dairy cheese`)

// chainText is passage k of chainDocs: eight words of chainWords, the
// same for the same k, none shared with passage k' < 40 of another k.
func chainText(k int) string {
	return "The " + strings.Join(chainWords[k*8%len(chainWords):][:8], " ") + "."
}

// fillerDocs are n documents of three passages of random words, under
// headings of their own.
func fillerDocs(n int) []graph.Document {
	rng := rand.New(rand.NewPCG(3, 9))
	var ds []graph.Document
	for k := range n {
		d := graph.Document{ID: fmt.Sprintf("filler%d", k), Title: fmt.Sprintf("Filler %d", k)}
		for range 3 {
			var w []string
			for range 9 {
				w = append(w, chainWords[rng.IntN(len(chainWords))])
			}
			d.Items = append(d.Items, graph.Item{Modality: graph.ModalityText, Text: "A " + strings.Join(w, " ") + ".", Section: d.Title, Page: -1})
		}
		ds = append(ds, d)
	}
	return ds
}

// chainDocs are n documents under headings of their own, document k
// holding an own passage and the link passages k and k+1 (link k+1 also
// in document k+1, an exact copy): a chain of two-member classes through
// every document, no document half another.
func chainDocs(n int) []graph.Document {
	var ds []graph.Document
	for k := range n {
		d := graph.Document{ID: fmt.Sprintf("chain%d", k), Title: fmt.Sprintf("Chain %d", k)}
		sec := fmt.Sprintf("Chain heading %d", k)
		for _, text := range []string{chainText(n + 1 + k), chainText(k), chainText(k + 1)} {
			d.Items = append(d.Items, graph.Item{Modality: graph.ModalityText, Text: text, Section: sec, Page: -1})
		}
		ds = append(ds, d)
	}
	return ds
}

// TestUpdateCopiesLongChain: a document added with an exact copy of the
// first link of a long chain of classes grows the update's region through
// maxRegionRounds rounds, the last of which reads in a class member
// (chain3's copy of link 3, a higher seq than chain2's) whose own stored
// class is never asked for: it must still count as the copy it was, and
// the collection's contents and keyword frequencies stay those of its
// rows. The filler documents keep the region's first round (the added
// nodes, those relinked and their neighbours) from holding the chain.
func TestUpdateCopiesLongChain(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	docs := append(chainDocs(12), fillerDocs(400)...)
	p, g := buildDocs(t, docs)
	if err := s.Import(ctx, "chain", g, docs...); err != nil {
		t.Fatal(err)
	}
	if got, want := storedClassIDs(t, s, "chain"), graphClassIDs(g); !slices.Equal(got, want) || len(want) < 10 {
		t.Fatalf("imported classes %q, want %q (and some)", got, want)
	}
	checkContents(t, s, "chain")
	v := version(t, s, "chain")
	add := graph.Document{ID: "added", Title: "Added"}
	for _, text := range []string{chainText(30), chainText(0), chainText(31)} {
		add.Items = append(add.Items, graph.Item{Modality: graph.ModalityText, Text: text, Section: "Added heading", Page: -1})
	}
	docs2 := append(slices.Clone(docs), add)
	g2, diff, err := p.Update(ctx, g, docs2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "chain", v, g2, &diff, docs2...); err != nil {
		t.Fatal(err)
	}
	if got, want := storedClassIDs(t, s, "chain"), graphClassIDs(g2); !slices.Equal(got, want) {
		t.Fatalf("classes after the update\n%q\nwant\n%q", got, want)
	}
	checkContents(t, s, "chain")
}

// TestUpdateCopiesWithoutDiff: a random sequence of changes as
// TestUpdateCopiesMatchImport's, each update given no Diff (Update
// compares every kept node's links itself): the collection's classes and
// counts are still those of the whole new graph. (At round 38 of this
// seed a class forms through kept nodes whose edges the update changed.)
func TestUpdateCopiesWithoutDiff(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 99))
	q := newCopySeq()
	docs := q.docs()
	p, g := buildDocs(t, docs)
	if err := s.Import(ctx, "c", g, docs...); err != nil {
		t.Fatal(err)
	}
	v := version(t, s, "c")
	for round := range 40 {
		for range 1 + rng.IntN(2) {
			q.change(rng)
		}
		docs2 := q.docs()
		g2, _, err := p.Update(ctx, g, docs2)
		if err != nil {
			t.Fatal(err)
		}
		if v, err = s.Update(ctx, "c", v, g2, nil, docs2...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got, want := storedClassIDs(t, s, "c"), graphClassIDs(g2); !slices.Equal(got, want) {
			t.Fatalf("round %d: classes after the update\n%q\nwant (the whole graph's)\n%q", round, got, want)
		}
		checkContents(t, s, "c")
		g = g2
	}
}

// footerDocs are n documents of a passage of their own (random words)
// and one footer, the same in every document: a class of n exact copies.
func footerDocs(n int) []graph.Document {
	ds := fillerDocs(n)
	for k := range ds {
		ds[k].Items = append(ds[k].Items[:1], graph.Item{Modality: graph.ModalityText, Text: "Was this page helpful? Edit it on GitHub or ask the harbour office.", Section: "Footer", Page: -1})
	}
	return ds
}

// classCells counts the seqs the collection's rows store as classes.
func classCells(t *testing.T, s *Store, name string) (cells, nodes int64) {
	t.Helper()
	if err := s.pool.QueryRow(context.Background(), `SELECT coalesce(sum(cardinality(c.copies)), 0), count(*) FROM flowreader.cands c JOIN flowreader.collections k ON k.id = c.coll WHERE k.name = $1`, name).Scan(&cells, &nodes); err != nil {
		t.Fatal(err)
	}
	return cells, nodes
}

// TestCopiesStoreLinear: a passage repeated in every document (a footer,
// boilerplate) is one class of as many members as documents; the store
// keeps the classes in space linear in the nodes, not each member's row
// a list of the whole class (a footer on 50,000 pages would take 20 GB),
// before and after an update adds a copy, and a question's candidates
// still carry the whole class.
func TestCopiesStoreLinear(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	docs := footerDocs(300)
	p, g := buildDocs(t, docs)
	if err := s.Import(ctx, "f", g, docs...); err != nil {
		t.Fatal(err)
	}
	if got, want := storedClassIDs(t, s, "f"), graphClassIDs(g); !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("imported classes %q, want %q (and some)", got, want)
	}
	if cells, nodes := classCells(t, s, "f"); cells > 3*nodes {
		t.Fatalf("after import: %d seqs stored as classes for %d nodes", cells, nodes)
	}
	checkContents(t, s, "f")
	docs2 := append(slices.Clone(docs[1:]), footerDocs(301)[300])
	g2, diff, err := p.Update(ctx, g, docs2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "f", version(t, s, "f"), g2, &diff, docs2...); err != nil {
		t.Fatal(err)
	}
	if got, want := storedClassIDs(t, s, "f"), graphClassIDs(g2); !slices.Equal(got, want) {
		t.Fatalf("classes after the update\n%q\nwant\n%q", got, want)
	}
	if cells, nodes := classCells(t, s, "f"); cells > 3*nodes {
		t.Fatalf("after the update: %d seqs stored as classes for %d nodes", cells, nodes)
	}
	checkContents(t, s, "f")
	// A question's candidates carry the whole class.
	foot := nodeIndex(g2, "filler1#1")
	cs, err := s.Candidates(ctx, "f", score.Query{Text: "page helpful GitHub", Embedding: g2.AppendEmbedding(nil, foot)}, 8, score.Config{}, flowreader.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	whole := 0
	for i := range cs.Nodes {
		if len(cs.Copies[i]) == 300 {
			whole++
		} else if cs.Copies[i] != nil {
			t.Fatalf("candidate %s: a class of %d", cs.Graph.Nodes[i].ID, len(cs.Copies[i]))
		}
	}
	if whole == 0 {
		t.Fatal("no footer among the candidates")
	}
}
