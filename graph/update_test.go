package graph_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/llm/local"
)

// updateGen makes small random documents over a small vocabulary, so that
// collections hold duplicate passages (equal vectors, hence kNN ties),
// shared capitalised names and titles (mention links), tables and figures,
// and passages the fake model drops ("battery lasted").
type updateGen struct {
	r    *rand.Rand
	next int
}

var (
	genWords = strings.Fields("storm harbour flood wind gust pier boat tide survey station glacier ridge camp probe signal battery lasted data table figure")
	genNames = []string{"Camp Ridge", "Storm Elda", "Kestrel Bay", "Lumen Labs", "Aurora Probe"}
)

func (u *updateGen) text() string {
	if u.r.IntN(6) == 0 {
		return "The battery lasted well." // a fixed passage: duplicates
	}
	w := make([]string, 3+u.r.IntN(8))
	for i := range w {
		w[i] = genWords[u.r.IntN(len(genWords))]
	}
	if u.r.IntN(2) == 0 {
		w[u.r.IntN(len(w))] = genNames[u.r.IntN(len(genNames))]
	}
	return strings.Join(w, " ") + "."
}

func (u *updateGen) doc(id string) graph.Document {
	its := make([]graph.Item, u.r.IntN(6)) // sometimes no items at all
	for i := range its {
		switch u.r.IntN(8) {
		case 0:
			its[i] = graph.Item{Modality: graph.ModalityTable, Text: "a | b\n1 | 2", Caption: "Table 1: " + u.text(), Page: -1}
		case 1:
			its[i] = graph.Item{Modality: graph.ModalityFigure, Caption: "Figure 1: " + u.text(), Page: 0}
		default:
			its[i] = graph.Item{Modality: graph.ModalityText, Text: u.text(), Section: genNames[u.r.IntN(len(genNames))], Page: i / 2}
		}
	}
	return graph.Document{ID: id, Items: its}
}

func (u *updateGen) newID() string {
	u.next++
	return fmt.Sprintf("d%03d", u.next)
}

// step changes docs at random: adds (at the end or in the middle),
// replaces, removes, sometimes several at once, sometimes reorders.
func (u *updateGen) step(docs []graph.Document) []graph.Document {
	docs = slices.Clone(docs)
	for range 1 + u.r.IntN(3) {
		switch op := u.r.IntN(10); {
		case op < 3 || len(docs) == 0:
			at := len(docs)
			if u.r.IntN(2) == 0 {
				at = u.r.IntN(len(docs) + 1)
			}
			docs = slices.Insert(docs, at, u.doc(u.newID()))
		case op < 6:
			i := u.r.IntN(len(docs))
			docs[i] = u.doc(docs[i].ID)
		case op < 9:
			i := u.r.IntN(len(docs))
			docs = slices.Delete(docs, i, i+1)
		default:
			u.r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		}
	}
	return docs
}

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	llm.Embedder
	texts atomic.Int64
}

// Name forwards the embedder's name (graph headers record it).
func (c *countingEmbedder) Name() string {
	if nm, ok := c.Embedder.(llm.Namer); ok {
		return nm.Name()
	}
	return ""
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts, kind)
}

