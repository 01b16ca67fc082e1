package graph

// The content-class detection as it was before its words were kept in one
// flat table (one allocation per node and per text otherwise), kept as the
// oracle of TestCopiesOracle: the lean implementation must find exactly
// the classes this one finds. The whole-document alignment's pairing rule
// (alignSim), changed after, is shared.

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func oldCopyKey(n *Node) (string, bool) {
	if strings.TrimSpace(n.Content) == "" && strings.TrimSpace(n.Caption) == "" {
		return "", false
	}
	img := ""
	if n.Image != nil {
		img = n.Image.Path
	}
	return string(rune('0'+n.Modality)) + "\x00" + img + "\x00" + n.Caption + "\x00" + n.Content, true
}

type oldWords struct {
	seq     uint64
	set     []uint32
	numbers []uint32
	section []uint32
}

func oldNodeWords(n *Node) oldWords {
	text := n.Content
	if n.Caption != "" && n.Caption != n.Content {
		text = n.Caption + "\n" + text
	}
	var w oldWords
	seq := fnv.New64a()
	oldFoldWords(text, func(h uint32, word []byte, digit bool) {
		w.set = append(w.set, h)
		if digit {
			w.numbers = append(w.numbers, h)
		}
		seq.Write(word)
		seq.Write([]byte{' '})
	})
	w.seq = seq.Sum64()
	slices.Sort(w.set)
	w.set = slices.Compact(w.set)
	slices.Sort(w.numbers)
	oldFoldWords(n.Section, func(h uint32, _ []byte, _ bool) { w.section = append(w.section, h) })
	slices.Sort(w.section)
	w.section = slices.Compact(w.section)
	return w
}

// oldFoldWords calls fn with each word of text (a maximal run of letters and
// digits, lower-cased): its FNV-1a hash, its bytes (valid until fn
// returns) and whether it holds a digit.
func oldFoldWords(text string, fn func(h uint32, word []byte, digit bool)) {
	var word []byte
	digit := false
	end := func() {
		if len(word) == 0 {
			return
		}
		h := uint32(2166136261)
		for _, c := range word {
			h = (h ^ uint32(c)) * 16777619
		}
		fn(h, word, digit)
		word, digit = word[:0], false
	}
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			end()
			continue
		}
		word = utf8.AppendRune(word, unicode.ToLower(r))
		digit = digit || unicode.IsDigit(r)
	}
	end()
}

// nearCopies reports whether nodes u and v (of different documents) are
// near copies: under the same heading, the numbers of one all among the
// other's, at least copyMinWords oldWords each, and resemblance (Jaccard of
// the word sets) at least copyJaccard, either as they are or with the
// first or the last line of the longer one left out: a line added to a
// short passage (a site's footer, a date) lowers the resemblance of the
// whole but not of the rest. It returns the resemblance, by which pairs
// are ranked.
func (f *oldCopyFinder) nearCopies(u, v int32) (float64, bool) {
	a, b := f.wordsOf(u), f.wordsOf(v)
	if len(a.set) < copyMinWords || len(b.set) < copyMinWords || !slices.Equal(a.section, b.section) || !oldSameNumbers(a, b) {
		return 0, false
	}
	j := oldJaccard(a.set, b.set)
	if j >= copyJaccard {
		return j, true
	}
	long, short := v, a
	if len(a.set) > len(b.set) {
		long, short = u, b
	}
	text := f.g.Nodes[long].Content
	first, last := strings.IndexByte(text, '\n'), strings.LastIndexByte(text, '\n')
	if first < 0 {
		return j, false
	}
	for _, rest := range []string{text[first+1:], text[:last]} {
		var set []uint32
		oldFoldWords(rest, func(h uint32, _ []byte, _ bool) { set = append(set, h) })
		slices.Sort(set)
		if jr := oldJaccard(short.set, slices.Compact(set)); jr >= copyJaccard {
			return jr, true
		}
	}
	return j, false
}

