package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// copyGraph makes a graph of texts (doc "d<k>", as given) whose embeddings
// are bags of words hashed into 64 dimensions, with every pair of nodes
// joined by an edge (so that every pair is a candidate).
func copyGraph(t testing.TB, docs [][]string) *Graph {
	t.Helper()
	var nodes []Node
	for d, items := range docs {
		for i, text := range items {
			nodes = append(nodes, Node{ID: fmt.Sprintf("d%d#%d", d, i), Doc: fmt.Sprintf("d%d", d), Order: i, Content: text})
		}
	}
	const dim = 64
	emb := make([]float32, len(nodes)*dim)
	for i := range nodes {
		for _, w := range strings.Fields(strings.ToLower(nodes[i].Content)) {
			h := uint32(2166136261)
			for _, c := range []byte(w) {
				h = (h ^ uint32(c)) * 16777619
			}
			emb[i*dim+int(h%dim)]++
		}
	}
	var edges []Edge
	for u := range nodes {
		for v := u + 1; v < len(nodes); v++ {
			edges = append(edges, Edge{U: int32(u), V: int32(v), Kind: EdgeKNN})
		}
	}
	g, err := New(nodes, dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// classesOf lists the classes as node ID groups.
func classesOf(g *Graph) [][]string {
	var out [][]string
	for i := range g.Nodes {
		cs := g.Copies(i)
		if cs == nil || int(cs[0]) != i {
			continue
		}
		var ids []string
		for _, v := range cs {
			ids = append(ids, g.Nodes[v].ID)
		}
		out = append(out, ids)
	}
	return out
}

const (
	para1 = "The harbour of Alice was founded by fishermen from the north coast who built the first stone mole there"
	para2 = "Ships from the southern islands brought timber and salt, and the market grew around the old customs house"
	para3 = "The lighthouse on the eastern cape guides the ferries that cross the strait 2 times a day in summer"
)

func TestCopiesExactAndNear(t *testing.T) {
	g := copyGraph(t, [][]string{
		{para1, para2, para3},
		// An exact copy, a light edit and a version with another figure.
		{para1, strings.Replace(para2, "timber and salt", "timber salt", 1), strings.Replace(para3, "2 times", "3 times", 1)},
		// Unrelated.
		{"Bananas are yellow and grow in bunches on large herbaceous plants in the tropics"},
	})
	got := classesOf(g)
	want := [][]string{{"d0#0", "d1#0"}, {"d0#1", "d1#1"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("classes %v, want %v", got, want)
	}
	if g.Copies(6) != nil {
		t.Error("the unrelated node has copies")
	}
	// A line added with a figure (a date, a footer) keeps a near copy.
	g = copyGraph(t, [][]string{{para1 + " " + para3}, {para1 + " " + para3 + "\nLast updated: March 3, 2024"}})
	if got := classesOf(g); len(got) != 1 {
		t.Errorf("a dated line added: classes %v", got)
	}
}

// Rows of one table are alike but are not copies of each other, and a copy
// of the table in another document must not make them so.
func TestCopiesNotWithinADocument(t *testing.T) {
	rows := []string{
		"Season Team League Apps Goals Club Arsenal Premier League Cup Final",
		"Season Team League Apps Goals Club Arsenal Premier League Cup Semi",
		"Season Team League Apps Goals Club Arsenal Premier League Cup Quarter",
	}
	g := copyGraph(t, [][]string{rows, {rows[0], rows[1] + " Semi", rows[2]}})
	for i := range 3 {
		cs := g.Copies(i)
		if len(cs) != 2 || int(cs[1]) != i+3 {
			t.Errorf("row %d: copies %v, want [%d %d]", i, cs, i, i+3)
		}
	}
	// Within one document only exact copies (up to case and punctuation).
	g = copyGraph(t, [][]string{{rows[0], rows[1], strings.ToUpper(rows[0]) + "!"}})
	if got := classesOf(g); len(got) != 1 || !slices.Equal(got[0], []string{"d0#0", "d0#2"}) {
		t.Errorf("one document: %v", got)
	}
}

// A document that is a copy of another as a whole has its nodes paired even
// where one is too changed to be a near copy alone (a typo in a short
// paragraph); a line added at the start or end of a passage keeps it a near
// copy on its own.
func TestCopiesWholeDocument(t *testing.T) {
	short := "Opening hours are nine to five on weekdays"
	typo := "Opening hours are nine to five on weekdasy"
	g := copyGraph(t, [][]string{{para1, para2, para3, short}, {para1, para2, para3, typo}})
	cs := g.Copies(3)
	if len(cs) != 2 || cs[1] != 7 {
		t.Fatalf("the changed copy: %v (classes %v)", cs, classesOf(g))
	}
	// Alone (its document not a copy), the same pair is not joined.
	g = copyGraph(t, [][]string{{short, para1}, {typo, para3}})
	if c := g.Copies(0); c != nil {
		t.Errorf("joined without a whole-document copy: %v", c)
	}
	g = copyGraph(t, [][]string{{short, para1}, {"Edit this page on the project website\n" + short, para3}})
	if c := g.Copies(0); len(c) != 2 {
		t.Errorf("a footer line added: copies %v", c)
	}
	// Under another heading, a near copy is another passage (a template
	// filled for another river).
	river := "is a river of Mato Grosso do Sul state in southwestern Brazil"
	nodes := []Node{{ID: "a#0", Doc: "a", Section: "Perdido River", Content: "The Perdido River " + river},
		{ID: "b#0", Doc: "b", Section: "Santana River", Content: "The Santana River " + river}}
	g, err := New(nodes, 1, []float32{1, 1}, []Edge{{U: 0, V: 1, Kind: EdgeKNN}})
	if err != nil {
		t.Fatal(err)
	}
	if c := g.Copies(0); c != nil {
		t.Errorf("two rivers are copies: %v", c)
	}
	nodes[1].Section = nodes[0].Section
	nodes[1].Content = nodes[0].Content + " (state)"
	if g, err = New(nodes, 1, []float32{1, 1}, []Edge{{U: 0, V: 1, Kind: EdgeKNN}}); err != nil {
		t.Fatal(err)
	}
	if c := g.Copies(0); len(c) != 2 {
		t.Errorf("under one heading: copies %v", c)
	}
}

// TestCopiesShortInWholeCopy: in a copy of a whole table, its short title
// and short rows join their originals through typos, re-ordered or
// repeated words and an added line, while a short row that says something
// else (another cell, another figure, a letter replaced) stays its own
// content.
func TestCopiesShortInWholeCopy(t *testing.T) {
	table := []string{"Kevin Darley — Statistics", "Year | Race | Result\n2001 | Oaks | Won", "Year | Race | Result\n2002 | Derby | Lost",
		"Smith | placed", "Pooja Ramachandran — Filmography", "Alpha | Won", para1, para2}
	cases := []struct {
		i     int
		copy  string
		joins bool
	}{
		{0, "Kevin Darley — Statistics\nSubscribe to our newsletter for updates.", true},
		{0, "Darley Kevin Kevin — Statistics", true},
		{4, "Pooja Ramachandran — Filomgraphy", true},
		{4, "Pooja Ramachandran — Filmgraphy", true},
		{4, "Pooja Ramachandran — Filmogrophy", false}, // a letter replaced
		{3, "Smyth | placed", false},
		{5, "Alpha | Lost", false},
		{1, "Year | Race | Result\n2003 | Oaks | Won", false},
		{0, "Kevin Darley", false}, // a word dropped from a short title
	}
	for _, c := range cases {
		cp := slices.Clone(table)
		cp[c.i] = c.copy
		g := copyGraph(t, [][]string{table, cp})
		cs := g.Copies(c.i)
		if got := slices.Contains(cs, int32(len(table)+c.i)); got != c.joins {
			t.Errorf("%q and %q: joined %v, want %v (classes %v)", table[c.i], c.copy, got, c.joins, classesOf(g))
		}
		for i := range table { // the rest of the copy joins as it is
			if i != c.i && !slices.Contains(g.Copies(i), int32(len(table)+i)) {
				t.Errorf("%q: exact copy of node %d not joined", c.copy, i)
			}
		}
	}
	// Alone (their documents not copies), short near copies are apart.
	g := copyGraph(t, [][]string{{"Pooja Ramachandran — Filmography", para1}, {"Pooja Ramachandran — Filomgraphy", para3}})
	if c := g.Copies(0); c != nil {
		t.Errorf("short near copies joined without a whole-document copy: %v", c)
	}
}

func TestTypoOf(t *testing.T) {
	for _, c := range []struct {
		x, y string
		want bool
	}{
		{"filmography", "filomgraphy", true}, {"album", "ablum", true}, {"highest", "highset", true},
		{"weekdays", "weekday", true}, {"statistics", "statisstics", true},
		{"smith", "smyth", false}, {"sing", "sign", false}, {"won", "own", false}, {"lost", "won", false},
		{"2001", "2010", false}, {"b2001", "b2001x", false}, {"same", "same", false}, {"abcdef", "badcef", false},
		{"été", "tée", false}, {"straße", "strße", true},
	} {
		if got := typoOf(c.x, c.y); got != c.want {
			t.Errorf("typoOf(%q, %q) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func TestCopiesImagesAndEmpty(t *testing.T) {
	nodes := []Node{
		{ID: "a#0", Doc: "a", Modality: ModalityFigure, Caption: "Figure 1: results", Image: &ImageRef{Path: "a.png", MIME: "image/png"}},
		{ID: "b#0", Doc: "b", Modality: ModalityFigure, Caption: "Figure 1: results", Image: &ImageRef{Path: "b.png", MIME: "image/png"}},
		{ID: "c#0", Doc: "c", Modality: ModalityFigure, Caption: "Figure 1: results", Image: &ImageRef{Path: "a.png", MIME: "image/png"}},
		{ID: "d#0", Doc: "d"},
		{ID: "e#0", Doc: "e", Content: "  "},
	}
	g, err := New(nodes, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := classesOf(g); len(got) != 1 || !slices.Equal(got[0], []string{"a#0", "c#0"}) {
		t.Errorf("classes %v: figures are copies only with the same image, empty nodes never", got)
	}
}

// The classes are a partition, hold no two different contents of one
// document, join every pair of exact copies, do not depend on the hash
// seed, and restrict to subgraphs.
func TestCopiesProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	vocab := strings.Fields(para1 + " " + para2 + " " + para3 + " 1 2 3 4 5")
	for trial := range 40 {
		var docs [][]string
		for range 2 + rng.IntN(5) {
			var items []string
			for range 1 + rng.IntN(6) {
				var w []string
				for range 3 + rng.IntN(12) {
					w = append(w, vocab[rng.IntN(len(vocab))])
				}
				items = append(items, strings.Join(w, " "))
			}
			docs = append(docs, items)
		}
		// Copies of some documents, some items changed.
		for d := range len(docs) {
			if rng.IntN(2) == 0 {
				continue
			}
			c := slices.Clone(docs[d])
			for i := range c {
				if rng.IntN(3) == 0 {
					c[i] += " " + vocab[rng.IntN(len(vocab))]
				}
			}
			docs = append(docs, c)
		}
		g := copyGraph(t, docs)
		x := g.copyIndex()
		for i := range g.Nodes {
			cs := g.Copies(i)
			if cs == nil {
				continue
			}
			if !slices.Contains(cs, int32(i)) || !slices.IsSorted(cs) {
				t.Fatalf("trial %d: node %d not in its class %v", trial, i, cs)
			}
			for _, v := range cs {
				if !slices.Equal(g.Copies(int(v)), cs) {
					t.Fatalf("trial %d: classes of %d and %d differ", trial, i, v)
				}
				a, b := &g.Nodes[i], &g.Nodes[v]
				if a.Doc == b.Doc && seqOf(a) != seqOf(b) {
					t.Fatalf("trial %d: %q and %q of one document in one class", trial, a.Content, b.Content)
				}
			}
		}
		for i := range g.Nodes {
			for j := range i {
				if g.Nodes[i].Content == g.Nodes[j].Content && !slices.Contains(g.Copies(i), int32(j)) {
					t.Fatalf("trial %d: exact copies %d and %d not joined", trial, j, i)
				}
			}
		}
		if y := findCopies(g); !slices.Equal(x.class, y.class) || !slices.Equal(x.members, y.members) {
			t.Fatalf("trial %d: a second run differs", trial)
		}
		var pick []int32
		for i := range len(g.Nodes) {
			if rng.IntN(2) == 0 {
				pick = append(pick, int32(i))
			}
		}
		s := g.Subgraph(pick)
		for i, v := range pick {
			var want []int32
			for k, u := range pick {
				if slices.Contains(g.Copies(int(v)), u) {
					want = append(want, int32(k))
				}
			}
			if len(want) < 2 {
				want = nil
			}
			if got := s.Copies(i); !slices.Equal(got, want) {
				t.Fatalf("trial %d: subgraph node %d: copies %v, want %v", trial, i, got, want)
			}
		}
	}
}

func FuzzCopies(f *testing.F) {
	f.Add(para1+"\n"+para2, para1+"\n"+strings.ToUpper(para2), "x 1 2\ny 2 1")
	f.Add("", "\x00\xff", "é É ſ")
	f.Add("Ünïcode Straße ﬁne 𝟙𝟚 words here ok\nİstanbul ǅemal", "ünïcode strasse ﬁne 𝟙𝟚 words here ok\ni̇stanbul ǆemal", "ÜNÏCODE STRAßE ﬁne 𝟙𝟚 WORDS HERE OK")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		g := copyGraph(t, [][]string{strings.Split(a, "\n"), strings.Split(b, "\n"), strings.Split(c, "\n")})
		if want, got := oldFindCopies(g), findCopies(g); !slices.Equal(want.class, got.class) || !slices.Equal(want.members, got.members) {
			t.Fatalf("classes %v %v, the oracle's %v %v", got.class, got.members, want.class, want.members)
		}
		if want, got := oldTitleClasses(g.Nodes), titleClasses(g.Nodes); !slices.Equal(want, got) {
			t.Fatalf("title classes %v, the oracle's %v", got, want)
		}
		for i := range g.Nodes {
			cs := g.Copies(i)
			if cs != nil && !slices.Contains(cs, int32(i)) {
				t.Fatalf("node %d not in its class %v", i, cs)
			}
		}
	})
}

func BenchmarkFindCopies(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 0))
	vocab := strings.Fields(para1 + " " + para2 + " " + para3)
	var docs [][]string
	for range 100 {
		var items []string
		for range 10 {
			var w []string
			for range 30 {
				w = append(w, vocab[rng.IntN(len(vocab))])
			}
			items = append(items, strings.Join(w, " "))
		}
		docs = append(docs, items, slices.Clone(items))
	}
	g := copyGraph(b, docs)
	b.ResetTimer()
	for range b.N {
		findCopies(g)
	}
}

// seqOf is the hash of a node's folded word sequence.
func seqOf(n *Node) uint64 {
	return newWordTable([]Node{*n}).of(0).seq
}