// TestUpdateMatchesBuild applies random sequences of changes with Update and
// checks each result against a fresh Build of the same documents: equal
// bytes from Write, also after a Write/Read round trip of the updated
// graph. The builders cover the offline analysis with the embedded GloVe
// embedder and the hashing one, a fixed k (which does not change with N)
// and the fake model's analysis.
func TestUpdateMatchesBuild(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		b     func(e llm.Embedder) *graph.Builder
		local bool
	}{
		{"offline-glove", func(e llm.Embedder) *graph.Builder { return &graph.Builder{Embedder: e} }, true},
		{"offline-hash", func(e llm.Embedder) *graph.Builder { return &graph.Builder{Embedder: e, Concurrency: 3} }, false},
		{"offline-k4-window1", func(e llm.Embedder) *graph.Builder { return &graph.Builder{Embedder: e, KNN: 4, Window: 1} }, false},
		{"offline-nomentions", func(e llm.Embedder) *graph.Builder { return &graph.Builder{Embedder: e, NoMentionLinks: true} }, false},
		{"offline-int8-glove", func(e llm.Embedder) *graph.Builder { return &graph.Builder{Embedder: e, Int8Embeddings: true} }, true},
		{"offline-int8-hash", func(e llm.Embedder) *graph.Builder { return &graph.Builder{Embedder: e, Int8Embeddings: true, KNN: 4} }, false},
		{"model", func(e llm.Embedder) *graph.Builder {
			return &graph.Builder{Embedder: e, Model: newFakeModel(), Rounds: -1}
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(4) {
				u := &updateGen{r: rand.New(rand.NewPCG(seed, 7))}
				var e llm.Embedder = &fake.Embedder{Dim: 8} // few buckets: collisions and ties
				if c.local {
					e = local.Embedder()
				}
				var docs []graph.Document
				for range 3 + u.r.IntN(8) {
					docs = append(docs, u.doc(u.newID()))
				}
				g := build(t, c.b(e), docs)
				for s := range 12 {
					prev := docs
					docs = u.step(docs)
					ce := &countingEmbedder{Embedder: e}
					bu := c.b(ce)
					if s%3 == 2 { // from the file, as the CLI does
						h, err := graph.Read(bytes.NewReader(encoded(t, g)))
						if err != nil {
							t.Fatal(err)
						}
						g = h
					}
					before := encoded(t, g)
					ng, diff, err := bu.Update(ctx, g, docs)
					if err != nil {
						t.Fatalf("seed %d step %d: %v", seed, s, err)
					}
					if !bytes.Equal(encoded(t, g), before) {
						t.Fatalf("seed %d step %d: Update modified its input graph", seed, s)
					}
					want := build(t, c.b(e), docs)
					if !bytes.Equal(encoded(t, ng), encoded(t, want)) {
						diffGraphs(t, ng, want)
						t.Fatalf("seed %d step %d: updated graph differs from a fresh build", seed, s)
					}
					// Only the changed documents were embedded (and, with
					// the model, analysed).
					changed := map[string]bool{}
					for _, id := range append(diff.Added, diff.Replaced...) {
						changed[id] = true
					}
					items := 0
					for _, d := range docs {
						if changed[d.ID] {
							items += len(d.Items)
						}
					}
					checkDiff(t, prev, docs, diff)
					checkRelinked(t, g, ng, diff)
					if m, ok := bu.Model.(*fake.Model); ok {
						if got := len(m.Calls()); got != items {
							t.Fatalf("seed %d step %d: %d model calls, want %d (the changed items)", seed, s, got, items)
						}
					}
					if got := int(ce.texts.Load()); got > items {
						t.Fatalf("seed %d step %d: %d texts embedded, want at most %d", seed, s, got, items)
					}
					g = ng
				}
			}
		})
	}
}

// checkDiff checks diff against the two document lists.
func checkDiff(t *testing.T, prev, docs []graph.Document, diff graph.Diff) {
	t.Helper()
	old := map[string]graph.Document{}
	for _, d := range prev {
		old[d.ID] = d
	}
	var add, rep, rem []string
	now := map[string]bool{}
	for _, d := range docs {
		now[d.ID] = true
		o, ok := old[d.ID]
		switch {
		case !ok:
			add = append(add, d.ID)
		case fmt.Sprint(o.Items) != fmt.Sprint(d.Items):
			rep = append(rep, d.ID)
		}
	}
	for _, d := range prev {
		if !now[d.ID] {
			rem = append(rem, d.ID)
		}
	}
	if !slices.Equal(add, diff.Added) || !slices.Equal(rep, diff.Replaced) || !slices.Equal(rem, diff.Removed) {
		t.Fatalf("diff %+v, want added %v replaced %v removed %v", diff, add, rep, rem)
	}
}