// oldIntersect is |a∩b| of two ascending sets.
func oldIntersect(a, b []uint32) int {
	i, j, in := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			in++
			i++
			j++
		}
	}
	return in
}

// oldJaccard is |a∩b| / |a∪b| of two ascending sets (0 when both are empty).
func oldJaccard(a, b []uint32) float64 {
	in := oldIntersect(a, b)
	u := len(a) + len(b) - in
	if u == 0 {
		return 0
	}
	return float64(in) / float64(u)
}

// oldSubMultiset reports whether ascending a is contained in ascending b,
// repeats counted.
func oldSubMultiset(a, b []uint32) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// oldSameNumbers reports whether the numbers of one text are all among the
// other's, repeats counted: a copy may add a dated line, it may not change
// a figure.
func oldSameNumbers(a, b *oldWords) bool {
	return oldSubMultiset(a.numbers, b.numbers) || oldSubMultiset(b.numbers, a.numbers)
}

// oldCopyFinder is the state of oldFindCopies.
type oldCopyFinder struct {
	g        *Graph
	oldWords []*oldWords // computed on demand
	near     []bool      // nodes that may be near copies (text only, no image)
	doc      []int32     // document of each node (dense ids)
	docs     [][]int32
	// parent is the union-find forest over nodes, size the size of each
	// root's tree; exact is each node's group of exact copies (its root
	// after the exact pass), and held maps a root whose class spans more
	// than one exact group to the exact group it holds in each document.
	parent, size, exact []int32
	held                map[int32]map[int32]int32
}

func (f *oldCopyFinder) wordsOf(v int32) *oldWords {
	if f.oldWords[v] == nil {
		w := oldNodeWords(&f.g.Nodes[v])
		f.oldWords[v] = &w
	}
	return f.oldWords[v]
}

func (f *oldCopyFinder) find(v int32) int32 {
	for f.parent[v] != v {
		f.parent[v] = f.parent[f.parent[v]]
		v = f.parent[v]
	}
	return v
}

// union joins the classes of u and v.
func (f *oldCopyFinder) union(u, v int32) {
	a, b := f.find(u), f.find(v)
	if a == b {
		return
	}
	if f.size[a] < f.size[b] {
		a, b = b, a
	}
	f.parent[b] = a
	f.size[a] += f.size[b]
}

// docsOf is what root r's class holds per document: the exact group of
// its nodes there (one, since classes never hold two different contents of
// one document).
func (f *oldCopyFinder) docsOf(r int32) map[int32]int32 {
	if m := f.held[r]; m != nil {
		return m
	}
	return map[int32]int32{f.doc[r]: f.exact[r]}
}

// unionNear joins the classes of near copies u and v unless that would put
// two different contents of one document in one class: a document's
// similar nodes (the rows of a table) are not copies of each other, and a
// near copy in another document must not make them so.
func (f *oldCopyFinder) unionNear(u, v int32) bool {
	a, b := f.find(u), f.find(v)
	if a == b {
		return true
	}
	ma, mb := f.docsOf(a), f.docsOf(b)
	if len(ma) < len(mb) {
		ma, mb = mb, ma
	}
	for d, e := range mb {
		if x, ok := ma[d]; ok && x != e {
			return false
		}
	}
	for d, e := range mb {
		ma[d] = e
	}
	delete(f.held, a)
	delete(f.held, b)
	f.union(a, b)
	f.held[f.find(a)] = ma
	return true
}

// oldNearPair is a candidate pair of near copies and its similarity.
type oldNearPair struct {
	u, v int32
	j    float64
}

// oldFindCopies computes the content classes of g (see Copies): exact copies
// first, then near copies and aligned nodes of whole-document copies, most
// similar first, as long as no class holds two different contents of one
// document.
func oldFindCopies(g *Graph) *copyIndex {
	n := len(g.Nodes)
	f := &oldCopyFinder{g: g, oldWords: make([]*oldWords, n), near: make([]bool, n), doc: make([]int32, n),
		parent: make([]int32, n), size: make([]int32, n), held: map[int32]map[int32]int32{}}
	docID := map[string]int32{}
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		f.parent[i], f.size[i] = int32(i), 1
		d, ok := docID[nd.Doc]
		if !ok {
			d = int32(len(f.docs))
			docID[nd.Doc] = d
			f.docs = append(f.docs, nil)
		}
		f.doc[i] = d
		f.docs[d] = append(f.docs[d], int32(i))
		f.near[i] = nd.Image == nil
	}
	joined := false
	// Exact copies: equal keys, grouped by hash then compared.
	seed := maphash.MakeSeed()
	type keyed struct {
		h uint64
		v int32
	}
	ks := make([]keyed, 0, n)
	for i := range g.Nodes {
		if k, ok := oldCopyKey(&g.Nodes[i]); ok {
			ks = append(ks, keyed{maphash.String(seed, k), int32(i)})
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.v, b.v)
	})
	// Groups of exact copies; a few copies of one document's node say the
	// documents may be copies as a whole, a paragraph repeated in many
	// documents (a site's footer) does not.
	var groups [][]int32
	for a := 0; a < len(ks); {
		b := a + 1
		for b < len(ks) && ks[b].h == ks[a].h {
			b++
		}
		var reps []int32 // one node per distinct key of the hash
		first := len(groups)
		for i := a; i < b; i++ {
			v := ks[i].v
			kv, _ := oldCopyKey(&g.Nodes[v])
			found := false
			for r, u := range reps {
				if ku, _ := oldCopyKey(&g.Nodes[u]); ku == kv {
					f.union(u, v)
					joined = true
					groups[first+r] = append(groups[first+r], v)
					found = true
					break
				}
			}
			if !found {
				reps = append(reps, v)
				groups = append(groups, []int32{v})
			}
		}
		a = b
	}
	// Near copies over the edges: the folded word sequences of two nodes
	// are equal (an exact copy up to case and punctuation, in any two
	// documents), or two nodes of different documents are similar enough.
	var exactWords, near []oldNearPair
	for _, e := range g.Edges {
		u, v := e.U, e.V
		if !f.near[u] || !f.near[v] || e.Weight < copyCandidateCos || f.find(u) == f.find(v) {
			continue
		}
		wu, wv := f.wordsOf(u), f.wordsOf(v)
		if len(wu.set) == 0 || len(wv.set) == 0 {
			continue
		}
		if wu.seq == wv.seq && slices.Equal(wu.set, wv.set) {
			exactWords = append(exactWords, oldNearPair{u, v, 1})
			continue
		}
		if f.doc[u] == f.doc[v] {
			continue
		}
		if j, ok := f.nearCopies(u, v); ok {
			near = append(near, oldNearPair{u, v, j})
		}
	}
	for _, p := range exactWords {
		f.union(p.u, p.v)
		joined = true
	}
	f.exact = make([]int32, n)
	for i := range f.exact {
		r := f.find(int32(i))
		f.exact[i] = r
		if f.size[r] > 1 {
			m := f.held[r]
			if m == nil {
				m = map[int32]int32{}
				f.held[r] = m
			}
			m[f.doc[i]] = r
		}
	}
	for _, p := range exactWords {
		if len(groups) < 1<<30 { // each word-exact pair is a group of two
			groups = append(groups, []int32{p.u, p.v})
		}
	}
	// Per pair of documents, the nodes of each with a copy in the other.
	type docPair struct{ a, b int32 }
	have := map[docPair]map[int32]bool{}
	mark := func(u, v int32) {
		du, dv := f.doc[u], f.doc[v]
		if du == dv {
			return
		}
		k := docPair{min(du, dv), max(du, dv)}
		m := have[k]
		if m == nil {
			m = map[int32]bool{}
			have[k] = m
		}
		m[u], m[v] = true, true
	}
	for _, grp := range groups {
		if len(grp) < 2 || len(grp) > maxDocCopies {
			continue
		}
		for i := range grp {
			for j := range i {
				mark(grp[j], grp[i])
			}
		}
	}
	for _, p := range near {
		mark(p.u, p.v)
	}
	// Documents that are copies as a whole: align their nodes.
	keys := make([]docPair, 0, len(have))
	for k := range have {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y docPair) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		return cmp.Compare(x.b, y.b)
	})
	for _, k := range keys {
		m := have[k]
		small := k.a
		if len(f.docs[k.b]) < len(f.docs[small]) {
			small = k.b
		}
		covered := 0
		for v := range m {
			if f.doc[v] == small {
				covered++
			}
		}
		if float64(covered) < copyDocShare*float64(len(f.docs[small])) {
			continue
		}
		near = append(near, f.align(k.a, k.b)...)
	}
	// Most similar first, so that a class takes a document's nearest node.
	slices.SortFunc(near, func(x, y oldNearPair) int {
		if c := cmp.Compare(y.j, x.j); c != 0 {
			return c
		}
		if c := cmp.Compare(min(x.u, x.v), min(y.u, y.v)); c != 0 {
			return c
		}
		return cmp.Compare(max(x.u, x.v), max(y.u, y.v))
	})
	for _, p := range near {
		if f.unionNear(p.u, p.v) {
			joined = true
		}
	}
	if !joined {
		return &copyIndex{}
	}
	// Classes in the order of their lowest node; members ascending.
	x := &copyIndex{class: make([]int32, n), start: []int32{0}}
	id := map[int32]int32{}
	count := map[int32]int32{}
	for i := range x.class {
		count[f.find(int32(i))]++
	}
	for i := range x.class {
		r := f.find(int32(i))
		if count[r] < 2 {
			x.class[i] = -1
			continue
		}
		c, ok := id[r]
		if !ok {
			c = int32(len(id))
			id[r] = c
			x.start = append(x.start, x.start[len(x.start)-1]+count[r])
		}
		x.class[i] = c
	}
	x.members = make([]int32, x.start[len(x.start)-1])
	next := append([]int32(nil), x.start[:len(x.start)-1]...)
	for i, c := range x.class {
		if c >= 0 {
			x.members[next[c]] = int32(i)
			next[c]++
		}
	}
	return x
}