// checkRelinked checks the kept nodes whose edges diff reports changed
// against an oracle that matches nodes by ID: a node of a document diff
// does not name is kept, and its edges, as (neighbour, kind) with a
// neighbour of an added, replaced or removed document told apart from a
// kept one of the same ID, must differ from its old node's exactly when
// it is reported.
func checkRelinked(t *testing.T, g, ng *graph.Graph, diff graph.Diff) {
	t.Helper()
	got, ok := graphhook.DiffRelinked(&diff, ng)
	if !ok {
		t.Fatal("Update's Diff does not report the kept nodes whose edges changed")
	}
	if _, ok := graphhook.DiffRelinked(&diff, g); ok {
		t.Fatal("Update's Diff reports its kept nodes' edges for another graph")
	}
	named := map[string]bool{}
	for _, d := range slices.Concat(diff.Added, diff.Replaced, diff.Removed) {
		named[d] = true
	}
	edges := func(h *graph.Graph, i int, side string) []string {
		var out []string
		nb, es := h.Neighbors(i)
		for k, j := range nb {
			id := h.Nodes[j].ID
			if named[h.Nodes[j].Doc] {
				id = side + ":" + id
			}
			out = append(out, fmt.Sprintf("%s/%d", id, h.Edges[es[k]].Kind))
		}
		slices.Sort(out)
		return out
	}
	old := map[string]int{}
	for i := range g.Nodes {
		old[g.Nodes[i].ID] = i
	}
	var want []int32
	for i := range ng.Nodes {
		if named[ng.Nodes[i].Doc] {
			continue
		}
		o, ok := old[ng.Nodes[i].ID]
		if !ok {
			t.Fatalf("kept node %s is not in the old graph", ng.Nodes[i].ID)
		}
		if !slices.Equal(edges(g, o, "old"), edges(ng, i, "new")) {
			want = append(want, int32(i))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Diff reports the kept nodes %v relinked, want %v", got, want)
	}
}

// diffGraphs logs the first differences between two graphs.
func diffGraphs(t *testing.T, g, h *graph.Graph) {
	t.Helper()
	if len(g.Nodes) != len(h.Nodes) {
		t.Logf("%d nodes, want %d", len(g.Nodes), len(h.Nodes))
		return
	}
	for i := range g.Nodes {
		if fmt.Sprint(g.Nodes[i]) != fmt.Sprint(h.Nodes[i]) {
			t.Logf("node %d: %+v\nwant %+v", i, g.Nodes[i], h.Nodes[i])
			return
		}
		if !slices.Equal(g.Embedding(i), h.Embedding(i)) {
			t.Logf("node %d: embeddings differ", i)
			return
		}
	}
	es := map[[2]int32]graph.Edge{}
	for _, e := range h.Edges {
		es[[2]int32{e.U, e.V}] = e
	}
	for _, e := range g.Edges {
		w, ok := es[[2]int32{e.U, e.V}]
		if !ok || w != e {
			t.Logf("edge %+v, want %+v (%v)", e, w, ok)
		}
		delete(es, [2]int32{e.U, e.V})
	}
	for _, e := range es {
		t.Logf("missing edge %+v", e)
	}
}

func TestUpdateErrors(t *testing.T) {
	ctx := context.Background()
	e := &fake.Embedder{Dim: 8}
	u := &updateGen{r: rand.New(rand.NewPCG(1, 1))}
	docs := []graph.Document{u.doc("a"), u.doc("b"), u.doc("c")}
	g := build(t, &graph.Builder{Embedder: e}, docs)

	plain, err := graph.New(g.Nodes, g.Dim, slices.Clone(g.Emb), g.Edges)
	if err != nil {
		t.Fatal(err)
	}
	evolved := build(t, &graph.Builder{Embedder: e, Model: newFakeModel()}, docs)
	for _, c := range []struct {
		name string
		b    *graph.Builder
		g    *graph.Graph
		want error
	}{
		{"no record", &graph.Builder{Embedder: e}, plain, graph.ErrUpdate},
		{"nil graph", &graph.Builder{Embedder: e}, nil, graph.ErrUpdate},
		{"other k", &graph.Builder{Embedder: e, KNN: 5}, g, graph.ErrUpdate},
		{"other window", &graph.Builder{Embedder: e, Window: 2}, g, graph.ErrUpdate},
		{"mentions", &graph.Builder{Embedder: e, NoMentionLinks: true}, g, graph.ErrUpdate},
		{"model", &graph.Builder{Embedder: e, Model: newFakeModel(), Rounds: -1}, g, graph.ErrUpdate},
		{"evolved", &graph.Builder{Embedder: e, Model: newFakeModel()}, evolved, graph.ErrUpdate},
		{"dimension", &graph.Builder{Embedder: &fake.Embedder{Dim: 16}}, g, graph.ErrDimension},
		{"duplicate", &graph.Builder{Embedder: e}, g, graph.ErrDocument},
	} {
		d := docs
		if c.name == "duplicate" {
			d = append(slices.Clone(docs), docs[0])
		}
		if _, _, err := c.b.Update(ctx, c.g, d); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// A graph read back from a file written without the record (made by
	// New) loads, and cannot be updated.
	h, err := graph.Read(bytes.NewReader(encoded(t, plain)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := (&graph.Builder{Embedder: e}).Update(ctx, h, docs); !errors.Is(err, graph.ErrUpdate) {
		t.Fatalf("%v, want ErrUpdate", err)
	}
}

// Updating to an empty collection and back gives what Build gives, and an
// update that changes nothing makes no calls at all.
func TestUpdateEmptyAndUnchanged(t *testing.T) {
	ctx := context.Background()
	u := &updateGen{r: rand.New(rand.NewPCG(9, 9))}
	docs := []graph.Document{u.doc("a"), u.doc("b"), u.doc("c"), u.doc("d")}
	m := newFakeModel()
	ce := &countingEmbedder{Embedder: &fake.Embedder{Dim: 8}}
	b := &graph.Builder{Embedder: ce, Model: m, Rounds: -1}
	g := build(t, b, docs)
	calls, texts := len(m.Calls()), ce.texts.Load()
	same, diff, err := b.Update(ctx, g, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Calls()) != calls || ce.texts.Load() != texts {
		t.Fatal("an update without changes called the model or the embedder")
	}
	if len(diff.Added)+len(diff.Replaced)+len(diff.Removed) != 0 || !bytes.Equal(encoded(t, same), encoded(t, g)) {
		t.Fatalf("an update without changes: %+v", diff)
	}
	// The result shares no storage with g (a loaded g's strings alias its
	// whole file buffer).
	for i := range g.Nodes {
		a, b := &g.Nodes[i], &same.Nodes[i]
		if a.Content != "" && unsafe.StringData(a.Content) == unsafe.StringData(b.Content) || unsafe.StringData(a.ID) == unsafe.StringData(b.ID) ||
			len(a.Keywords) > 0 && unsafe.StringData(a.Keywords[0]) == unsafe.StringData(b.Keywords[0]) {
			t.Fatalf("node %d shares strings with the old graph", i)
		}
	}
	empty, diff, err := b.Update(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encoded(t, empty), encoded(t, build(t, b, nil))) || len(diff.Removed) != 4 {
		t.Fatalf("emptied: %+v", diff)
	}
	back, _, err := b.Update(ctx, empty, docs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encoded(t, back), encoded(t, g)) {
		t.Fatal("rebuilt from empty differs")
	}
}

// On a larger collection many lists are recomputed (several blocks of
// rows, several workers) and the result still equals a fresh build.
func TestUpdateLarger(t *testing.T) {
	ctx := context.Background()
	all := synthCollection(14, 20)
	b := &graph.Builder{Embedder: &fake.Embedder{Dim: 16}, Concurrency: 3}
	g := build(t, b, all[:12])
	docs := append([]graph.Document(nil), all[:12]...)
	docs[3] = graph.Document{ID: docs[3].ID, Items: all[12].Items}
	docs[7] = graph.Document{ID: docs[7].ID, Items: all[13].Items[:5]}
	docs = append(docs[:9], docs[10:]...)
	docs = append(docs, all[13])
	ng, diff, err := b.Update(ctx, g, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(diff.Replaced) != 2 || len(diff.Removed) != 1 || len(diff.Added) != 1 {
		t.Fatalf("diff %+v", diff)
	}
	if !bytes.Equal(encoded(t, ng), encoded(t, build(t, b, docs))) {
		t.Fatal("differs from a fresh build")
	}
}