// align pairs the nodes of documents a and b, copies of one document as a
// whole: each node's candidates in the other document are its edges' other
// ends and the nodes within copyAlignWindow of its relative position; a
// node is paired with its most similar candidate (Jaccard, ties to the
// lower index) when that one's most similar candidate is the node, they
// share copyAlignJaccard of their oldWords and their numbers agree.
func (f *oldCopyFinder) align(a, b int32) []oldNearPair {
	best := func(v int32, other int32) (int32, float64) {
		wv := f.wordsOf(v)
		bestU, bestJ := int32(-1), -1.0
		try := func(u int32) {
			if f.doc[u] != other || !f.near[u] {
				return
			}
			wu := f.wordsOf(u)
			if len(wu.set) == 0 || !slices.Equal(wv.section, wu.section) || !oldSameNumbers(wv, wu) {
				return
			}
			// The pairing rule of alignSim (short nodes, typos, a line
			// added), which came after the flat table.
			xv := words{seq: wv.seq, set: wv.set, numbers: wv.numbers, section: wv.section}
			xu := words{seq: wu.seq, set: wu.set, numbers: wu.numbers, section: wu.section}
			var buf []byte
			if j, ok := alignSim(&f.g.Nodes[v], &f.g.Nodes[u], &xv, &xu, &buf); ok && (j > bestJ || (j == bestJ && u < bestU)) {
				bestU, bestJ = u, j
			}
		}
		nb, _ := f.g.Neighbors(int(v))
		for _, u := range nb {
			try(u)
		}
		mine, theirs := f.docs[f.doc[v]], f.docs[other]
		pos, _ := slices.BinarySearch(mine, v)
		at := pos * len(theirs) / max(len(mine), 1)
		for k := max(at-copyAlignWindow, 0); k <= min(at+copyAlignWindow, len(theirs)-1); k++ {
			try(theirs[k])
		}
		return bestU, bestJ
	}
	var out []oldNearPair
	for _, v := range f.docs[a] {
		if !f.near[v] || len(f.wordsOf(v).set) == 0 {
			continue
		}
		u, j := best(v, b)
		if u < 0 {
			continue
		}
		if back, _ := best(u, a); back == v {
			out = append(out, oldNearPair{v, u, j})
		}
	}
	return out
}

// oldTitleGroupAll is the largest group of nodes under one heading whose
// pairs oldTitleClasses compares all; a larger group compares each node with
// oldTitleGroupWindow neighbours in two min-hash orders.
const (
	oldTitleGroupAll    = 32
	oldTitleGroupWindow = 4
)

// oldTitleClasses returns the content classes of nodes without a graph's
// edges (each node's lowest copy, or nil when no two nodes hold one
// content), for MentionLinks' counts: Copies' rules over candidate pairs
// taken within each heading, since near copies share their heading and
// exact copies are found by key anyway. A heading's nodes are all
// compared when they are few; otherwise each is compared with its
// oldTitleGroupWindow neighbours in two orders by min-hash of the word set
// (two sets of Jaccard j share a min-hash with probability j), so the
// cost stays linear in the nodes.
func oldTitleClasses(nodes []Node) []int32 {
	ws := make([]oldWords, len(nodes))
	groups := map[string][]int32{}
	var keys []string
	for i := range nodes {
		ws[i] = oldNodeWords(&nodes[i])
		if len(ws[i].set) < copyMinWords || nodes[i].Image != nil {
			continue
		}
		k := fmt.Sprint(ws[i].section)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], int32(i))
	}
	var cand []Edge
	pair := func(u, v int32) {
		if nodes[u].Doc != nodes[v].Doc {
			cand = append(cand, Edge{U: u, V: v, Weight: 1, Kind: EdgeKNN})
		}
	}
	minHash := func(set []uint32, salt uint32) uint32 {
		m := ^uint32(0)
		for _, h := range set {
			m = min(m, (h^salt)*2654435761)
		}
		return m
	}
	for _, k := range keys {
		g := groups[k]
		if len(g) <= oldTitleGroupAll {
			for a := range g {
				for b := range a {
					pair(g[b], g[a])
				}
			}
			continue
		}
		for _, salt := range []uint32{0x9e3779b9, 0x85ebca6b} {
			mh := func(v int32) uint32 { return minHash(ws[v].set, salt) }
			slices.SortStableFunc(g, func(a, b int32) int { return cmp.Compare(mh(a), mh(b)) })
			for a := range g {
				for b := a + 1; b < min(a+1+oldTitleGroupWindow, len(g)); b++ {
					pair(g[a], g[b])
				}
			}
		}
	}
	tmp, err := assembleOwned(nodes, rows{}, cand)
	if err != nil {
		return nil
	}
	for i := range tmp.Edges { // no embeddings: every candidate is compared
		tmp.Edges[i].Weight = 1
	}
	x := oldFindCopies(tmp)
	if x.class == nil {
		return nil
	}
	class := make([]int32, len(nodes))
	for i := range class {
		class[i] = int32(i)
		if c := x.class[i]; c >= 0 {
			class[i] = x.members[x.start[c]]
		}
	}
	return class
}

// plantedCopies makes a collection of documents with sections, captions
// and a few images, and copies of some of them (exact, with case and
// punctuation changed, a word edited, sentences re-ordered, a line added,
// a figure changed), every one of a random subset of node pairs joined by
// an edge (dense: every pair).
func plantedCopies(rng *rand.Rand, dense bool) *Graph {
	vocab := strings.Fields(para1 + " " + para2 + " " + para3 + " 1901 1902 42 7.5 Table Row Alpha Beta Gamma")
	heads := []string{"", "History", "Ships (film)", "Results", "Table 2"}
	var nodes []Node
	docs := 4 + rng.IntN(8)
	var orig [][]Node
	for d := range docs {
		var items []Node
		for i := range 1 + rng.IntN(8) {
			var w []string
			for range 1 + rng.IntN(14) {
				w = append(w, vocab[rng.IntN(len(vocab))])
			}
			text := strings.Join(w, " ")
			if rng.IntN(4) == 0 {
				text += "\n" + vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))] + ". " + vocab[rng.IntN(len(vocab))]
			}
			n := Node{ID: fmt.Sprintf("d%d#%d", d, i), Doc: fmt.Sprintf("d%d", d), Order: i, Content: text, Section: heads[rng.IntN(len(heads))]}
			if rng.IntN(10) == 0 {
				n.Caption = vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))]
			}
			if rng.IntN(15) == 0 {
				n.Modality = ModalityFigure
				n.Image = &ImageRef{Path: fmt.Sprintf("img%d.png", rng.IntN(3))}
			}
			items = append(items, n)
		}
		orig = append(orig, items)
	}
	edit := func(text string) string {
		switch rng.IntN(8) {
		case 7:
			return strings.Replace(text, " ", "", 1) // two words made one
		case 0:
			return text
		case 1:
			return strings.ToUpper(text) + "."
		case 2:
			w := strings.Fields(text)
			w[rng.IntN(len(w))] = vocab[rng.IntN(len(vocab))]
			return strings.Join(w, " ")
		case 3:
			w := strings.Fields(text)
			rng.Shuffle(len(w), func(a, b int) { w[a], w[b] = w[b], w[a] })
			return strings.Join(w, " ")
		case 4:
			return text + "\nEdit this page on GitHub"
		case 5:
			return "Copyright 2024\n" + text
		default:
			return strings.Replace(text, "42", "43", 1)
		}
	}
	for d, items := range orig {
		nodes = append(nodes, items...)
		for c := range rng.IntN(3) {
			id := fmt.Sprintf("d%d~copy%d", d, c)
			for i, n := range items {
				if rng.IntN(8) == 0 {
					continue
				}
				n.ID, n.Doc, n.Order = fmt.Sprintf("%s#%d", id, i), id, i
				if n.Image == nil || rng.IntN(2) == 0 {
					n.Content = edit(n.Content)
				}
				if rng.IntN(6) == 0 { // the same text under another caption
					n.Caption = vocab[rng.IntN(len(vocab))]
				}
				nodes = append(nodes, n)
			}
		}
	}
	var edges []Edge
	for u := range nodes {
		for v := u + 1; v < len(nodes); v++ {
			if dense || rng.IntN(3) == 0 {
				edges = append(edges, Edge{U: int32(u), V: int32(v), Kind: EdgeKNN})
			}
		}
	}
	const dim = 16
	emb := make([]float32, len(nodes)*dim)
	for i := range nodes {
		for _, w := range strings.Fields(strings.ToLower(nodes[i].Content)) {
			emb[i*dim+len(w)%dim]++
		}
		emb[i*dim+rng.IntN(dim)] += 0.2
	}
	g, err := New(nodes, dim, emb, edges)
	if err != nil {
		panic(err)
	}
	return g
}

// TestCopiesOracle checks the detection against the implementation it
// replaced, on collections with planted copies of every kind: the same
// classes, node for node, and the same classes for MentionLinks.
func TestCopiesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	joined := 0
	for trial := range 300 {
		g := plantedCopies(rng, trial%2 == 0)
		want, got := oldFindCopies(g), findCopies(g)
		if !slices.Equal(want.class, got.class) || !slices.Equal(want.start, got.start) || !slices.Equal(want.members, got.members) {
			t.Fatalf("trial %d: classes %v %v %v, want %v %v %v", trial, got.class, got.start, got.members, want.class, want.start, want.members)
		}
		if w, c := oldTitleClasses(g.Nodes), titleClasses(g.Nodes); !slices.Equal(w, c) {
			t.Fatalf("trial %d: title classes %v, want %v", trial, c, w)
		}
		joined += len(got.members)
	}
	if joined < 1000 {
		t.Fatalf("only %d nodes in classes over all trials: the generator plants too few copies to test anything", joined)
	}
}
